#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include "core/error.hpp"
#include "experiments/check.hpp"
#include "io/json.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

/// `generate | verify`: the schedule written as JSON, read back and verified.
verify::Report generate_then_verify(const schedules::Algorithm& a, const Topology& model) {
  const ScheduleHeader header = schedules::make_header(a, model, {});
  std::ostringstream json;
  io::ScheduleWriter writer(json, header);
  a.generate(header, writer.sink());
  writer.finish();
  const Schedule read = io::parse_schedule(json.str(), "generated.json");
  return verify::verify(read, read.header.topology, schedules::claims_for(read.header));
}

}  // namespace

TEST_CASE("check: the same report as generate | verify, for every algorithm on every example") {
  std::size_t compared = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(PHASECHECK_SOURCE_DIR) + "/examples")) {
    const auto file = entry.path() / "topology.json";
    if (!std::filesystem::exists(file)) continue;
    const Topology model = io::read_topology_file(file.string());
    if (ranks(model) > 64) continue;  // the larger examples add time, not cases
    for (const schedules::Algorithm& a : schedules::algorithms()) {
      verify::Report streamed;
      try {
        streamed = experiments::check_algorithm(a, model, {});
      } catch (const InputError&) {
        CHECK_THROWS_AS(generate_then_verify(a, model), InputError);  // refused alike
        continue;
      }
      INFO(a.name << " on " << file.string());
      CHECK(streamed == generate_then_verify(a, model));
      ++compared;
    }
  }
  CHECK(compared > 50);
}

TEST_CASE("check: a contended schedule is found contended, with its counterexample") {
  const Topology tree = io::read_topology_file(std::string(PHASECHECK_SOURCE_DIR) +
                                               "/examples/faraj-yuan-fig1/topology.json");
  const verify::Report r =
      experiments::check_algorithm(*schedules::find_algorithm("linear"), tree, {});
  CHECK(r.verdict() == Verdict::fail);
  REQUIRE_FALSE(r.passed("contention"));
  bool drawn = false;
  for (const CheckResult& c : r.checks)
    if (c.name == "contention") drawn = c.counterexample && !c.counterexample->resource.empty();
  CHECK(drawn);
}

TEST_CASE("check: bad parameters are refused before any phase is made") {
  const Topology model = FullyConnected(8, 1);
  Parameters p;
  p.set("radix", std::string("99"));
  CHECK_THROWS_AS(experiments::check_algorithm(*schedules::find_algorithm("bruck-index"), model, p),
                  InputError);
}
