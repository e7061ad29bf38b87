#include "verify/gap.hpp"

namespace phasecheck::verify {

std::optional<std::uint64_t> gap(std::uint64_t value, std::optional<std::uint64_t> bound) {
  if (!bound || value < *bound) return std::nullopt;
  return value - *bound;
}

KnownBounds known_bounds(const Report& report) {
  bool c1 = false, c2 = false;
  for (const Bound& b : report.bounds) {
    if (b.direct_only && !report.counts.direct) continue;
    (b.metric == Metric::c1 ? c1 : c2) = true;
  }
  if (report.counts.direct) c1 = c2 = c1 || c2;  // best_bounds gives each metric the larger
  KnownBounds known;
  if (c1) known.c1 = report.bound_c1;
  if (c2) known.c2 = report.bound_c2;
  return known;
}

Gap gap(std::uint64_t c1, std::uint64_t c2, const KnownBounds& bounds) {
  return {gap(c1, bounds.c1), gap(c2, bounds.c2)};
}

Gap gap(const Report& report, const KnownBounds& bounds) {
  if (!report.passed(CheckId::delivery) || !report.passed(CheckId::contention)) return {};
  return gap(report.counts.c1, report.counts.c2, bounds);
}

Gap gap(const Report& report) { return gap(report, known_bounds(report)); }

}  // namespace phasecheck::verify
