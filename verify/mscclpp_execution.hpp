#pragma once
/// The checkers of an MSCCL++ plan's execution (core/mscclpp_execution.hpp holds the model):
/// whether every wait is released, whether the threadblocks deadlock, whether a channel's signals
/// and waits balance per call, whether two accesses to one buffer cell race, whether an op names
/// cells beyond its gpu's buffers. Their findings are the faults of header.imported
/// (core/imported.hpp), which the verifier reports as the check `execution`. docs/mscclpp.md
/// states every rule.

#include <optional>
#include <string_view>

#include "core/mscclpp.hpp"
#include "core/schedule.hpp"

namespace phasecheck::mscclpp {

/// The plan as a format-3 schedule with header.imported set (docs/mscclpp.md): its first call
/// lowered to phases, every fault of its execution (over consecutive calls) as data. `source`
/// names the file in messages. Throws InputError only for what the model cannot express (a
/// collective other than alltoall/allgather, an op that reduces or uses NVLS, buffers too small for
/// the collective) and for memory beyond the limit (core/limits.hpp), naming `source` and the op
/// (`gpus[3].threadblocks[1].ops[7]`).
Schedule lower(const Plan& plan, std::string_view source);

}  // namespace phasecheck::mscclpp
