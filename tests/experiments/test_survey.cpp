// experiments/survey.hpp: every registered algorithm on a machine, its verdict, counts and gaps.

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "experiments/survey.hpp"
#include "schedules/registry.hpp"

using namespace phasecheck;

namespace {

std::string example(const std::string& name) {
  return (std::filesystem::path(PHASECHECK_SOURCE_DIR) / "examples" / name / "topology.json")
      .string();
}

const experiments::SurveyRow& row(const experiments::Survey& s, const std::string& algorithm) {
  const auto it = std::find_if(s.rows.begin(), s.rows.end(),
                               [&](const auto& r) { return r.algorithm == algorithm; });
  REQUIRE(it != s.rows.end());
  return *it;
}

}  // namespace

TEST_CASE("survey: one row per registered algorithm, none broken on the hypercube") {
  const experiments::Survey s = experiments::survey({example("hypercube-3")});
  CHECK(s.topologies == std::vector<std::string>{example("hypercube-3")});
  CHECK(s.rows.size() == schedules::algorithms().size());
  CHECK_FALSE(s.broken);
  const experiments::SurveyRow& exchange = row(s, "hypercube-exchange");
  CHECK(exchange.machine == "hypercube-3");
  CHECK(exchange.model == "hypercube(d=3)");
  CHECK_FALSE(exchange.not_applicable);
  CHECK(exchange.failed == "");
  CHECK(exchange.phases == 3);
  CHECK(exchange.c1 == 3);
  CHECK(exchange.bound_c1 == 2);
  CHECK(exchange.gap_c1 == 1);
  CHECK(exchange.c2 == 12);
  CHECK(exchange.bound_c2 == 4);
  CHECK(exchange.gap_c2 == 8);
  CHECK(exchange.kept);
}

TEST_CASE("survey: a failed check has no gaps, an algorithm that refuses the machine says why") {
  const experiments::Survey s = experiments::survey({example("faraj-yuan-fig1")});
  const experiments::SurveyRow& linear = row(s, "linear");
  CHECK(linear.failed == "contention,bounds");
  CHECK_FALSE(linear.gap_c1);
  CHECK_FALSE(linear.gap_c2);
  CHECK(linear.kept);  // linear does not claim to be contention-free
  const experiments::SurveyRow& xor_ = row(s, "pairwise-xor");
  REQUIRE(xor_.not_applicable);
  CHECK(*xor_.not_applicable == "pairwise-xor needs a power-of-two number of ranks, not 6");
}

TEST_CASE("survey: a file that is not a topology is bad input") {
  CHECK_THROWS_AS(experiments::survey({(std::filesystem::path(PHASECHECK_SOURCE_DIR) / "tests" /
                                        "cli" / "bad" / "unknown-kind.json")
                                           .string()}),
                  InputError);
}

TEST_CASE("survey: every file is read and its size checked before any algorithm runs") {
  const std::string large = (std::filesystem::path(PHASECHECK_SOURCE_DIR) / "tests" / "cli" /
                             "bad" / "fully-connected-8192.json")
                                .string();
  // The small machine first: refused all the same, before its survey.
  CHECK_THROWS_WITH_AS(experiments::survey({example("hypercube-3"), large}),
                       doctest::Contains("fully-connected-8192.json: survey works on at most 2048 "
                                         "ranks; this machine has 8192"),
                       InputError);
}
