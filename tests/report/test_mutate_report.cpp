// report/mutate_report.hpp: the mutation analysis renderer on a canned run.

#include <doctest/doctest.h>

#include <string>

#include "report/mutate_report.hpp"

using namespace phasecheck;

namespace {

reports::MutationRun canned(bool perfect) {
  reports::MutationRun run{"s.json", "shift", "ring(p=4)", 7, 10, {}, perfect};
  run.report.program = false;
  run.report.contention_counts = true;
  run.report.classes = {{"drop a transfer", 10, 10, 10, 0, 0, 0, ""},
                        {"swap two phases", 10, 3, 2, perfect ? 0u : 1u, 0, 1,
                         perfect ? "" : "phase 1 and 2 swapped: missed"}};
  return run;
}

}  // namespace

TEST_CASE("mutation_text: the classes as a table, examples, the verdict with its percentage") {
  CHECK(reports::mutation_text(canned(false)) ==
        "mutation analysis of shift on ring(p=4)  [s.json]\n"
        "  a mutant is invalid when a naive re-simulation finds a block not delivered exactly "
        "once or contention (the original is contention-free)\n"
        "\n"
        "  fault            mutants  invalid  caught  missed  over-strict  valid, rejected by "
        "claims\n"
        "  drop a transfer  10       10       10      0       0            0\n"
        "  swap two phases  10       3        2       1       0            1\n"
        "\n"
        "  swap two phases: phase 1 and 2 swapped: missed\n"
        "\n"
        "FAIL  caught 12 of 13 invalid mutants (92.31%); every accepted mutant re-simulated valid: "
        "NO\n");
}

TEST_CASE("mutation_json: totals, null examples, the verdict from `perfect`") {
  const nlohmann::ordered_json j = reports::mutation_json(canned(true));
  CHECK(j["verdict"] == "pass");
  CHECK(j["seed"] == 7);
  CHECK(j["per_class"] == 10);
  CHECK(j["invalid"] == 13);
  CHECK(j["caught"] == 12);
  CHECK(j["classes"][1]["example"].is_null());
  CHECK(reports::mutation_json(canned(false))["verdict"] == "fail");
}

TEST_CASE("mutation_text: no invalid mutant, no percentage") {
  reports::MutationRun run = canned(true);
  run.report.classes = {{"drop a transfer", 0, 0, 0, 0, 0, 0, ""}};
  CHECK(reports::mutation_text(run).ends_with(
      "PASS  caught 0 of 0 invalid mutants; every accepted mutant re-simulated valid: yes\n"));
}
