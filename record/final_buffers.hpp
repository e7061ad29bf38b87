#pragma once
/// Placement as the buffers show it: after the call, every described element of every rank's
/// receive buffer is the one the collective defines, no byte outside the described data changed
/// (the guards around the buffer and the holes of a non-contiguous receive type: a write there
/// is Open MPI 10488's failure), and the send buffer is as it was given.
///
/// The judgement rests on the final bytes, not on seeing every copy: local moves (the self copy,
/// Bruck's rotations) send no message and need none. A wrong element is traced to the message
/// that brought it to that rank when one did.

#include "core/verdict.hpp"
#include "record/messages.hpp"
#include "record/recording.hpp"

namespace phasecheck::record {

/// The `placement` check. O(buffer bytes + payload bytes of a faulty rank).
CheckResult check_final_buffers(const Recording& rec, const Messages& messages);

}  // namespace phasecheck::record
