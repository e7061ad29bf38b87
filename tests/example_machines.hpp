#pragma once
// The shipped example machines, for the tests that run something on every one of them (needs
// PHASECHECK_SOURCE_DIR, which the main test binary defines).

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/topology.hpp"
#include "io/json.hpp"

namespace phasecheck::testing {

/// examples/*/topology.json: each file's path and its machine, in path order.
inline std::vector<std::pair<std::string, Topology>> example_machines() {
  std::vector<std::pair<std::string, Topology>> all;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(PHASECHECK_SOURCE_DIR) + "/examples")) {
    const auto file = entry.path() / "topology.json";
    if (std::filesystem::exists(file))
      all.emplace_back(file.string(), io::read_topology_file(file.string()));
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return all;
}

}  // namespace phasecheck::testing
