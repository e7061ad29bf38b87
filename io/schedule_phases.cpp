// A phase read whole: validated against its schedule's header, and a version-3 program's phase
// run to fill in its table (docs/formats.md).

#include "io/schedule_phases.hpp"

#include <algorithm>
#include <string>

#include "core/buffers.hpp"
#include "core/files.hpp"
#include "io/json_common.hpp"

namespace phasecheck::io::detail {

PhaseDelivery::PhaseDelivery(std::string_view source, const ScheduleHeader& shape, Tables tables,
                             const PhaseSink& on_phase)
    : source_(source),
      collective_(shape.collective),
      ranks_(shape.ranks()),
      parts_(shape.parts),
      traffic_(shape.traffic),
      pieces_(shape.pieces()),
      program_(shape.buffers.has_value()),
      on_phase_(on_phase) {
  if (program_ && tables == Tables::derive)
    with_source(std::string(source),
                [&] { state_machine_.emplace(collective_, ranks_, *shape.buffers); });
}

void PhaseDelivery::fail(std::size_t index, const std::string& path,
                         const std::string& what) const {
  throw_at(source_, "phases[" + std::to_string(index) + "]" + path, what);
}

void PhaseDelivery::deliver(Phase& phase, std::size_t index, bool has_ops) {
  if (program_) {
    if (!has_ops) fail(index, "", "has \"transfers\"; a version-3 phase has \"ops\"");
    return deliver_program(phase, index);
  }
  if (has_ops) fail(index, "", "has \"ops\", which need " + std::string(kScheduleFormatV3));
  // The common case in one pass (core's transfers_well_formed, the check the verifier makes);
  // only a phase that fails it (an alltoallv's, one whose transfers omit their blocks, or a bad
  // one) goes transfer by transfer, to fill in blocks and name the problem.
  const auto transfers = phase.transfers();
  if (!traffic_ && transfers_well_formed(phase, collective_, ranks_, parts_))
    return on_phase_(phase);
  const bool omitted = std::any_of(transfers.begin(), transfers.end(),
                                   [](const Transfer& t) { return t.block_count == 0; });
  Phase filled;
  if (omitted) {
    filled.set_label(phase.label());
    for (const Transfer& t : transfers) {
      if (t.block_count == 0)
        filled.add(t.src, t.dst, direct_block(collective_, t.src, t.dst));
      else
        filled.add(t.src, t.dst, phase.blocks(t));
    }
  }
  const Phase& out = omitted ? filled : phase;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (const auto problem = transfer_problem(out, out[i], collective_, ranks_, parts_,
                                              traffic_ ? &*traffic_ : nullptr, pieces_))
      fail(index, ".transfers[" + std::to_string(i) + "]", *problem);
  on_phase_(out);
}

/// Version 3: validates the ops and, unless the consumer derives them itself, fills in the table
/// the sends form.
void PhaseDelivery::deliver_program(Phase& phase, std::size_t index) {
  const auto ops = phase.ops();
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (const auto problem = op_problem(ops[i], ranks_))
      fail(index, ".ops[" + std::to_string(i) + "]", *problem);
  // Faults are the placement checker's to report; the table holds what could be moved.
  if (state_machine_) state_machine_->apply(index, ops, phase, [](const OpFault&) {});
  on_phase_(phase);
}

}  // namespace phasecheck::io::detail
