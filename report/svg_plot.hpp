#pragma once
/// The experiment's plot: aggregate throughput (MB/s) against message size, one line per
/// contender and the peak bound dashed, as SVG. Deterministic.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace phasecheck::reports {

/// One line per series (its label, a point per size; NaN leaves a gap), and `peak` (MB/s) as a
/// dashed line; `title` above.
std::string throughput_svg(const std::string& title, const std::vector<std::uint64_t>& sizes,
                           const std::vector<std::pair<std::string, std::vector<double>>>& series,
                           double peak);

}  // namespace phasecheck::reports
