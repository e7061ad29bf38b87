#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "report/verify_report.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using testing::phase;

namespace {

verify::Report contended_report() {
  const ScheduleHeader h = testing::header(testing::fig1_tree(), Collective::alltoall, "mine");
  verify::Verifier v(h, h.topology);
  v.consume(phase("p0", {{0, 3}, {1, 4}, {3, 0}}));
  return v.finish();
}

}  // namespace

TEST_CASE("text report: verdict, then each check, then the counterexample drawn as its phase") {
  CHECK(reports::render(contended_report(), "s.json", reports::ReportFormat::text) ==
        R"(FAIL  mine (alltoall) on tree(machines=6, switches=4): 3 of 4 checks failed, 1 not evaluated  [s.json]
  FAIL  delivery    27 of 30 deliveries never happen
  FAIL  contention  contention in 1 of 1 phases on tree(machines=6, switches=4) (2 conflicts)
  n/a   invariants  no invariant is known for 'mine'
  FAIL  bounds      phases with communication = 1 (lower bound 9, below it)
  1 phase, 3 transfers, C1 = 1, C2 = 1 (direct)
  lower bound 9 on C2: link s1 - s0 splits the machines 3 | 3: 9 blocks must cross it each way, one transfer per phase (Faraj-Yuan bottleneck load)

delivery: block [0,1] never reaches rank 1
  shared: rank 1

contention: transfers 0 -> 3 and 1 -> 4 both use the directed link s1 -> s3 in phase 0
  phase 0 "p0" (3 transfers; the 2 involved):
    0 -> 3   path n0 > s0 > s1 > s3 > n3
    1 -> 4   path n1 > s0 > s1 > s3 > n4
  shared: link s1 -> s3

bounds: C1 = 1 is below the lower bound 9, which every valid schedule on this model meets: some phase overloads a link or port, or some block is never delivered
)");
}

TEST_CASE("json report: the documented fields") {
  const auto j =
      nlohmann::json::parse(reports::render(contended_report(), "s.json", reports::ReportFormat::json));
  CHECK(j["verdict"] == "fail");
  CHECK(j["phases"] == 1);
  CHECK(j["lower_bound"]["C1"] == 9);
  CHECK(j["gap"]["C1"].is_null());
  REQUIRE(j["checks"].size() == 4);
  CHECK(j["checks"][1]["name"] == "contention");
  CHECK(j["checks"][2]["name"] == "invariants");
  CHECK(j["checks"][2]["verdict"] == "not-evaluated");
  CHECK(j["checks"][1]["counterexample"]["resource"] == "link s1 -> s3");
  CHECK(j["checks"][1]["counterexample"]["transfers"][0]["route"] ==
        nlohmann::json::array({"n0", "s0", "s1", "s3", "n3"}));
}

TEST_CASE("junit report: one testcase per check, failures with their counterexample") {
  const std::string xml = reports::render(contended_report(), "a<b>.json", reports::ReportFormat::junit);
  CHECK(
      xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"phasecheck\" "
                      "tests=\"4\" failures=\"3\">"));
  CHECK(xml.find("failures=\"3\" errors=\"0\" skipped=\"1\">") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"phasecheck.mine\" name=\"invariants on tree(machines=6, "
                 "switches=4)\">\n      <skipped message=\"no invariant is known for &apos;mine&apos;\"/>") !=
        std::string::npos);
  CHECK(xml.find("<testsuite name=\"a&lt;b&gt;.json\"") != std::string::npos);
  CHECK(xml.find("<testcase classname=\"phasecheck.mine\" name=\"contention on tree(machines=6, "
                 "switches=4)\">") != std::string::npos);
  CHECK(xml.find("shared: link s1 -&gt; s3") != std::string::npos);
  CHECK(xml.ends_with("</testsuites>\n"));
}

TEST_CASE("reports: a check not evaluated is shown so in every format, never as pass") {
  verify::Report r;
  r.algorithm = "mine";
  r.collective = Collective::alltoall;
  r.topology = "ring(p=4)";
  r.checks.push_back({CheckId::invariants, verify::Verdict::not_evaluated, "none declared", {}});
  REQUIRE(r.verdict() == verify::Verdict::not_evaluated);
  const std::string text = reports::render(r, "s.json", reports::ReportFormat::text);
  CHECK(text.starts_with("NOT EVALUATED  mine (alltoall) on ring(p=4): 0 checks pass, 1 not "
                         "evaluated  [s.json]\n  n/a   invariants  none declared\n"));
  const auto j = nlohmann::json::parse(reports::render(r, "s.json", reports::ReportFormat::json));
  CHECK(j["verdict"] == "not-evaluated");
  CHECK(j["checks"][0]["verdict"] == "not-evaluated");
  const std::string xml = reports::render(r, "s.json", reports::ReportFormat::junit);
  CHECK(xml.find("<skipped message=\"none declared\"/>") != std::string::npos);
  CHECK(xml.find("<failure") == std::string::npos);
  CHECK(xml.find("skipped=\"1\"") != std::string::npos);
}
