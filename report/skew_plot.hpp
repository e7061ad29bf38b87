#pragma once
/// `whatif alltoallv --svg`: cost / load bound (y) against the Zipf skew of the MoE matrices (x),
/// one line per algorithm and rank count (colour: the algorithm, dash: the rank count), the bound
/// (ratio 1) dashed, as SVG. Deterministic: the same answer gives the same bytes.

#include <string>

#include "experiments/alltoallv_question.hpp"

namespace phasecheck::reports {

/// The plot of `answer`'s curves over its skews (a family's answer: skews not empty); a point
/// without a figure (NaN: failed or n/a) leaves a gap, and a line without any is left out. `title`
/// above, through the XML escaper.
std::string cost_ratio_svg(const std::string& title, const experiments::AlltoallvAnswer& answer);

}  // namespace phasecheck::reports
