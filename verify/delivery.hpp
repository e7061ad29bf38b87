#pragma once
/// The delivery checker: a direct data-flow simulation. Precondition: rank o holds its own blocks.
/// Each phase: every transfer may carry only blocks its sender holds at the start of the phase;
/// arrivals take effect at the end of the phase. Postcondition: every block is at every rank that
/// needs it (alltoall: [o,d] at d; allgather: [o] everywhere), having arrived there exactly once.
///
/// State: per receiving rank, the set of blocks that have arrived there, kept as runs of
/// consecutive origins and turned into a bitset only when a rank's arrivals are too scattered
/// for runs (arrivals.hpp): orderly schedules take O(ranks) memory, none more than one bit per
/// block. Forwarding schedules also keep the copies left at intermediate ranks (relay_map.hpp),
/// allocated at the first forwarded copy. A phase's arrivals take effect after the phase. Cost
/// O(blocks moved x log runs).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/invariant.hpp"
#include "core/schedule.hpp"
#include "verify/arrivals.hpp"
#include "verify/relay_map.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

class DeliveryChecker final : public DataView {
 public:
  /// `parts`: segments per message (alltoall); a message is delivered when all have arrived.
  /// Throws InputError, before allocating, when its initial state (memory_bytes) exceeds the
  /// memory limit (core/limits.hpp); later growth is charged as it happens (consume throws
  /// InputError at the arrival or the forwarded copy that would pass the limit).
  DeliveryChecker(Collective collective, Rank ranks, std::uint32_t parts = 1);
  /// The memory of its initial state, which grows with ranks (not ranks^2).
  static std::uint64_t memory_bytes(Rank ranks);
  /// An alltoallv (core/traffic.hpp): a message of no elements is not required, and message
  /// [o, d] is its pieces.of(count(o, d)) pieces, not `parts`. `traffic` must outlive the
  /// checker; parts must be at least the most pieces of any message.
  void expect(const Traffic& traffic, Pieces pieces);

  /// Applies phase number `index` (0-based, consecutive). Transfers must be well-formed.
  void consume(std::size_t index, const Phase& phase);
  /// The same for a direct phase: its arrivals from the pairs, the Phase built only to draw a
  /// duplicate.
  void consume(std::size_t index, const DirectPhase& phase);
  /// The verdict after the last phase: every required block delivered exactly once.
  CheckResult finish() const;

  /// The origins whose blocks have arrived at `dest` (parts == 1, no traffic: an item is its
  /// origin), as sorted runs [lo, hi), replacing `out`'s contents.
  void arrived_runs(Rank dest, std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) const {
    arrivals_.runs_of(dest, out);
  }
  /// Invalid or duplicate deliveries so far.
  std::uint64_t violations() const { return violations_; }
  /// The check's result when every one of `deliveries` happened exactly once (finish()'s words).
  static CheckResult all_delivered(std::uint64_t deliveries);

  bool holds(Rank r, Block b) const override;
  bool delivered(Rank origin, Rank dest) const override;
  bool delivered_all(Rank first, Rank last, Rank dest) const override;
  Rank delivered_count(Rank dest) const override;

 private:
  std::uint64_t key(Rank origin, Rank dest, std::uint32_t part = 0) const {
    return (std::uint64_t{origin} * ranks_ + dest) * parts_ + part;
  }
  /// A block's item in the arrival set of the rank it reaches.
  std::uint32_t item(Block b) const { return b.origin * parts_ + b.part; }
  /// `r` holds `b` from a phase before the one being applied (or from the start).
  bool held(Rank r, Block b) const;
  void fail(Counterexample c);
  /// For the first counterexample only: `b` reaches `r` in the phase being applied (linear).
  bool arrives_in_this_phase(Rank r, Block b) const;
  /// Applies the phase's arrivals at destinations; a second arrival of one block is a duplicate.
  void arrive(std::size_t index, const Phase& phase);
  /// Every block of the phase is carried by its origin, straight to its destination (or any rank,
  /// allgather), or stays local: the phase consume() judges by arriving alone.
  bool direct(const Phase& phase) const;
  /// consume() of a direct phase: its arrivals in one pass, nothing queued.
  void arrive_direct(std::size_t index, const Phase& phase);
  /// arrive_direct of a phase of own messages, one block a transfer, with parts_ == 1 and no
  /// traffic (a Phase's Transfers or a DirectPhase's pairs): `phase_of()` gives the Phase, built
  /// only to draw the first duplicate.
  template <class T, class PhaseOf>
  void arrive_own(std::size_t index, std::span<const T> transfers, const PhaseOf& phase_of);
  /// arrive_direct met block `b` (of transfer `i`) at its destination again: the duplicate, with
  /// the transfer of this phase that brought it first, if one did.
  void repeated(std::size_t index, const Phase& phase, std::uint32_t i, const Block& b);
  /// Adds an arrival at a destination; false when the block was there already.
  bool insert(Rank at, std::uint32_t item);
  /// A second arrival of `b` at `at`, by transfer `transfer`; `earlier` names the transfer of
  /// this phase that brought it first, if one did.
  void duplicate(std::size_t index, const Phase& phase, std::optional<std::uint32_t> earlier,
                 std::uint32_t transfer, Rank at, Block b);

  /// An arrival at a destination in the phase being applied.
  struct Arrival {
    Rank at;
    std::uint32_t item;
    std::uint32_t transfer;  // its index in the phase
    Block block;
  };

  /// The pieces message [o, d] has: parts_, or an alltoallv's.
  std::uint32_t pieces(Rank origin, Rank dest) const {
    return traffic_ ? static_cast<std::uint32_t>(pieces_.of(traffic_->count(origin, dest)))
                    : parts_;
  }
  /// The items rank d needs; the first missing of them when it has fewer, in (origin, part) order.
  std::uint64_t required(Rank d) const;
  std::uint32_t first_missing(Rank d) const;

  Collective collective_;
  Rank ranks_;
  std::uint32_t parts_;
  const Traffic* traffic_ = nullptr;  // an alltoallv's
  Pieces pieces_;
  detail::Arrivals arrivals_;  // per rank, the items that arrived there in earlier phases
  detail::RelayCopies relay_;  // alltoall copies at intermediate ranks, earlier phases
  std::vector<std::pair<std::uint64_t, Rank>> pending_;  // this phase's copies: (block, rank)
  std::vector<Arrival> arriving_;                        // this phase's arrivals
  std::vector<Rank> received_;  // per destination: distinct complete messages so far
  std::uint64_t violations_ = 0;
  std::optional<Counterexample> first_;
};

}  // namespace phasecheck::verify
