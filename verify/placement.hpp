#pragma once
/// The placement checker (format 3): runs the buffer program on the execution model of
/// core/buffer_state.hpp and proves the final layout, slot by slot.
///
/// Fails on every op fault (a read or write beyond a declared buffer, a read of an empty slot, a
/// write to an input buffer, two writes to one slot in one phase) and on every output slot that
/// does not hold its chunk at the end (alltoall: output slot s*c + k of rank r holds (s, r, k),
/// the self copy included; allgather: (s, k) on every rank). The counterexample names the phase,
/// the op, the rank, the buffer and slot, what was found against what was expected, who wrote
/// it, and where the expected chunk's last copy was lost or where it was left.
///
/// It also produces the phase table of each phase's sends (Verifier feeds it to the other
/// checkers). Cost O(ops + chunks moved) per phase, plus one pass over the output slots at the end.

#include <cstdint>
#include <optional>

#include "core/buffer_state.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

class PlacementChecker {
 public:
  /// Throws InputError before allocating when the state exceeds the memory limit, or when the
  /// layout does not fit the collective.
  PlacementChecker(Collective collective, Rank ranks, const BufferLayout& layout);

  /// Runs phase `index` (0-based, consecutive); `phase.ops()` must be well-formed (op_problem).
  /// Returns the table its sends form, valid until the next call.
  const Phase& consume(std::size_t index, const Phase& phase);
  CheckResult finish() const;

 private:
  void fault(std::size_t index, const Phase& phase, const OpFault& f);

  BufferState state_;
  Phase table_;
  std::uint64_t chunk_moves_ = 0;
  std::uint64_t faults_ = 0;
  std::optional<Counterexample> first_;
};

}  // namespace phasecheck::verify
