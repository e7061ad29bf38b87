#pragma once
/// Bruck et al.'s algorithms on a k-port machine, measured by the verifier: the family `optimal
/// --mode forwarding` and `whatif optimality --family kport` hold against the proven frontier.

#include <cstdint>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::experiments {

struct BruckPoint {
  std::string name;  ///< "bruck-index r=3" or "bruck-concat"
  std::uint64_t c1 = 0, c2 = 0;
  Schedule schedule;
};

/// bruck-index for every radix 2..n (alltoall), or bruck-concat (allgather), on n ranks with k
/// ports; only schedules that pass delivery and contention are listed. Empty for a machine that
/// is not FullyConnected.
std::vector<BruckPoint> bruck_family(const Topology& model, Collective c);

/// The most blocks one transfer of `s` carries.
std::size_t largest_transfer(const Schedule& s);

}  // namespace phasecheck::experiments
