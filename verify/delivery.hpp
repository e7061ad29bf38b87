#pragma once
/// The delivery checker: a direct data-flow simulation. Precondition: rank o holds its own blocks.
/// Each phase: every transfer may carry only blocks its sender holds at the start of the phase;
/// arrivals take effect at the end of the phase. Postcondition: every block is at every rank that
/// needs it (alltoall: [o,d] at d; allgather: [o] everywhere), having arrived there exactly once.
///
/// State: one 32-bit arrival phase per (origin, destination) pair, plus the copies left at
/// intermediate ranks of forwarding schedules (relay_map.hpp). Cost O(blocks moved).

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/invariant.hpp"
#include "core/schedule.hpp"
#include "verify/relay_map.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

class DeliveryChecker final : public DataView {
 public:
  /// `parts`: segments per message (alltoall); a message is delivered when all have arrived.
  /// Throws InputError, before allocating, when its state (memory_bytes) exceeds the memory
  /// limit (core/limits.hpp).
  DeliveryChecker(Collective collective, Rank ranks, std::uint32_t parts = 1);
  /// The most memory its state takes: 8 bytes per block (ranks^2 x parts) and 4 per pair; empty
  /// when that overflows.
  static std::optional<std::uint64_t> memory_bytes(Rank ranks, std::uint32_t parts);

  /// Applies phase number `index` (0-based, consecutive). Transfers must be well-formed.
  void consume(std::size_t index, const Phase& phase);
  /// The verdict after the last phase: every required block delivered exactly once.
  CheckResult finish() const;

  bool holds(Rank r, Block b) const override;
  bool delivered(Rank origin, Rank dest) const override;
  Rank delivered_count(Rank dest) const override;

 private:
  std::uint64_t key(Rank origin, Rank dest, std::uint32_t part = 0) const {
    return (std::uint64_t{origin} * ranks_ + dest) * parts_ + part;
  }
  /// Phase + 1 in which the block became available at `r` (0: never); own blocks count as 0+.
  bool held_before(Rank r, Block b, std::uint32_t now) const;
  void fail(Counterexample c);
  /// For the first counterexample only: `b` reaches `r` in the phase being applied (linear).
  bool arrives_in_this_phase(Rank r, Block b) const;

  Collective collective_;
  Rank ranks_;
  std::uint32_t parts_;
  std::uint32_t now_ = 0;               // phase index + 1 of the phase being applied
  std::vector<std::uint32_t> arrival_;  // by key(origin, dest): phase + 1, 0 = not yet
  detail::RelayCopies relay_;           // alltoall copies at intermediate ranks, earlier phases
  std::vector<std::pair<std::uint64_t, Rank>> pending_;  // this phase's copies: (block, rank)
  std::vector<Rank> received_;           // per destination: distinct deliveries so far
  std::vector<std::uint32_t> complete_;  // parts > 1: per (origin, dest), parts arrived
  std::uint64_t violations_ = 0;
  std::optional<Counterexample> first_;
};

}  // namespace phasecheck::verify
