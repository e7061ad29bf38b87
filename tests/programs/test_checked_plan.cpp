// programs/checked_plan.hpp: a table verified, its pair-wise synchronization plan built and
// checked, on the paper's Figure 1 and on tables and models that must fail.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "helpers.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "programs/checked_plan.hpp"

using namespace phasecheck;

namespace {

std::string example(const std::string& name) {
  return (std::filesystem::path(PHASECHECK_SOURCE_DIR) / "examples" / name).string();
}

}  // namespace

TEST_CASE("check_synchronization_plan: Faraj-Yuan on Figure 1 keeps 8 of its synchronizations") {
  const Schedule table = pipeline::read_schedule_file(example("faraj-yuan-fig1/faraj-yuan.json"));
  const programs::CheckedPlan c =
      programs::check_synchronization_plan(table, table.header.topology, {}, "fig1");
  CHECK(c.table.verdict() == verify::Verdict::pass);
  CHECK(c.check.verdict == verify::Verdict::pass);
  CHECK(c.ok());
  CHECK(c.plan.messages.size() == 30);
  CHECK(c.plan.kept.size() == 8);
  CHECK(c.table.counts.phases == 9);
}

TEST_CASE("check_synchronization_plan: a table that does not verify is not ok, however planned") {
  // Figure 1's machine, one message sent: every other block is never delivered.
  const Topology fig1 = io::read_topology_file(example("faraj-yuan-fig1/topology.json"));
  const Schedule table{testing::header(fig1), {testing::phase("0", {{0, 1}})}};
  const programs::CheckedPlan c = programs::check_synchronization_plan(table, fig1, {}, "half");
  CHECK(c.table.verdict() == verify::Verdict::fail);
  CHECK(c.check.verdict == verify::Verdict::pass);
  CHECK_FALSE(c.ok());
}

TEST_CASE("check_synchronization_plan: the verifier's errors name the source, the plan's do not") {
  const Schedule table = pipeline::read_schedule_file(example("fully-connected-5/shift.json"));
  // A tree of 6 machines for a schedule of 5 ranks: the verifier refuses it.
  const Topology six = io::read_topology_file(example("faraj-yuan-fig1/topology.json"));
  CHECK_THROWS_WITH_AS(programs::check_synchronization_plan(table, six, {}, "shift.json"),
                       doctest::Contains("shift.json: the schedule has 5 ranks"), InputError);
  CHECK_THROWS_WITH_AS(
      programs::check_synchronization_plan(table, table.header.topology, {}, "shift.json"),
      "pair-wise synchronization needs a routed model (tree, hypercube, mesh or ring), not "
      "fully-connected(p=5, k=1)",
      InputError);
}
