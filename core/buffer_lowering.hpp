#pragma once
/// Buffer programs (format 3) for phase tables, and the way back: the lowering that `deploy`,
/// `export msccl` and the registry (for algorithms without a program of their own) use.
///
/// lower_to_buffers() gives a phase table the program a careful implementation would run: a block
/// received by a rank that needs it goes straight to its final output slot (alltoall: output
/// slot o*c + k of rank d; allgather: output slot o*c + k everywhere), a relayed block waits in a
/// scratch slot that is reused once its last forward has read it, and every rank copies its own
/// block(s) into place in the first phase (the self copy is part of the job). Forwards read from
/// wherever the block is: input at its origin, output at a destination, scratch at a relay.
/// A table in place (ScheduleHeader::inplace) lowers to a program in place: no input and no self
/// copy (own blocks start in the output); an alltoall origin sends its message to d from output
/// slot d*c + k, or, when it still sends it after the phase that overwrites that slot (with d's
/// message), from a scratch copy that phase makes.
///
/// table_of() is the inverse direction for algorithms written as buffer programs (the Bruck
/// programs): their phase table is the one their sends form, so the two can never disagree.

#include <vector>

#include "core/claims.hpp"
#include "core/schedule.hpp"

namespace phasecheck {

/// The program of `table` (a well-formed phase table that delivers: every forwarded block is held
/// by its sender). header.buffers is set; scratch is the most relay slots a rank needs at once.
/// Cost O(blocks moved) time, O(relay copies) memory.
Schedule lower_to_buffers(const Schedule& table);

/// The phase table of a buffer program: each phase's sends grouped per pair (core/buffer_state),
/// streamed to `out` (a phase of local copies only is an empty phase). Throws InputError when the
/// program faults (reads an empty slot, writes beyond a buffer, ...): a generator must not emit
/// that.
void table_of(const Schedule& program, const PhaseSink& out);

/// What the program lower_to_buffers() makes of a table must keep, given what the table claims
/// (`table`): the same, except for a table with no phase (one rank), whose program has one, the
/// self copy, and no phase of the table for the invariants to speak of.
Claims lowered_claims(Claims table);

}  // namespace phasecheck
