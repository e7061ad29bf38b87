#pragma once
/// Renders a verification report for a person (text), a program (json) or a CI system (JUnit XML).
/// Deterministic: the same report gives the same bytes.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "report/format.hpp"
#include "verify/cost.hpp"
#include "verify/machine_time.hpp"
#include "verify/report.hpp"

namespace phasecheck::reports {

/// A failed check as `verify` prints it: the explanation, then the offending phase with its
/// transfers, their routes and the shared link or port; "name: summary" when it has no
/// counterexample.
std::string draw_check(const verify::CheckResult& check, Collective collective);

/// The four-letter mark of a check in every text report: "pass", "FAIL", "????" (unknown), "n/a ".
std::string_view verdict_mark(verify::Verdict v);

/// One check as every JSON report writes it: {"name", "verdict", "summary", "counterexample"}
/// (null, or the offending phase with its transfers, routes and the shared resource).
nlohmann::ordered_json check_json(const verify::CheckResult& check);

/// A command's JSON report as bytes: indented by two, invalid UTF-8 in names replaced, a final
/// newline. Every `--report json` goes through here.
std::string json_text(const nlohmann::ordered_json& report);

/// `verify --report json`'s document as a value (docs/formats.md), for the reports that carry a
/// verification inside theirs (export's).
nlohmann::ordered_json report_json(const verify::Report& report, std::string_view source);

/// The formats `render` takes.
inline constexpr ReportFormat verify_formats[] = {ReportFormat::text, ReportFormat::json,
                                                  ReportFormat::junit};

/// `source` names the schedule (a file path, or "generated").
std::string render(const verify::Report& report, std::string_view source, ReportFormat format);

/// The report of a run that stopped before it had a result (bad input, bad usage): `format` is
/// json ({"verdict": "error", "command", "source", "error"}), junit (one testcase holding an
/// <error>, so a CI tab shows the failure), markdown (a heading and the message), or text or csv
/// (the message alone). Deterministic; docs/formats.md.
std::string render_error(ReportFormat format, std::string_view command, std::string_view source,
                         std::string_view message);

/// The formats `render_cost` takes.
inline constexpr ReportFormat cost_formats[] = {ReportFormat::text, ReportFormat::json};

/// The cost rows of `phasecheck cost` (text or json) for the verified `report`.
std::string render_cost(const verify::CostReport& cost, const verify::Report& report,
                        std::string_view source, ReportFormat format);

/// What `cost` found: the linear model's rows (with --tw), the machine's (when its links have
/// bandwidths), or both; at least one.
struct CostParts {
  const verify::CostReport* linear = nullptr;
  const verify::MachineCost* machine = nullptr;
  /// No row of either failed.
  bool consistent() const {
    return (!linear || linear->consistent()) &&
           (!machine || machine->verdict != verify::Verdict::fail);
  }
};

/// Text: the linear model's table, then the machine's (its time, the lower bound in seconds and
/// its cut, the gap ratio, the links whose time is not counted). JSON: the linear keys ("model",
/// "seconds", "rows"; null, null and [] without --tw) and, on a machine with bandwidths,
/// "machine" (docs/formats.md).
std::string render_cost(const CostParts& parts, const verify::Report& report,
                        std::string_view source, ReportFormat format);

}  // namespace phasecheck::reports
