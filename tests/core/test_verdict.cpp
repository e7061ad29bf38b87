#include <doctest/doctest.h>

#include "core/verdict.hpp"

using namespace phasecheck;

namespace {

std::vector<CheckResult> checks(std::initializer_list<Verdict> verdicts) {
  std::vector<CheckResult> out;
  for (const Verdict v : verdicts) out.push_back({"check", v, "", std::nullopt});
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
