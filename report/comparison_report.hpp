#pragma once
/// `phasecheck diff` and `phasecheck gate` as a person (text), a pull-request comment (markdown),
/// a program (json) or a CI test tab (junit) reads them (docs/ci.md). Deterministic.

#include <string>

#include "ci/comparison.hpp"
#include "ci/gate.hpp"
#include "report/format.hpp"

namespace phasecheck::reports {

/// The formats `render_comparison` and `render_gate` take.
inline constexpr ReportFormat comparison_formats[] = {ReportFormat::text, ReportFormat::json,
                                                      ReportFormat::markdown, ReportFormat::junit};

/// One comparison (diff): format is text, markdown, json or junit.
std::string render_comparison(const ci::Comparison& comparison, ReportFormat format);

/// A whole gate run: the verdict, a row per case, then each failing case's comparison.
std::string render_gate(const ci::GateResult& gate, ReportFormat format);

}  // namespace phasecheck::reports
