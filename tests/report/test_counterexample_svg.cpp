// report/counterexample_svg.hpp: a failed check's offending phase drawn, the shared resource red.

#include <doctest/doctest.h>

#include <pugixml.hpp>
#include <string>

#include "helpers.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "report/counterexample_svg.hpp"
#include "report/svg_text.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

const std::string kExamples = std::string(PHASECHECK_SOURCE_DIR) + "/examples/";

}  // namespace

TEST_CASE("counterexample_svg: linear on Fig. 1 shows both transfers on the link n0 -> s0") {
  const Schedule s = pipeline::read_schedule_file(kExamples + "faraj-yuan-fig1/linear.json");
  const verify::Report report = verify::verify(s, s.header.topology);
  const verify::CheckResult* failure = reports::drawable_failure(report);
  REQUIRE(failure != nullptr);
  CHECK(failure->id == CheckId::contention);
  const std::size_t index = *failure->counterexample->phase;
  const Phase& phase = s.phases[index];
  const std::string svg =
      reports::counterexample_svg(*failure, report, s.header.ranks(), &phase, "linear.json");
  pugi::xml_document doc;
  REQUIRE(doc.load_string(svg.c_str()));
  // The two conflicting transfers (0 -> 1 and 0 -> 2) in red, the phase's others grey.
  const pugi::xpath_node_set offending = doc.select_nodes("//path[@class='offending']");
  REQUIRE(offending.size() == 2);
  CHECK(std::string(offending[0].node().child_value("title")) == "0 -> 1 [0,1]");
  CHECK(std::string(offending[1].node().child_value("title")) == "0 -> 2 [0,2]");
  std::size_t others = 0;
  for (const Transfer& t : phase.transfers()) others += t.local() ? 0 : 1;
  CHECK(doc.select_nodes("//path[@class='transfer']").size() == others - 2);
  // Each route crosses the shared link once, drawn red and named.
  const pugi::xpath_node_set shared = doc.select_nodes("//line[@class='shared']");
  REQUIRE(shared.size() == 2);
  for (const pugi::xpath_node& l : shared)
    CHECK(std::string(l.node().child_value("title")) == "link n0 -> s0");
  CHECK(testing::svg_texts(doc).find("sharing link n0 -> s0") != std::string::npos);
  CHECK(svg ==
        reports::counterexample_svg(*failure, report, s.header.ranks(), &phase, "linear.json"));
}

TEST_CASE("counterexample_svg: without the phase only the conflicting transfers are drawn") {
  const Schedule s = pipeline::read_schedule_file(kExamples + "faraj-yuan-fig1/linear.json");
  const verify::Report report = verify::verify(s, s.header.topology);
  const verify::CheckResult* failure = reports::drawable_failure(report);
  REQUIRE(failure != nullptr);
  pugi::xml_document doc;
  REQUIRE(doc.load_string(
      reports::counterexample_svg(*failure, report, s.header.ranks(), nullptr, "<stdin>").c_str()));
  CHECK(doc.select_nodes("//path[@class='transfer']").empty());
  CHECK(doc.select_nodes("//path[@class='offending']").size() == 2);
  CHECK(testing::svg_texts(doc).find(
            "the others are not drawn (the schedule was read from a stream)") != std::string::npos);
}

TEST_CASE("counterexample_svg: a port conflict marks the rank whose ports overflow") {
  // One port: rank 0 sends twice in phase 0.
  const Schedule s{testing::header(FullyConnected(3, 1)), {testing::phase("p", {{0, 1}, {0, 2}})}};
  const verify::Report report = verify::verify(s, s.header.topology);
  const verify::CheckResult* failure = reports::drawable_failure(report);
  REQUIRE(failure != nullptr);
  CHECK(failure->id == CheckId::contention);
  pugi::xml_document doc;
  REQUIRE(doc.load_string(
      reports::counterexample_svg(*failure, report, 3, &s.phases[0], "p.json").c_str()));
  // Each row's first node (rank 0, the sender) is the shared port.
  const pugi::xpath_node_set shared = doc.select_nodes("//rect[@class='shared']");
  CHECK(shared.size() == 2);
  CHECK(doc.select_nodes("//line[@class='shared']").empty());
}

TEST_CASE("drawable_failure: nothing to draw for a pass or a failure outside any phase") {
  const Schedule good = pipeline::read_schedule_file(kExamples + "hypercube-3/pairwise-xor.json");
  CHECK(reports::drawable_failure(verify::verify(good, good.header.topology)) == nullptr);
  // Nothing is sent: delivery fails at the end (blocks never arrive), in no phase.
  const Schedule none{testing::header(FullyConnected(2, 1)), {testing::phase("idle", {{0, 0}})}};
  const verify::Report report = verify::verify(none, none.header.topology);
  CHECK(report.verdict() == Verdict::fail);
  CHECK(reports::drawable_failure(report) == nullptr);
}
