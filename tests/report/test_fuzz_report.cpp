#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "report/fuzz_report.hpp"

using namespace phasecheck;

namespace {

properties::FuzzOutcome failed() {
  properties::FuzzOutcome o{"shift", Verdict::fail, 12, 0, 0, "", std::nullopt};
  o.failure = properties::FuzzFailure{"shift: contention: phase 1",
                                      "tree of 3 machines",
                                      {"out/topology.json", "out/schedule.json", "out/report.txt"},
                                      "phasecheck verify out/schedule.json",
                                      "phasecheck fuzz shift --seed 7 --cases 200",
                                      "FAIL report\n"};
  return o;
}

}  // namespace

TEST_CASE("fuzz report: a line per outcome, the failure with its files and replay commands") {
  CHECK(reports::fuzz_outcome_text({"ring", Verdict::pass, 200, 3, 0.5, "", std::nullopt}) ==
        "pass  ring: 200 cases in 0.50 s (400/s); 3 generated machines did not fit it\n");
  CHECK(reports::fuzz_outcome_text(
            {"hypercube", Verdict::not_evaluated, 4, 0, 0, "too few fit", std::nullopt}) ==
        "gave up  hypercube: too few fit (4 cases ran)\n");
  CHECK(reports::fuzz_outcome_text(failed()) ==
        "\nFAIL  shift: contention: phase 1\n  smallest machine: tree of 3 machines\n"
        "  written: out/topology.json, schedule.json, report.txt\n"
        "  replay:  phasecheck verify out/schedule.json\n"
        "  again:   phasecheck fuzz shift --seed 7 --cases 200\n\nFAIL report\n");
}

TEST_CASE("fuzz report: nothing evaluated is said, never a pass") {
  CHECK(reports::fuzz_verdict_text(Verdict::pass).empty());
  CHECK(reports::fuzz_verdict_text(Verdict::not_evaluated) ==
        "not evaluated: every algorithm gave up, nothing was checked\n");
  properties::FuzzOptions options;
  const auto j = nlohmann::ordered_json::parse(reports::fuzz_json(
      options, Verdict::not_evaluated,
      {{"hypercube", Verdict::not_evaluated, 4, 0, 0, "too few fit", std::nullopt}}));
  CHECK(j["verdict"] == "not-evaluated");
  CHECK(j["results"][0]["verdict"] == "not-evaluated");
  CHECK(j["results"][0]["reason"] == "too few fit");
  CHECK(j["seconds"].is_null());
}

TEST_CASE("fuzz report: json names the failure's files") {
  properties::FuzzOptions options;
  const auto j =
      nlohmann::ordered_json::parse(reports::fuzz_json(options, Verdict::fail, {failed()}));
  CHECK(j["verdict"] == "fail");
  CHECK(j["results"][0]["failure"]["files"].size() == 3);
  CHECK(j["results"][0]["failure"]["replay"] == "phasecheck verify out/schedule.json");
}
