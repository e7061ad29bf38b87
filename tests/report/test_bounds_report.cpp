// report/bounds_report.hpp: the bounds renderer on a canned answer (Figure 1's tree).

#include <doctest/doctest.h>

#include <string>

#include "report/bounds_report.hpp"

using namespace phasecheck;

namespace {

experiments::MachineBounds fig1() {
  experiments::MachineBounds b;
  b.topology = "tree(machines=6, switches=4)";
  b.kind = "tree";
  b.ranks = 6;
  b.bounds = {{verify::Metric::c2, 9, "the bottleneck"}, {verify::Metric::c1, 3, "doubling"}};
  b.direct_phases = 9;
  b.c1 = 3;
  b.c2 = 9;
  b.tree = experiments::TreeFigures{
      "s1",
      "s0",
      3,
      3,
      9,
      30.0 / 9,
      0,
      std::nullopt,
      experiments::FarajYuanFigures{std::string("s1"), {16, 8, 1, 1, 1}, 9}};
  return b;
}

}  // namespace

TEST_CASE("render_bounds text: the table, the best bounds, the tree's figures, sizes run-length") {
  CHECK(reports::render_bounds(fig1(), reports::ReportFormat::text) ==
        "lower bounds for alltoall on tree(machines=6, switches=4) (6 ranks)\n"
        "  metric  bound  applies to  argument\n"
        "  C2      9      any         the bottleneck\n"
        "  C1      3      any         doubling\n"
        "direct schedules need at least 9 phases with communication; with forwarding C1 >= 3 "
        "and C2 >= 9\n"
        "\n"
        "bottleneck link s1 - s0: |Mu| x |Mv| = 3 x 3 = 9 messages each way\n"
        "peak aggregate throughput <= |M| (|M| - 1) B / (|Mu| |Mv|) = 3.333 B\n"
        "faraj-yuan: root s1, subtrees of 16, 8, 3 x 1 machines: 9 phases = |M0| (|M| - |M0|), "
        "the bottleneck load\n");
}

TEST_CASE("render_bounds: a bandwidth in text, the tree in JSON, CSV is the table alone") {
  experiments::MachineBounds b = fig1();
  b.tree->bandwidth = 12.5e6;
  b.tree->peak_throughput = 30.0 / 9 * 12.5e6;
  CHECK(reports::render_bounds(b, reports::ReportFormat::text)
            .find("= 3.333 B = 4.167e+07 bytes/s for B = 1.25e+07 bytes/s\n") != std::string::npos);
  const auto j =
      nlohmann::ordered_json::parse(reports::render_bounds(b, reports::ReportFormat::json));
  CHECK(j["tree"]["bottleneck"]["link"] == nlohmann::ordered_json{"s1", "s0"});
  CHECK(j["tree"]["faraj_yuan"]["subtrees"] == nlohmann::ordered_json{16, 8, 1, 1, 1});
  CHECK(j["forwarding"]["C2"] == 9);
  CHECK(reports::render_bounds(b, reports::ReportFormat::csv) ==
        "metric,value,applies_to,argument\r\nC2,9,any,the bottleneck\r\nC1,3,any,doubling\r\n");
}

TEST_CASE("render_bounds: off a tree there are no tree figures (text) and \"tree\" is null") {
  experiments::MachineBounds b = fig1();
  b.tree.reset();
  const std::string text = reports::render_bounds(b, reports::ReportFormat::text);
  CHECK(text.find("bottleneck link") == std::string::npos);
  CHECK(
      nlohmann::ordered_json::parse(reports::render_bounds(b, reports::ReportFormat::json))["tree"]
          .is_null());
}

TEST_CASE("render_bounds: a one-machine tree has a bottleneck in JSON but no text figures") {
  experiments::MachineBounds b = fig1();
  b.tree->faraj_yuan.reset();
  CHECK(reports::render_bounds(b, reports::ReportFormat::text).find("bottleneck link") ==
        std::string::npos);
  const auto j =
      nlohmann::ordered_json::parse(reports::render_bounds(b, reports::ReportFormat::json));
  CHECK(j["tree"]["bottleneck"]["load"] == 9);
  CHECK_FALSE(j["tree"].contains("faraj_yuan"));
}
