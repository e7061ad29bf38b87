#include <doctest/doctest.h>

#include "core/error.hpp"
#include "helpers.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;
using testing::phase;

namespace {

const CheckResult& check(const Report& r, CheckId id) {
  for (const auto& c : r.checks)
    if (c.id == id) return c;
  FAIL("no check " << to_string(id));
  throw;
}

}  // namespace

TEST_CASE("verifier: counts C1 and C2 and tells direct from forwarding schedules") {
  const ScheduleHeader h = testing::header(FullyConnected(3, 2));
  Verifier v(h, h.topology);
  v.consume(phase("copies", {{0, 0}, {1, 1}, {2, 2}}));
  v.consume(phase("relay", {{0, 1, {{0, 1}, {0, 2}}}, {1, 2}, {2, 0}, {2, 1}, {1, 0}}));
  v.consume(phase("on", {{1, 2, {{0, 2}}}}));
  const Report r = v.finish();
  CHECK(r.verdict() == Verdict::pass);
  CHECK(r.counts == Counts{3, 2, 3, 9, 10, false});
  CHECK(r.bound_c1 == 1);
  CHECK(r.bound_c2 == 1);
}

TEST_CASE("verifier: an invariant is evaluated after every phase and names the phase") {
  const ScheduleHeader h = testing::header(FullyConnected(3, 1));
  Claims claims;
  claims.invariants.push_back({"after phase t, rank 0's message to rank t+1 is delivered",
                               [](const Boundary& at, const DataView& state) {
                                 const Rank d = static_cast<Rank>(at.phase + 1);
                                 if (d >= 3) return Finding::not_applicable();
                                 if (!state.delivered(0, d))
                                   return Finding::broken("m_0_" + std::to_string(d) +
                                                          " not delivered");
                                 return Finding::holds();
                               }});
  Verifier v(h, h.topology, claims);
  v.consume(phase("first", {{0, 1}, {1, 2}, {2, 0}}));
  v.consume(phase("second", {{1, 0}, {2, 1}}));  // 0 -> 2 forgotten
  const Report r = v.finish();
  const CheckResult& inv = check(r, CheckId::invariants);
  CHECK(inv.verdict == Verdict::fail);
  REQUIRE(inv.counterexample);
  CHECK(inv.counterexample->phase == 1);
  CHECK(inv.counterexample->label == "second");
  CHECK(inv.counterexample->explanation ==
        "after phase t, rank 0's message to rank t+1 is delivered fails after phase 1: m_0_2 not "
        "delivered");
}

namespace {

/// An invariant that speaks only after phase `at`, and holds there.
Invariant only_after(std::size_t at, std::string name) {
  return {std::move(name), [at](const Boundary& b, const DataView&) {
            return b.phase == at ? Finding::holds() : Finding::not_applicable();
          }};
}

/// A complete direct alltoall on 3 ranks, one phase.
Report verify_linear(Claims claims) {
  const ScheduleHeader h = testing::header(FullyConnected(3, 2));
  Verifier v(h, h.topology, std::move(claims));
  v.consume(phase("all", {{0, 1}, {0, 2}, {1, 0}, {1, 2}, {2, 0}, {2, 1}}));
  return v.finish();
}

}  // namespace

TEST_CASE("verifier: invariants that never apply are not evaluated, never pass") {
  SUBCASE("none declared") {
    const Report r = verify_linear({});
    const CheckResult& inv = check(r, CheckId::invariants);
    CHECK(inv.verdict == Verdict::not_evaluated);
    CHECK(inv.summary == "no invariant is known for 'hand-made'");
    CHECK(r.verdict() == Verdict::pass);  // the other checks passed; n/a does not change that
    CHECK_FALSE(r.passed(CheckId::invariants));
  }
  SUBCASE("declared, but no boundary is one where it applies") {
    Claims claims;
    claims.invariants.push_back(only_after(5, "after the sixth phase"));
    const Report r = verify_linear(std::move(claims));
    const CheckResult& inv = check(r, CheckId::invariants);
    CHECK(inv.verdict == Verdict::not_evaluated);
    CHECK(inv.summary == "the invariant applies at no phase boundary of this schedule");
  }
  SUBCASE("one applies, one does not: pass, naming the idle one") {
    Claims claims;
    claims.invariants.push_back(only_after(0, "after the first phase"));
    claims.invariants.push_back(only_after(5, "after the sixth phase"));
    const Report r = verify_linear(std::move(claims));
    const CheckResult& inv = check(r, CheckId::invariants);
    CHECK(inv.verdict == Verdict::pass);
    CHECK(inv.summary ==
          "1 invariant holds at the one phase boundary where it applies; not evaluated (applies "
          "nowhere): after the sixth phase");
  }
}

TEST_CASE("verifier: a report whose every check is not evaluated is not evaluated") {
  Report r;
  r.checks.push_back({CheckId::delivery, Verdict::not_evaluated, "n/a", {}});
  CHECK(r.verdict() == Verdict::not_evaluated);
  r.checks.push_back({CheckId::contention, Verdict::pass, "ok", {}});
  CHECK(r.verdict() == Verdict::pass);
  r.checks.push_back({CheckId::claims, Verdict::unknown, "timeout", {}});
  CHECK(r.verdict() == Verdict::unknown);
  r.checks.push_back({CheckId::bounds, Verdict::fail, "broken", {}});
  CHECK(r.verdict() == Verdict::fail);
  CHECK(to_string(Verdict::not_evaluated) == "not-evaluated");
}

TEST_CASE("verifier: a claimed phase count that is not met fails the claims check") {
  const ScheduleHeader h = testing::header(FullyConnected(2, 1));
  Claims claims;
  claims.phases = PhaseClaim::exactly(1, "a test");
  Verifier v(h, h.topology, claims);
  v.consume(phase("a", {{0, 1}}));
  v.consume(phase("b", {{1, 0}}));
  const Report r = v.finish();
  const CheckResult& result = check(r, CheckId::claims);
  CHECK(result.verdict == Verdict::fail);
  CHECK(result.summary == "2 phases; the algorithm claims 1 (a test)");
}

TEST_CASE("verifier: misuse and malformed phases throw InputError") {
  const ScheduleHeader h = testing::header(FullyConnected(3, 1));
  const Topology other = Ring(4);
  CHECK_THROWS_WITH_AS(Verifier(h, other), "the schedule has 3 ranks but ring(p=4) has 4",
                       InputError);
  Verifier v(h, h.topology);
  CHECK_THROWS_WITH_AS(v.consume(phase("a", {{0, 3}})),
                       "phase 0, transfer 0: rank 3 does not exist (ranks: 3)", InputError);
  CHECK_THROWS_WITH_AS(v.consume(phase("a", {{0, 1, {{0, kEveryRank}}}})),
                       "phase 0, transfer 0: block [0] is not a block of an alltoall over 3 ranks "
                       "([origin, destination])",
                       InputError);
  Phase empty;
  empty.add(0, 1, std::span<const Block>{});
  CHECK_THROWS_WITH_AS(v.consume(empty), "phase 0, transfer 0: carries no block", InputError);
}

TEST_CASE("verifier: a what-if model judges a schedule made for another machine") {
  const ScheduleHeader h = testing::header(FullyConnected(6, 1));
  const Topology tree = testing::fig1_tree();
  Verifier v(h, tree);
  // A perfect matching is fine on k-port but crosses s0 -> s1 twice on the tree.
  v.consume(phase("m", {{0, 3}, {3, 0}, {1, 4}, {4, 1}, {2, 5}, {5, 2}}));
  const Report r = v.finish();
  CHECK(r.topology == "tree(machines=6, switches=4)");
  CHECK(check(r, CheckId::contention).verdict == Verdict::fail);
}
