#pragma once
/// The counting bounds on the phases of a direct alltoall or allgather on a cluster of SMP nodes
/// (one operation per node and phase: an intra-node send, or an exchange with one other node).
/// One definition, used by the bounds (verify/bounds.cpp) and by cluster-coloring's claim.
///
/// With Goldberg-Seymour's density over odd sets of nodes, these two are the whole bound: a
/// proper odd subset S of the nodes never gives more than the largest node's operations
/// (docs/algorithms.md, "cluster-coloring", has the argument), so the odd set to count is all
/// nodes, when there is an odd number of them.

#include <cstdint>
#include <vector>

#include "core/topology.hpp"

namespace phasecheck {

struct ClusterBound {
  std::uint64_t largest = 0;      ///< n_max, the largest node's processors
  std::uint64_t node_ops = 0;     ///< n_max (p - 1): what the largest node receives, one a phase
  std::uint64_t exchanges = 0;    ///< pairs of processors on different nodes
  std::uint64_t per_phase = 0;    ///< floor(nodes / 2): the node pairs one phase can hold
  std::uint64_t pair_phases = 0;  ///< ceil(exchanges / per_phase); 0 without exchanges
  std::uint64_t value() const { return node_ops > pair_phases ? node_ops : pair_phases; }
};

ClusterBound cluster_bound(const std::vector<Rank>& node_sizes);

}  // namespace phasecheck
