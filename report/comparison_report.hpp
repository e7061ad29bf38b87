#pragma once
/// `phasecheck diff` and `phasecheck gate` as a person (text), a pull-request comment (markdown),
/// a program (json) or a CI test tab (junit) reads them (docs/ci.md). Deterministic.

#include <string>
#include <string_view>

#include "ci/comparison.hpp"
#include "ci/gate.hpp"

namespace phasecheck::reports {

/// One comparison (diff): format is text, markdown, json or junit.
std::string render_comparison(const ci::Comparison& comparison, std::string_view format);

/// A whole gate run: the verdict, a row per case, then each failing case's comparison.
std::string render_gate(const ci::GateResult& gate, std::string_view format);

}  // namespace phasecheck::reports
