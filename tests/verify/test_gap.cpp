#include <doctest/doctest.h>

#include <tuple>

#include "verify/bounds.hpp"
#include "verify/gap.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;

namespace {

/// A report with C1 = c1, C2 = c2, the given bounds, and delivery and contention as given.
Report report(std::uint64_t c1, std::uint64_t c2, std::vector<Bound> bounds, bool direct = false,
              Verdict delivery = Verdict::pass, Verdict contention = Verdict::pass) {
  Report r;
  r.counts.c1 = r.counts.phases = c1;
  r.counts.c2 = c2;
  r.counts.direct = direct;
  r.bounds = std::move(bounds);
  std::tie(r.bound_c1, r.bound_c2) = best_bounds(r.bounds, direct);
  r.checks = {{CheckId::delivery, delivery}, {CheckId::contention, contention}};
  return r;
}

const Bound c1_bound{Metric::c1, 3, "c1", false};
const Bound c2_bound{Metric::c2, 7, "c2", false};

}  // namespace

TEST_CASE("gap: value - bound at or above a known bound, undefined below it or without one") {
  CHECK(gap(5, 3) == 2u);
  CHECK(gap(3, 3) == 0u);
  CHECK(gap(0, 0) == 0u);  // one rank: the bound 0 is known and met
  CHECK(gap(2, 3) == std::nullopt);  // below a proven bound: broken, not 0
  CHECK(gap(5, std::nullopt) == std::nullopt);  // no bound: unknown, not the value
}

TEST_CASE("gap of a report: each metric against its own bound") {
  CHECK(gap(report(4, 9, {c1_bound, c2_bound})) == Gap{1, 2});
  CHECK(gap(report(2, 9, {c1_bound, c2_bound})) == Gap{std::nullopt, 2});
  // No bound on C1 applies to this forwarding schedule: its C1 gap is unknown.
  CHECK(known_bounds(report(4, 9, {c2_bound})) == KnownBounds{std::nullopt, 7});
  CHECK(gap(report(4, 9, {c2_bound})) == Gap{std::nullopt, 2});
  // A direct schedule's C1 and C2 share every bound (C1 == C2).
  CHECK(gap(report(9, 9, {c2_bound}, true)) == Gap{2, 2});
  // A direct-only bound does not hold for a forwarding schedule.
  const Bound direct_only{Metric::c1, 3, "direct", true};
  CHECK(known_bounds(report(4, 9, {direct_only})) == KnownBounds{});
}

TEST_CASE("gap of a report: undefined unless delivery and contention pass") {
  CHECK(gap(report(4, 9, {c1_bound, c2_bound}, false, Verdict::fail)) == Gap{});
  CHECK(gap(report(4, 9, {c1_bound, c2_bound}, false, Verdict::pass, Verdict::fail)) == Gap{});
  CHECK(gap(report(4, 9, {c1_bound, c2_bound}, false, Verdict::pass, Verdict::not_evaluated)) ==
        Gap{});
  // The same report against other bounds keeps the validity rule.
  CHECK(gap(report(4, 9, {}), KnownBounds{4, 9}) == Gap{0, 0});
  CHECK(gap(report(4, 9, {}, false, Verdict::unknown), KnownBounds{4, 9}) == Gap{});
}
