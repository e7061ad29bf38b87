#pragma once
/// Renders `phasecheck lint msccl`'s and `lint mscclpp`'s findings (report.tool says which):
/// text for a person (the verdict, each finding as file:line or file: JSON path, then the size
/// coverage of every group), json for a program, JUnit for a CI tab (a test case per file; its
/// errors are the failure, its warnings the output). Deterministic.

#include <string>

#include "report/verify_report.hpp"
#include "verify/lint.hpp"

namespace phasecheck::reports {

/// The formats `render_lint` takes.
inline constexpr ReportFormat lint_formats[] = {ReportFormat::text, ReportFormat::json,
                                                ReportFormat::junit};

std::string render_lint(const verify::LintReport& report, ReportFormat format);

}  // namespace phasecheck::reports
