#pragma once
// The two-node GPU machine of the tests of bounds and time in seconds (test_time_bounds.cpp,
// test_machine_time.cpp): two nodes of two GPUs, gpu0 - gpu1 (NVLink, 100e9 bytes/s), each GPU to
// its node's NIC (PCIe, 25e9), nic0 - nic1 (the network, a bridge: `network` bytes/s, 0 unknown).
// Host links 200e9; the NICs have no hosts.

#include "core/topology.hpp"

namespace phasecheck::testing {

inline Graph two_nodes(double network) {
  return Graph(
      {"gpu0", "gpu1", "nic0", "gpu2", "gpu3", "nic1"},
      {{"gpu0", "gpu1"},
       {"gpu0", "nic0"},
       {"gpu1", "nic0"},
       {"gpu2", "gpu3"},
       {"gpu2", "nic1"},
       {"gpu3", "nic1"},
       {"nic0", "nic1"}},
      {1, 1, 0, 1, 1, 0}, {}, {},
      LinkFacts{
          {100e9, 25e9, 25e9, 100e9, 25e9, 25e9, network}, {}, {200e9, 200e9, 0, 200e9, 200e9, 0}});
}

}  // namespace phasecheck::testing
