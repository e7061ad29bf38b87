#pragma once
/// `phasecheck verify SCHEDULE --svg FILE`: the picture of a failed check's counterexample
/// (core/verdict.hpp). Two panels:
///   - the offending phase: ranks on a line, each transfer an arc from its source to its
///     destination (above the line going right, below going left); the phase's other transfers
///     grey, the conflicting ones red;
///   - the routes of the conflicting transfers, one row each: the nodes the transfer passes
///     through (machines and switches, routers, ranks or SMP nodes), with the shared link, node
///     or port in red and named in the caption.
/// Only a failure located in a phase with transfers is drawn (drawable_failure); the caller says
/// so when there is none rather than drawing an empty picture.

#include <cstddef>
#include <string>
#include <string_view>

#include "core/schedule.hpp"
#include "verify/report.hpp"

namespace phasecheck::reports {

/// Context arcs drawn at most: a larger offending phase shows its conflicting transfers only
/// and says so.
inline constexpr std::size_t kMaxContextTransfers = 16384;

/// The first failed check (in report order) whose counterexample names a phase and transfers;
/// null when there is none (everything passes, or the failures are not in a phase: a block that
/// never arrives, a buffer slot).
const verify::CheckResult* drawable_failure(const verify::Report& report);

/// The picture of `check` (drawable, see above) of `report`, a schedule of `ranks` ranks read
/// from `source`. `phase`: the whole offending phase when the caller has it (its other
/// transfers drawn grey), or null (only the conflicting ones are drawn, and the caption says
/// why). The conflicting arcs are `<path class="offending">`, the others `<path
/// class="transfer">`, the shared hop `<line class="shared">` and a shared node or port `<rect
/// class="shared">`. Deterministic.
std::string counterexample_svg(const verify::CheckResult& check, const verify::Report& report,
                               Rank ranks, const Phase* phase, std::string_view source);

}  // namespace phasecheck::reports
