#pragma once
/// The replay checker: runs all per-rank programs together in a deterministic simulation of
/// matching sends and receives, and proves that they (1) run to completion without deadlock,
/// (2) realize the phase table: every message sent and received exactly once, by the ranks and
/// in the phase the table says, and (3) on a routed model keep the table's contention-freedom in
/// time: any two messages that share a directed link are ordered by happens-before (vector
/// clocks), so they can never be on the link together.
///
/// Semantics: send and recv are nonblocking posts; a message is in flight from the moment both
/// ends are posted until the wait of either end completes; wait blocks until all of the rank's
/// posts have been matched; sync-send is eager; sync-recv blocks until the message is there;
/// barrier blocks until every rank has reached it; copy (format 3) is local and never blocks.
/// A blocked rank runs again when a match, a synchronization message or a barrier may release
/// it; matches are first in, first out per pair and phase, so the result does not depend on the
/// order ranks run in, and ranks start in rank order, so it is the same on every run. O(operations
/// + messages x ranks when timed).

#include "core/schedule.hpp"
#include "core/verdict.hpp"
#include "programs/program.hpp"

namespace phasecheck::programs {

/// The largest rank count for the happens-before part (vector clocks: a clock per message of p
/// entries); beyond it, (1) and (2) are still checked and the summary says that (3) was not.
inline constexpr Rank kMaxTimedRanks = 128;

/// "replay". `model` is used for (3) when it routes.
CheckResult replay(const Schedule& schedule, const Topology& model,
                   const std::vector<RankProgram>& programs);

}  // namespace phasecheck::programs
