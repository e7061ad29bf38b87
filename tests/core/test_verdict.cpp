#include <doctest/doctest.h>

#include <set>
#include <type_traits>

#include "core/verdict.hpp"

using namespace phasecheck;

namespace {

std::vector<CheckResult> checks(std::initializer_list<Verdict> verdicts) {
  std::vector<CheckResult> out;
  for (const Verdict v : verdicts) out.push_back({CheckId::delivery, v});
  return out;
}

}  // namespace

TEST_CASE("tally: a check that did not run is never counted as passed") {
  CHECK(tally(checks({Verdict::pass, Verdict::pass})) == "all 2 checks pass");
  CHECK(tally(checks({Verdict::pass, Verdict::not_evaluated})) == "1 check pass, 1 not evaluated");
  CHECK(tally(checks({Verdict::not_evaluated})) == "0 checks pass, 1 not evaluated");
  CHECK(tally(checks({Verdict::pass, Verdict::unknown})) == "1 check pass, 1 undecided");
  CHECK(tally(checks({Verdict::pass, Verdict::fail, Verdict::not_evaluated})) ==
        "1 of 3 checks failed, 1 not evaluated");
}

// A check cannot pass by being left unset: there is no CheckResult{} to leave.
static_assert(!std::is_default_constructible_v<CheckResult>);

TEST_CASE("CheckId: reports name each check as they always did, every name once") {
  const std::vector<std::pair<CheckId, std::string_view>> names = {
      {CheckId::execution, "execution"},   {CheckId::delivery, "delivery"},
      {CheckId::placement, "placement"},   {CheckId::contention, "contention"},
      {CheckId::invariants, "invariants"}, {CheckId::claims, "claims"},
      {CheckId::requests, "requests"},     {CheckId::bounds, "bounds"},
      {CheckId::replay, "replay"},         {CheckId::synchronization, "synchronization"},
      {CheckId::witness, "witness"},
      {CheckId::deadlock, "deadlock"},
      {CheckId::lifetime, "lifetime"}};
  std::set<std::string_view> seen;
  for (const auto& [id, name] : names) {
    CHECK(to_string(id) == name);
    CHECK(CheckResult(id, Verdict::fail).name() == name);
    CHECK(seen.insert(to_string(id)).second);
  }
  const CheckResult c(CheckId::contention, Verdict::fail, "why");
  CHECK(c.verdict == Verdict::fail);  // the verdict given, never a default
  CHECK(c.summary == "why");
  CHECK_FALSE(c.counterexample);
}
