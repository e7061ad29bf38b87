#pragma once
/// NCCL's p2p schedule (src/init.cc, ncclP2pSchedule): the order in which every rank of a
/// communicator meets its peers in grouped send/recv, so in an alltoall. Internal to
/// schedules/nccl/: nccl_p2p_alltoall.cpp emits it, its tests perturb it.

#include <cstdint>
#include <span>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::schedules::nccl {

/// The NCCL releases whose walk is modelled.
enum class P2pWalk {
  groups,  ///< 2.28.7 and later: quadratic over groups of P2P_SCHEDULE_GROUP_SIZE, linear inside
  nodes,   ///< 2.22.3 to 2.28.3: quadratic over nodes, quadratic inside a node
};

/// Rounds 0..p-1. In round t rank r sends to send_peer(t, r) and receives from recv_peer(t, r);
/// round 0 is the self exchange. Ranks are numbered node by node (NCCL's localRankToRank for
/// ranks placed in order), so a unit (a group, or a node) of `unit` ranks is a run of ranks:
/// send_peer(t, r) = ((r / unit + outer_t) mod units) unit + (r mod unit + inner_t) mod unit.
class P2pSchedule {
 public:
  /// `node_sizes`: the ranks of each node, in order (at least one node, none empty).
  /// `group_size`: P2P_SCHEDULE_GROUP_SIZE (used by P2pWalk::groups only; >= 1).
  P2pSchedule(P2pWalk walk, std::span<const Rank> node_sizes, Rank group_size);

  Rank ranks() const { return ranks_; }
  /// The ranks walked together: the group size NCCL settles on (groups), or the node size (nodes;
  /// p when the nodes differ in size: NCCL's "flat" schedule).
  Rank unit() const { return unit_; }
  Rank send_peer(Rank round, Rank rank) const;
  Rank recv_peer(Rank round, Rank rank) const;

 private:
  struct Step {
    Rank outer = 0;  ///< unit delta
    Rank inner = 0;  ///< delta inside the unit
  };
  Rank ranks_ = 0;
  Rank unit_ = 1;
  std::vector<Step> steps_;  ///< one per round
};

/// The deltas 0, 1, 3, 6, 10, ... (x^2 + x)/2 mod 2^ceil(log2 n), those below n, in order: a
/// permutation of 0..n-1 (NCCL's "quadratic update"; for n = 16: 0 1 3 6 10 15 5 12 4 13 7 2 14
/// 11 9 8).
std::vector<Rank> quadratic_deltas(Rank n);

}  // namespace phasecheck::schedules::nccl
