#pragma once
// Internal to schedules/: all-to-all personalized communication along lines of nodes, the
// building block of Grama et al.'s ring (Section 4.5.1, Fig. 4.18) and mesh (Section 4.5.2)
// algorithms. Each position x of a line holds a cluster of blocks for every other position t.
// In step s = 1, 2, ... the node at x forwards, to its neighbour in each direction, the clusters
// that started at the position s - 1 behind it and still travel at least one more hop: the
// consolidated message shrinks by one cluster per step, and each node keeps the cluster meant for
// it. Every transfer goes to a neighbour, so a step uses each directed link of the line once.

#include <functional>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::schedules::detail {

enum class LineRouting {
  forward,   ///< a ring, every cluster in the + direction: n - 1 steps (Fig. 4.18)
  shortest,  ///< a ring, every cluster the shorter way round, a tie in the + direction
  linear,    ///< a linear array (no wraparound), every cluster toward its target: n - 1 steps
};

/// Number of steps for a line of n positions.
std::size_t line_steps(std::size_t n, LineRouting routing);

/// Appends the blocks position `from` of line `line` sends to position `to` (the cluster).
using ClusterFn =
    std::function<void(std::size_t line, Rank from, Rank to, std::vector<Block>& out)>;

/// Emits one phase per step; all lines run in parallel. lines[l][x] is the rank at position x.
/// For allgather the clusters of one transfer overlap and each block is sent once (the ring
/// algorithm then is the all-to-all broadcast of Section 4.2.1).
/// `label(s)` names step s (1-based); the last step's label gets `last_suffix`.
void line_alltoall(const std::vector<std::vector<Rank>>& lines, LineRouting routing,
                   const ClusterFn& cluster, const std::function<std::string(std::size_t)>& label,
                   const std::string& last_suffix, const PhaseSink& out);

}  // namespace phasecheck::schedules::detail
