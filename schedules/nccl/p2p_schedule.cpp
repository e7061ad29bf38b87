// NCCL's p2p schedule, ncclP2pSchedule in src/init.cc. Followed: NCCL 2.30.7 (commit 5067397c of
// github.com/NVIDIA/nccl), whose walk arrived in 2.28.7 (commit ae7aed19), and 2.28.3, whose
// walk arrived in 2.22.3 (commit 178b6b75).
//
// 2.28.7 and later: the group size is P2P_SCHEDULE_GROUP_SIZE when there is more than one node,
// else the node's ranks; a node whose ranks it does not divide (or that has fewer) lowers it to
// their gcd. Groups are numbered node by node; in a round every rank sends to the group
// `groupDelta` ahead and, inside it, the rank `delta` ahead: groupDelta walks the quadratic
// sequence over the next power of two of the group count (values beyond the count skipped),
// delta runs 0..groupSize-1 for each.
// 2.22.3 to 2.28.3: the same over nodes, and quadratic inside the node too; nodes of different
// sizes make it "flat": one node of p ranks.

#include "schedules/nccl/p2p_schedule.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

namespace phasecheck::schedules::nccl {

std::vector<Rank> quadratic_deltas(Rank n) {
  const std::uint64_t pow2 = std::bit_ceil(std::uint64_t{n});
  std::vector<Rank> deltas;
  deltas.reserve(n);
  std::uint64_t delta = 0;
  for (std::uint64_t round = 0; round < pow2;) {
    if (delta < n) deltas.push_back(static_cast<Rank>(delta));
    ++round;
    delta = (delta + round) & (pow2 - 1);
  }
  return deltas;
}

P2pSchedule::P2pSchedule(P2pWalk walk, std::span<const Rank> node_sizes, Rank group_size) {
  ranks_ = std::accumulate(node_sizes.begin(), node_sizes.end(), Rank{0});
  std::vector<Rank> outer;
  std::vector<Rank> inner;
  switch (walk) {
    case P2pWalk::groups: {
      Rank size = node_sizes.size() > 1 ? group_size
                                        : *std::max_element(node_sizes.begin(), node_sizes.end());
      for (const Rank local : node_sizes)
        if (local % size != 0 || local < size) size = std::gcd(size, local);
      unit_ = size;
      outer = quadratic_deltas(ranks_ / unit_);
      inner.resize(unit_);
      std::iota(inner.begin(), inner.end(), Rank{0});
      break;
    }
    case P2pWalk::nodes: {
      const bool flat = std::any_of(node_sizes.begin(), node_sizes.end(),
                                    [&](Rank local) { return local != node_sizes.front(); });
      unit_ = flat ? ranks_ : node_sizes.front();
      outer = quadratic_deltas(ranks_ / unit_);
      inner = quadratic_deltas(unit_);
      break;
    }
  }
  steps_.reserve(ranks_);
  for (const Rank o : outer)
    for (const Rank i : inner) steps_.push_back({o, i});
}

Rank P2pSchedule::send_peer(Rank round, Rank rank) const {
  const Step s = steps_[round];
  const std::uint64_t units = ranks_ / unit_;
  return static_cast<Rank>((rank / unit_ + s.outer) % units * unit_ +
                           (rank % unit_ + s.inner) % unit_);
}

Rank P2pSchedule::recv_peer(Rank round, Rank rank) const {
  const Step s = steps_[round];
  const std::uint64_t units = ranks_ / unit_;
  return static_cast<Rank>((rank / unit_ + units - s.outer) % units * unit_ +
                           (rank % unit_ + unit_ - s.inner) % unit_);
}

}  // namespace phasecheck::schedules::nccl
