#pragma once
/// `phasecheck sweep`'s answer. Text for a person: a failing instance is drawn as `verify` draws
/// it, with its replay commands, as soon as it is known (sweep_row_text); at the end, per value of
/// the ranged parameters, the p's that pass, fail, are refused and are at the lower bound on C1
/// and on C2, in compressed ranges ("2..17, 19, 32..40"), and the verdict. JSON and CSV: one row
/// per instance, with its figures; JUnit: one testcase per instance (refused: skipped).
/// Deterministic: the rows come in instance order whatever the threads did.

#include <string>

#include "experiments/sweep.hpp"
#include "report/format.hpp"

namespace phasecheck::reports {

inline constexpr ReportFormat sweep_formats[] = {ReportFormat::text, ReportFormat::json,
                                                 ReportFormat::junit, ReportFormat::csv};

/// Text: what to print for `row` as it arrives: the drawing of a row that did not pass, else "".
std::string sweep_row_text(const experiments::Sweep& sweep, const experiments::SweepRow& row);

/// The whole answer after the last row (text: the summary and the verdict; the rows' drawings
/// were printed by sweep_row_text).
std::string render_sweep(const experiments::Sweep& sweep, ReportFormat format);

/// "2..17, 19, 32..40" for sorted distinct rank counts; "-" for none.
std::string rank_ranges(const std::vector<Rank>& ranks);

}  // namespace phasecheck::reports
