// report/programs_report.hpp: sync's and program's renderers on canned answers.

#include <doctest/doctest.h>

#include <string>

#include "report/programs_report.hpp"

using namespace phasecheck;

namespace {

verify::Report table(verify::Verdict delivery) {
  verify::Report r;
  r.algorithm = "hand-made";
  r.collective = Collective::alltoall;
  r.topology = "tree(machines=3, switches=1)";
  r.counts.phases = 2;
  r.checks = {{CheckId::delivery, delivery, "summary"}};
  return r;
}

programs::CheckedPlan plan() {
  programs::CheckedPlan c;
  c.table = table(verify::Verdict::pass);
  c.plan.messages = {{0, 0, 1, 0}, {1, 2, 1, 0}};
  c.plan.contending_pairs = 1;
  c.plan.dependence_edges = 1;
  c.plan.by_program_order = 0;
  c.plan.kept = {{0, 1}};
  c.check = {CheckId::synchronization, verify::Verdict::pass, "every contending pair is ordered",
             std::nullopt};
  return c;
}

}  // namespace

TEST_CASE("sync_text: counts, both checks and, when asked, every synchronization message") {
  CHECK(reports::sync_text(plan(), "s.json", true) ==
        "PASS  pair-wise synchronization of hand-made (alltoall) on tree(machines=3, switches=1)  "
        "[s.json]\n"
        "  2 messages in 2 phases\n"
        "  1 contending pairs (messages in different phases sharing a link): the naive "
        "synchronizations\n"
        "  1 dependence edges (each message to the next later users of each of its links)\n"
        "  1 synchronization messages after transitive reduction (0 more orderings come free "
        "with each rank's program order)\n"
        "  pass  table            verifies (delivery, contention, claims, bounds)\n"
        "  pass  synchronization  every contending pair is ordered\n"
        "\n"
        "synchronization messages (after -> sender waits before):\n"
        "  0 -> 2  after 0 -> 1 (phase 0), before 2 -> 1 (phase 1)\n");
}

TEST_CASE("sync_json: a table that does not verify fails the command, the list only when asked") {
  programs::CheckedPlan c = plan();
  c.table = table(verify::Verdict::fail);
  const nlohmann::ordered_json j = reports::sync_json(c, "s.json", false);
  CHECK(j["verdict"] == "fail");
  CHECK(j["table"]["verdict"] == "fail");
  CHECK(j["synchronizations"] == 1);
  CHECK_FALSE(j.contains("list"));
  const nlohmann::ordered_json listed = reports::sync_json(plan(), "s.json", true);
  CHECK(listed["verdict"] == "pass");
  CHECK(listed["table"]["failed"].is_null());
  CHECK(listed["list"] == nlohmann::ordered_json::parse(
                              R"([{"after": {"src": 0, "dst": 1, "phase": 0},
                                   "before": {"src": 2, "dst": 1, "phase": 1}}])"));
}

TEST_CASE("program_text and program_json: sizes, the replay, listings in the order asked") {
  programs::CheckedPrograms c;
  c.table = table(verify::Verdict::pass);
  c.separation = programs::Separation::pairwise;
  c.separation_name = "pairwise";
  c.programs.resize(3);
  c.operations = 12;
  c.synchronizations = 1;
  c.replay = {CheckId::replay, verify::Verdict::pass, "3 programs run to completion", std::nullopt};
  c.listings = {{2, "rank 2: listing\n"}, {0, "rank 0: listing\n"}};
  CHECK(reports::program_text(c, "s.json") ==
        "PASS  per-rank programs of hand-made (alltoall) on tree(machines=3, switches=1), pairwise "
        "synchronization  [s.json]\n"
        "  3 programs, 12 operations, 1 synchronization messages\n"
        "  pass  table   verifies\n"
        "  pass  replay  3 programs run to completion\n"
        "\nrank 2: listing\n"
        "\nrank 0: listing\n");
  const nlohmann::ordered_json j = reports::program_json(c, "s.json");
  CHECK(j["verdict"] == "pass");
  CHECK(j["sync"] == "pairwise");
  CHECK(j["synchronizations"] == 1);
  CHECK(j["listings"].dump() == R"({"2":"rank 2: listing\n","0":"rank 0: listing\n"})");
  c.synchronizations.reset();
  c.replay.verdict = verify::Verdict::fail;
  CHECK(reports::program_json(c, "s.json")["synchronizations"].is_null());
  CHECK(reports::program_json(c, "s.json")["verdict"] == "fail");
}
