// report/congestion_report.hpp: the congestion renderer on a canned measurement.

#include <doctest/doctest.h>

#include <string>

#include "report/congestion_report.hpp"

using namespace phasecheck;

namespace {

verify::CongestionSummary canned(bool delivered) {
  verify::CongestionSummary s;
  s.report.algorithm = "shift";
  s.report.collective = Collective::alltoall;
  s.report.topology = "ring(p=4)";
  s.delivered = delivered;
  s.phases = 2;
  s.sum_of_max = 3;
  s.lower_bound = 2;
  s.argument = "a reason";
  s.mean_of_max = 1.5;
  s.peak = 2;
  s.loads = {{2, 0.75, 1}, {0, 0, 0}};
  return s;
}

}  // namespace

TEST_CASE("render_congestion text: the sum against its bound, the argument, the phases table") {
  const Topology ring = Ring(4);
  CHECK(
      reports::render_congestion(canned(true), ring, "s.json", true, reports::ReportFormat::text) ==
      "congestion of shift (alltoall) on ring(p=4)  [s.json]\n"
      "  2 phases; sum over phases of the busiest link's load: 3 blocks (lower bound 2); mean "
      "per phase 1.5, peak 2\n"
      "  lower bound 2: a reason\n"
      "  delivery: every block exactly once\n"
      "\n"
      "  phase  max load  mean load  busiest link\n"
      "  0      2         0.75       " +
          link_name(ring, 1) +
          "\n"
          "  1      0         0          -\n");
}

TEST_CASE("render_congestion: INVALID when delivery fails, no argument line without one") {
  verify::CongestionSummary s = canned(false);
  s.argument.clear();
  const std::string text =
      reports::render_congestion(s, Ring(4), "s.json", false, reports::ReportFormat::text);
  CHECK(text.starts_with("INVALID  congestion of shift"));
  CHECK(text.find("lower bound 2:") == std::string::npos);
  CHECK(text.ends_with("  delivery: FAILS (phasecheck verify)\n"));
}

TEST_CASE("render_congestion: JSON per_phase only with phases, CSV is the table") {
  const Topology ring = Ring(4);
  const auto without = nlohmann::ordered_json::parse(
      reports::render_congestion(canned(true), ring, "s.json", false, reports::ReportFormat::json));
  CHECK(without["per_phase"].is_null());
  CHECK(without["sum_of_max"] ==
        nlohmann::ordered_json{{"value", 3}, {"lower_bound", 2}, {"argument", "a reason"}});
  const auto with = nlohmann::ordered_json::parse(
      reports::render_congestion(canned(true), ring, "s.json", true, reports::ReportFormat::json));
  CHECK(with["per_phase"].size() == 2);
  CHECK(with["per_phase"][1]["busiest_link"].is_null());
  CHECK(
      reports::render_congestion(canned(true), ring, "s.json", true, reports::ReportFormat::csv) ==
      "phase,max_load,mean_load,busiest_link\r\n0,2,0.75," + link_name(ring, 1) + "\r\n1,0,0,\r\n");
}
