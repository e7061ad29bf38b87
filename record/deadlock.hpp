#pragma once
/// The recorded calls of every rank as request programs (programs/zero_buffering.hpp), replayed
/// with no message buffered: a run that completed only because small messages went eagerly
/// fails with its cycle of ranks.

#include "core/verdict.hpp"
#include "record/messages.hpp"
#include "record/recording.hpp"

namespace phasecheck::record {

/// The `deadlock` check. O(events).
CheckResult check_deadlock(const Recording& rec, const Messages& messages);

}  // namespace phasecheck::record
