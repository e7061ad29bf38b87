#pragma once
/// A fuzz campaign (properties/fuzz.hpp) for a person (text, a line per algorithm as it finishes)
/// and for a program (one JSON document at the end; docs/formats.md). Deterministic but for the
/// seconds.

#include <string>
#include <vector>

#include "properties/fuzz.hpp"
#include "report/format.hpp"
#include "verify/report.hpp"

namespace phasecheck::reports {

/// The formats of a campaign's report: text (`fuzz_outcome_text`, `fuzz_verdict_text`) and json
/// (`fuzz_json`).
inline constexpr ReportFormat fuzz_formats[] = {ReportFormat::text, ReportFormat::json};

/// "pass  shift: 200 cases in 0.31 s (645/s)", "gave up  ...", or the failure with its files,
/// the replay commands and the case's report.
std::string fuzz_outcome_text(const properties::FuzzOutcome& outcome);

/// The closing line: only when nothing was evaluated (every algorithm gave up); else "".
std::string fuzz_verdict_text(Verdict verdict);

/// `fuzz --report json`: {"command": "fuzz", "verdict", "seed", "cases", "seconds", "max_size",
/// "results": [{"name", "verdict", "cases", ...}]}.
std::string fuzz_json(const properties::FuzzOptions& options, Verdict verdict,
                      const std::vector<properties::FuzzOutcome>& outcomes);

/// A failing case's report.txt: the verifier's text report.
std::string fuzz_case_report(const verify::Report& report);

}  // namespace phasecheck::reports
