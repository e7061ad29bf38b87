#pragma once
// Every registered algorithm's buffer program on each machine it runs on: what the exporters'
// tests (MSCCL XML, MSCCL++) hand to their exporter.

#include <span>
#include <vector>

#include "core/error.hpp"
#include "core/schedule.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::testing {

struct RegisteredProgram {
  const schedules::Algorithm* algorithm = nullptr;
  Topology machine;
  Schedule program;
};

/// The programs of every registered algorithm with its default parameters on each of
/// `machines`, skipping the pairs an algorithm refuses (a tree, a cluster, a power of two, an
/// alltoallv without its matrix).
inline std::vector<RegisteredProgram> registered_programs(std::span<const Topology> machines) {
  std::vector<RegisteredProgram> out;
  for (const schedules::Algorithm& algorithm : schedules::algorithms())
    for (const Topology& machine : machines) try {
        out.push_back({&algorithm, machine,
                       schedules::generate_program(
                           algorithm, schedules::make_header(algorithm, machine, {}))});
      } catch (const InputError&) {
        continue;
      }
  return out;
}

}  // namespace phasecheck::testing
