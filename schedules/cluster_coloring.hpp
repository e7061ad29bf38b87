#pragma once
/// cluster-coloring: a direct alltoall or allgather on a cluster of SMP nodes whose phases are the
/// colour classes of an edge colouring of the node multigraph (node pairs X, Y joined by
/// n_X x n_Y exchanges; a node's n_X (n_X - 1) intra-node sends fill the phases in which it has
/// no partner). See cluster_coloring.cpp and docs/algorithms.md.

#include <cstdint>
#include <span>
#include <vector>

#include "core/claims.hpp"
#include "core/parameter_spec.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

struct ClusterColoringOptions {
  Cluster cluster = Cluster({1});
  Collective collective = Collective::alltoall;

  /// collective.
  static std::span<const ParameterSpec> parameters();
  /// Reads parameters(); the topology must be a cluster. Checks the memory the greedy passes
  /// need (8 bytes per pair of nodes) against the limit; the matching pass, when it runs, checks
  /// its own (64 bytes a pair, and its patterns).
  static ClusterColoringOptions from(const ScheduleHeader& header);
};

/// How the colouring came out: its phase count against the bound, and the search that found it.
struct ColoringPlan {
  std::uint64_t bound = 0;   ///< cluster_bound (core/cluster_bound.hpp): no schedule has fewer
  std::uint64_t phases = 0;  ///< the schedule's phases
  unsigned attempt = 0;      ///< the pass that reached `phases`: 0-63 greedy, 64 the matching pass
  unsigned attempts = 0;     ///< passes tried in all
};

/// The colouring for these node sizes, without making the phases. The greedy passes take
/// O(attempts x patterns x N log N) for N nodes (patterns <= the node pairs + 2N); the matching
/// pass, where they fail, a maximum-weight matching a pattern (O(N^3 log N)) and a minimum odd cut
/// (N max flows) once a batch of patterns (docs/performance.md has the times).
ColoringPlan plan_cluster_coloring(const std::vector<Rank>& node_sizes);

/// Emits the phases, labelled "pattern s (j of c)": pattern s of the colouring, which the
/// schedule repeats c times (each time with the next processors of its node pairs).
void cluster_coloring(const ClusterColoringOptions& options, const PhaseSink& out);

/// The phase count (the bound, up to one more), and the invariant the colouring keeps: after
/// phase t, what every node still has to do, and the exchanges left, fit in the phases left.
Claims cluster_coloring_claims(const ClusterColoringOptions& options);

}  // namespace phasecheck::schedules
