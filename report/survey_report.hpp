#pragma once
/// What `survey` found (experiments/survey.hpp), for a person (text), a spreadsheet (CSV) or a
/// program (JSON; docs/formats.md). Deterministic.

#include <span>
#include <string>

#include "experiments/survey.hpp"
#include "report/table.hpp"

namespace phasecheck::reports {

/// One row per machine and algorithm: example, model, algorithm, verdict ("pass", "FAIL" or
/// "n/a"), failed, phases, C1, bound_C1, gap_C1, C2, bound_C2, gap_C2, claims ("kept" or
/// "BROKEN", or why the algorithm does not take the machine).
Table survey_table(const experiments::Survey& survey);

/// The formats `render_survey` takes: a table's.
inline constexpr std::span<const ReportFormat> survey_formats = table_formats;

/// Text: the table and the notes on its columns, and a line when a claim broke. JSON:
/// {"topologies", "rows", "broken"}. CSV: the table alone.
std::string render_survey(const experiments::Survey& survey, ReportFormat format);

}  // namespace phasecheck::reports
