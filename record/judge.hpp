#pragma once
/// A recorded run judged with the checkers `verify` uses, and the Verdict they make:
///   execution  every rank returned from the call (an MPI error, MPI_Abort, a rank that never
///              returned fail; a library that refused the algorithm before sending anything is
///              not evaluated: "not applicable");
///   delivery, contention, claims, bounds, invariants
///              the recorded phase table (record/messages.hpp) through verify::verify: exactly
///              once and forwarding, element by element;
///   placement  the final buffers (record/final_buffers.hpp);
///   deadlock   the calls replayed with no message buffered (record/deadlock.hpp);
///   lifetime   buffers used while a request owned them (record/lifetime.hpp).

#include <optional>
#include <string>

#include "core/schedule.hpp"
#include "core/topology.hpp"
#include "record/identify.hpp"
#include "record/recording.hpp"
#include "verify/report.hpp"

namespace phasecheck::record {

struct Judgement {
  verify::Report report;  ///< every check; report.verdict() is the run's
  /// The recorded phase table, named as below; empty at count 0 (no element moves) or when a
  /// payload does not decode.
  std::optional<Schedule> schedule;
  /// The registered algorithm the table is (record/identify.hpp), or empty.
  std::optional<std::string> identified;
};

/// Judges `rec` on `model` (the machine contention is judged on; it must have rec.ranks ranks).
/// The table is named after the registered algorithm it is when there is one (whose claims are
/// then checked too), else `fallback_name`. Throws InputError when the recording cannot be one
/// run (record/messages.hpp).
/// `prefer`: the registered algorithms to try first (record/identify.hpp).
Judgement judge(const Recording& rec, const Topology& model, const std::string& fallback_name,
                std::string_view prefer = {});

/// A run that left no recording to judge (the driver could not start it, a rank crashed before
/// it wrote anything): execution fails with `what`, and every other check is not evaluated.
Judgement unfinished(const std::string& algorithm, Collective collective, const Topology& model,
                     const std::string& what);

}  // namespace phasecheck::record
