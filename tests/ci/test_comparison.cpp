#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "ci/comparison.hpp"
#include "helpers.hpp"
#include "report/comparison_report.hpp"

using namespace phasecheck;
using verify::Verdict;

namespace {

/// A side with the given checks and figures, as judge() would leave it for a verified table.
ci::Side side(std::string source, std::vector<std::pair<CheckId, Verdict>> checks,
              io::Figures figures, std::uint64_t bound = 9) {
  ci::Side s;
  s.source = std::move(source);
  verify::Report r;
  for (auto& [id, verdict] : checks)
    r.checks.push_back({id, verdict, std::string(to_string(id)) + " summary"});
  r.counts.phases = figures.phases;
  r.counts.c1 = figures.c1;
  r.counts.c2 = figures.c2;
  r.counts.direct = false;
  r.bounds = {{verify::Metric::c1, bound, "c1", false}, {verify::Metric::c2, bound, "c2", false}};
  r.bound_c1 = r.bound_c2 = bound;
  s.known = verify::known_bounds(r);
  s.gap = verify::gap(r);
  s.report = std::move(r);
  s.figures = figures;
  s.bound_c1 = s.bound_c2 = bound;
  return s;
}

const std::vector<std::pair<CheckId, Verdict>> kAllPass = {{CheckId::delivery, Verdict::pass},
                                                           {CheckId::contention, Verdict::pass},
                                                           {CheckId::invariants, Verdict::pass}};

std::vector<std::string> keys(const ci::Comparison& c) {
  std::vector<std::string> k;
  for (const auto& f : c.regressions) k.push_back(f.key + (f.allowed ? " (allowed)" : ""));
  return k;
}

}  // namespace

TEST_CASE("the same figures and checks: no regression") {
  const auto c = ci::compare(side("a", kAllPass, {9, 9, 9}), side("b", kAllPass, {9, 9, 9}), {});
  CHECK(c.passed());
  CHECK(c.regressions.empty());
  CHECK(c.improvements.empty());
}

TEST_CASE("more phases, C1, C2 and gap are regressions --allow may lift, fewer are better") {
  const auto worse =
      ci::compare(side("a", kAllPass, {9, 9, 9}), side("b", kAllPass, {10, 10, 9}), {});
  CHECK_FALSE(worse.passed());
  CHECK(keys(worse) == std::vector<std::string>{"more-phases", "larger-c1", "larger-gap"});
  const auto allowed = ci::compare(side("a", kAllPass, {9, 9, 9}), side("b", kAllPass, {10, 10, 9}),
                                   {"more-phases", "larger-c1", "larger-gap"});
  CHECK(allowed.passed());
  const auto better =
      ci::compare(side("a", kAllPass, {10, 10, 9}), side("b", kAllPass, {9, 9, 9}), {});
  CHECK(better.passed());
  CHECK(better.improvements.size() == 3);
}

TEST_CASE("a check that fails now is a regression no --allow lifts") {
  auto after = kAllPass;
  after[1].second = Verdict::fail;
  const auto c = ci::compare(side("a", kAllPass, {9, 9, 9}), side("b", after, {9, 9, 9}),
                             {"check-failed", "check-dropped"});
  CHECK_FALSE(c.passed());
  CHECK(keys(c) == std::vector<std::string>{"check-failed"});
  REQUIRE(c.new_failures.size() == 1);
  CHECK(c.new_failures[0].id == CheckId::contention);
}

TEST_CASE("a check that passed and is not evaluated, unknown or gone now is check-dropped") {
  for (const Verdict now : {Verdict::not_evaluated, Verdict::unknown}) {
    auto after = kAllPass;
    after[2].second = now;
    const auto c = ci::compare(side("a", kAllPass, {9, 9, 9}), side("b", after, {9, 9, 9}), {});
    CHECK_FALSE(c.passed());
    REQUIRE(keys(c) == std::vector<std::string>{"check-dropped"});
    CHECK(c.regressions[0].text.find("invariants: passed before and is") == 0);
  }
  auto gone = kAllPass;
  gone.pop_back();
  const auto c =
      ci::compare(side("a", kAllPass, {9, 9, 9}), side("b", gone, {9, 9, 9}), {"check-dropped"});
  CHECK(c.passed());
  CHECK(keys(c) == std::vector<std::string>{"check-dropped (allowed)"});
  CHECK(c.regressions[0].text == "invariants: passed before and is not checked after");
}

TEST_CASE("a check not evaluated before and after is no regression") {
  auto both = kAllPass;
  both[2].second = Verdict::not_evaluated;
  const auto c = ci::compare(side("a", both, {9, 9, 9}), side("b", both, {9, 9, 9}), {});
  CHECK(c.passed());
}

TEST_CASE("a failing baseline is no standard for the figures, what the change fixed is listed") {
  auto broken = kAllPass;
  broken[1].second = Verdict::fail;
  const auto c = ci::compare(side("a", broken, {9, 9, 9}), side("b", kAllPass, {12, 12, 12}), {});
  CHECK(c.passed());
  CHECK(c.improvements == std::vector<std::string>{"contention fails before and passes after"});
}

TEST_CASE("allowable regressions are every key but check-failed") {
  CHECK(ci::allowable_regressions() == std::vector<std::string>{"check-dropped", "more-phases",
                                                                "larger-c1", "larger-c2",
                                                                "larger-gap"});
}

TEST_CASE("the comparison renders in every format, the verdict first") {
  auto after = kAllPass;
  after[2].second = Verdict::not_evaluated;
  const auto c =
      ci::compare(side("a.json", kAllPass, {9, 9, 9}), side("b.json", after, {9, 9, 9}), {});
  CHECK(reports::render_comparison(c, reports::ReportFormat::text)
            .rfind("FAIL  a.json -> b.json: 1 regression\n", 0) == 0);
  // Markdown: the file names as text (core/escape.hpp), '.' and '>' as references.
  CHECK(reports::render_comparison(c, reports::ReportFormat::markdown)
            .rfind("### ❌ FAIL  a&#46;json -&#62; b&#46;json", 0) == 0);
  const auto json =
      nlohmann::json::parse(reports::render_comparison(c, reports::ReportFormat::json));
  CHECK(json["verdict"] == "fail");
  CHECK(json["regressions"][0]["kind"] == "check-dropped");
  CHECK(json["checks"]["invariants"] ==
        nlohmann::json{{"before", "pass"}, {"after", "not-evaluated"}});
  const std::string junit = reports::render_comparison(c, reports::ReportFormat::junit);
  CHECK(junit.find("name=\"check-dropped\">\n      <failure message=\"invariants: passed before") !=
        std::string::npos);
}

TEST_CASE("a gap is compared only where verify::gap defines it on both sides") {
  // Below the bound (8 < 9) the baseline is broken: its gap is undefined, not 0, so a change to
  // C1 = 12 is no larger-gap (the larger C1 still is a regression).
  const auto below = ci::compare(side("a", kAllPass, {8, 8, 9}), side("b", kAllPass, {12, 12, 9}), {});
  CHECK(below.before.gap.c1 == std::nullopt);
  CHECK(below.after.gap.c1 == 3u);
  CHECK(keys(below) == std::vector<std::string>{"more-phases", "larger-c1"});
  const std::string text = reports::render_comparison(below, reports::ReportFormat::text);
  INFO(text);
  CHECK(text.find("gap C1 / C2          - / 0   3 / 0\n") != std::string::npos);
  // A baseline given by its figures takes the after side's bounds.
  const ci::Side figures = ci::baseline_figures({9, 10, 11}, below.after);
  CHECK(figures.gap == verify::Gap{1, 2});
}
