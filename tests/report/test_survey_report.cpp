// report/survey_report.hpp: the survey renderer on canned rows.

#include <doctest/doctest.h>

#include <string>

#include "report/survey_report.hpp"

using namespace phasecheck;

namespace {

experiments::Survey canned(bool broken) {
  experiments::Survey s;
  s.topologies = {"m.json"};
  experiments::SurveyRow ok{"m", "ring(p=4)", "ring"};
  ok.phases = 3;
  ok.c1 = 3;
  ok.bound_c1 = 2;
  ok.gap_c1 = 1;
  ok.c2 = 4;
  ok.bound_c2 = 4;
  ok.gap_c2 = 0;
  ok.kept = !broken;
  ok.contention_free_claimed = true;
  experiments::SurveyRow na{"m", "ring(p=4)", "mesh"};
  na.not_applicable = "mesh needs a mesh";
  experiments::SurveyRow failed{"m", "ring(p=4)", "linear"};
  failed.failed = "contention,bounds";
  failed.phases = failed.c1 = failed.c2 = 1;
  failed.bound_c1 = failed.bound_c2 = 2;
  s.rows = {ok, na, failed};
  s.broken = broken;
  return s;
}

}  // namespace

TEST_CASE("survey_table: verdicts, gaps only where they apply, why an algorithm is n/a") {
  CHECK(reports::survey_table(canned(false)).csv() ==
        "example,model,algorithm,verdict,failed,phases,C1,bound_C1,gap_C1,C2,bound_C2,gap_C2,"
        "claims\r\n"
        "m,ring(p=4),ring,pass,,3,3,2,1,4,4,0,kept (contention-free claimed)\r\n"
        "m,ring(p=4),mesh,n/a,,,,,,,,,mesh needs a mesh\r\n"
        "m,ring(p=4),linear,FAIL,\"contention,bounds\",1,1,2,,1,2,,kept\r\n");
}

TEST_CASE("render_survey: the notes in text, the BROKEN line only when a claim broke") {
  const std::string fine = reports::render_survey(canned(false), reports::ReportFormat::text);
  CHECK(fine.find("gap = value - bound") != std::string::npos);
  CHECK(fine.find("Some algorithm broke") == std::string::npos);
  const std::string broken = reports::render_survey(canned(true), reports::ReportFormat::text);
  CHECK(broken.find("BROKEN (contention-free claimed)") != std::string::npos);
  CHECK(broken.ends_with("\nSome algorithm broke one of its claims (marked BROKEN).\n"));
  const auto j = nlohmann::ordered_json::parse(
      reports::render_survey(canned(true), reports::ReportFormat::json));
  CHECK(j["broken"] == true);
  CHECK(j["topologies"] == nlohmann::ordered_json{"m.json"});
  CHECK(j["rows"].size() == 3);
  CHECK(j["rows"][1]["phases"].is_null());
}
