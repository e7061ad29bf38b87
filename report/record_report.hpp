#pragma once
/// `phasecheck record`'s answer: the table of cases (p x count x types x in place: pass, or the
/// first failed check), then every case that did not pass drawn as `verify` draws a report, with
/// the command that reruns it. Text for a person, JSON for a program (docs/formats.md), JUnit
/// for a CI tab (a testcase per case). Deterministic.

#include <string>

#include "record/sweep.hpp"
#include "report/format.hpp"

namespace phasecheck::reports {

inline constexpr ReportFormat record_formats[] = {ReportFormat::text, ReportFormat::json,
                                                  ReportFormat::junit};

std::string render_record(const record::Sweep& sweep, ReportFormat format);

}  // namespace phasecheck::reports
