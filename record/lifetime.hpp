#pragma once
/// Buffer lifetime: MPI owns a request's buffer from the post until the request completes.
/// Two faults are seen in a recording:
///   - a send buffer changed before its request completed: its bytes, packed with its datatype
///     at the send and again at the completing wait, differ (exact);
///   - a buffer handed on before its wait: a send posted from, or a receive posted into, bytes a
///     pending receive of the same rank is still writing. Datatypes with holes may interleave
///     without sharing a byte, and the recording has their extents only, so this second fault
///     is claimed only when both buffers are contiguous (their extent is their packed size).

#include "core/verdict.hpp"
#include "record/messages.hpp"
#include "record/recording.hpp"

namespace phasecheck::record {

/// The `lifetime` check. O(events x pending receives).
CheckResult check_lifetime(const Recording& rec, const Messages& messages);

}  // namespace phasecheck::record
