#pragma once
/// The checkers of an MSCCL program's execution (core/msccl.hpp holds the model): whether every
/// send meets a receive of its count on a connection of one threadblock per side, whether every
/// dependency is released, whether the steps deadlock, whether two steps race on a slot, and
/// whether a step names a slot beyond its gpu's buffers. Their findings are data: the faults of
/// header.imported (core/imported.hpp), which the verifier reports as the check `execution`.
/// docs/msccl.md states every rule.

#include <optional>
#include <string_view>
#include <vector>

#include "core/imported.hpp"
#include "core/msccl.hpp"
#include "core/schedule.hpp"

namespace phasecheck::verify {

/// The faults of `execution`, in this order: per connection (from, to, channel order) a shared
/// connection, count mismatches and what is left unmatched (shared connections first), steps
/// never released, a deadlock (or, when every step that never runs waits on a fault already
/// found, that count added to the first fault), the first race (with the count of the others),
/// and steps beyond their buffers, in phase order. Throws InputError when the race check's state
/// passes the memory limit (core/limits.hpp): 64 bytes per chunk a step reads or writes, charged
/// before it is built. Linear in the events and the chunks they touch, plus the happens-before
/// engine's merges (core/happens_before.hpp).
std::vector<ExecutionFault> execution_faults(const msccl::Execution& execution);

}  // namespace phasecheck::verify

namespace phasecheck::msccl {

/// The program as a format-3 schedule with header.imported set (docs/msccl.md): the model
/// (core/msccl.hpp) judged by verify::execution_faults. `source` names the file in messages.
/// Throws InputError only for what the runtime would refuse to load or what the model cannot
/// express (a collective other than alltoall/allgather, a step that reduces, buffers too small
/// for the collective) and for memory beyond the limit (core/limits.hpp): 512 bytes per step,
/// charged before the events are built, and 64 per chunk a step reads or writes, charged step by
/// step before the race check builds its state (the refusal names `source` and the step); every
/// step is checked against its gpu's declared buffers before that, and one beyond them is a fault
/// that sizes nothing. Every fault of the program's execution is data in header.imported.
/// Declared here, not in core/, because it runs the checkers.
Schedule lower(const Program& p, std::string_view source,
               std::optional<Placement> placement = std::nullopt);

}  // namespace phasecheck::msccl
