// verify/congestion_check.hpp: the verifier and the congestion meter streamed together, and the
// C2 bound next to the sum of the busiest links' loads.

#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "verify/congestion_check.hpp"

using namespace phasecheck;

namespace {

std::string example(const std::string& name) {
  return (std::filesystem::path(PHASECHECK_SOURCE_DIR) / "examples" / name).string();
}

verify::CongestionSummary measure(const std::string& schedule, bool keep_phases) {
  ScheduleHeader header;
  std::optional<verify::CongestionCheck> check;
  pipeline::read_schedule_file(
      example(schedule),
      [&](const ScheduleHeader& h) {
        header = h;
        check.emplace(header, header.topology, Claims{}, keep_phases);
      },
      [&](const Phase& p) { check->consume(p); });
  return check->finish();
}

}  // namespace

TEST_CASE("CongestionCheck: linear on Figure 1 loads the bottleneck with its whole bound") {
  const verify::CongestionSummary s = measure("faraj-yuan-fig1/linear.json", true);
  CHECK(s.delivered);
  CHECK(s.report.verdict() == verify::Verdict::fail);  // contention, but every block delivered
  CHECK(s.phases == 1);
  CHECK(s.sum_of_max == 9);
  CHECK(s.lower_bound == 9);
  CHECK(s.peak == 9);
  CHECK(s.mean_of_max == 9);
  CHECK(s.argument ==
        "link s1 - s0 splits the machines 3 | 3: 9 blocks must cross it each way, one transfer "
        "per phase (Faraj-Yuan bottleneck load)");
  REQUIRE(s.loads.size() == 1);
  CHECK(s.loads[0].max == 9);
}

TEST_CASE("CongestionCheck: the per-phase loads are kept only when asked") {
  const verify::CongestionSummary s = measure("faraj-yuan-fig1/faraj-yuan.json", false);
  CHECK(s.delivered);
  CHECK(s.phases == 9);
  CHECK(s.loads.empty());
  CHECK(s.sum_of_max >= s.lower_bound);
}

TEST_CASE("CongestionCheck: a model that does not route is bad input") {
  const Schedule table = pipeline::read_schedule_file(example("fully-connected-5/shift.json"));
  CHECK_THROWS_WITH_AS(verify::CongestionCheck(table.header, table.header.topology, {}, false),
                       doctest::Contains("congestion is measured on routed models"), InputError);
}

TEST_CASE("c2_bound_argument: the first bound that gives the C2 bound, none without one") {
  verify::Report r;
  r.bound_c2 = 4;
  r.bounds = {{verify::Metric::c1, 4, "a C1 bound"},
              {verify::Metric::c2, 3, "a weaker C2 bound"},
              {verify::Metric::c2, 4, "the C2 bound", true},
              {verify::Metric::c2, 4, "the same again"}};
  CHECK(verify::c2_bound_argument(r) == "the C2 bound");
  r.bound_c2 = 5;
  CHECK(verify::c2_bound_argument(r) == "");
}
