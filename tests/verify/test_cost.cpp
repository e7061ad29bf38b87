#include <doctest/doctest.h>

#include "verify/cost.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;

namespace {

/// A report with C1 = C2 = c against bounds of 4, delivery and contention as given.
Report report(std::uint64_t c, Verdict delivery, Verdict contention) {
  Report r;
  r.topology = "ring(p=5)";
  r.counts.c1 = r.counts.c2 = r.counts.phases = c;
  r.bound_c1 = r.bound_c2 = 4;
  r.checks = {{CheckId::delivery, delivery}, {CheckId::contention, contention}};
  return r;
}

const CostRow& model_bound(const CostReport& c) {
  REQUIRE(!c.rows.empty());
  REQUIRE(c.rows.back().kind == CostRow::Kind::model_bound);
  return c.rows.back();
}

}  // namespace

TEST_CASE("cost: the model's bound is kept, beaten, or not evaluated for an invalid schedule") {
  const LinearCost model{1, 0, 1};  // T = C1
  CHECK(model_bound(cost(report(5, Verdict::pass, Verdict::pass), {}, model)).verdict ==
        Verdict::pass);
  const CostReport beaten = cost(report(3, Verdict::pass, Verdict::pass), {}, model);
  CHECK(model_bound(beaten).verdict == Verdict::fail);
  CHECK_FALSE(beaten.consistent());
  // Bounds are for schedules that deliver without contention: below it, an invalid schedule says
  // nothing new. The row is not evaluated (reports print n/a), and never a pass.
  for (const auto& [delivery, contention] :
       {std::pair{Verdict::fail, Verdict::pass}, std::pair{Verdict::pass, Verdict::fail},
        std::pair{Verdict::pass, Verdict::not_evaluated}}) {
    const CostReport invalid = cost(report(3, delivery, contention), {}, model);
    CHECK(model_bound(invalid).verdict == Verdict::not_evaluated);
    CHECK(invalid.consistent());
  }
  CHECK(cost(report(3, Verdict::pass, Verdict::pass), {}, model).rows.front().verdict ==
        Verdict::pass);  // the schedule's own row
}
