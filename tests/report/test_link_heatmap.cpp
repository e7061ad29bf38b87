// report/link_heatmap.hpp: link loads per phase on a routed machine, the bottleneck marked.

#include <doctest/doctest.h>

#include <pugixml.hpp>
#include <string>

#include "core/error.hpp"
#include "helpers.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "report/link_heatmap.hpp"
#include "report/svg_text.hpp"

using namespace phasecheck;

namespace {

const std::string kFig1 = std::string(PHASECHECK_SOURCE_DIR) + "/examples/faraj-yuan-fig1/";

}  // namespace

TEST_CASE("link_heatmap_svg: linear on Faraj-Yuan's Fig. 1 marks the s0 - s1 link as bottleneck") {
  ScheduleHeader header;
  std::optional<reports::LinkLoadGrid> grid;
  pipeline::read_schedule_file(
      kFig1 + "linear.json",
      [&](const ScheduleHeader& h) {
        header = h;
        grid.emplace(header.topology);
      },
      [&](const Phase& p) { grid->consume(p); });
  // Every message crosses its route once, so over the whole all-to-all each direction of the cut
  // that splits the machines 3 | 3 carries 3 x 3 = 9 loads: the tree's own bottleneck
  // (core/topology.hpp), found here from the schedule's loads.
  const Tree& tree = std::get<Tree>(header.topology);
  const Tree::Cut cut = tree.bottleneck();
  const std::string a = tree.node_name(cut.a), b = tree.node_name(cut.b);
  REQUIRE(grid->bottleneck());
  const std::string name = link_name(header.topology, *grid->bottleneck());
  CHECK((name == a + " -> " + b || name == b + " -> " + a));
  CHECK(grid->totals()[*grid->bottleneck()] == tree.bottleneck_load());
  CHECK(grid->peak() >= 2);  // linear contends

  const std::string svg = reports::link_heatmap_svg(*grid, "linear");
  pugi::xml_document doc;
  REQUIRE(doc.load_string(svg.c_str()));
  const pugi::xpath_node_set marked = doc.select_nodes("//rect[@class='bottleneck']");
  REQUIRE(marked.size() == 1);
  CHECK(std::string(marked[0].node().child_value("title")) == "bottleneck: link " + name);
  CHECK(testing::svg_texts(doc, "/svg/text")
            .find("Bottleneck: link " + name + ", load 9 over the schedule") != std::string::npos);
  // Both directions of every cable with machines on each side; the cable to the empty switch
  // s2 and the root's two unused link ids carry nothing and are not drawn.
  std::size_t used = 0;
  for (const Tree::Cut& c : tree.cuts()) used += c.machines_a > 0 && c.machines_b > 0 ? 2 : 0;
  CHECK(used == 16);
  CHECK(doc.select_nodes("//rect[@class='cell']").size() == used * grid->grid().phases());
}

TEST_CASE("link_heatmap_svg: a cell's colour and title give the link's load in the phase") {
  const Topology ring = Ring(4);
  reports::LinkLoadGrid grid(ring);
  // Phase 0: 0 -> 1 and 0 -> 2 both take the link 0 -> 1 (a tie goes the + way round).
  grid.consume(testing::phase("a", {{0, 1}, {0, 2}}));
  grid.consume(testing::phase("b", {{3, 2}}));
  pugi::xml_document doc;
  REQUIRE(doc.load_string(reports::link_heatmap_svg(grid, "t").c_str()));
  const pugi::xpath_node_set all = doc.select_nodes("//rect[@class='cell']");
  REQUIRE(all.size() == 3 * 2);  // links 0 -> 1, 1 -> 2 and 3 -> 2 carry something
  CHECK(std::string(all[0].node().child_value("title")) ==
        "link 0 -> 1, phase 0 (a): load 2 (contended)");
  CHECK(std::string(all[1].node().child_value("title")) == "link 0 -> 1, phase 1 (b): idle");
  CHECK(std::string(all[1].node().attribute("fill").value()) == "#eeeeee");
  CHECK(std::string(all[2].node().child_value("title")) == "link 1 -> 2, phase 0 (a): load 1");
  CHECK(grid.bottleneck() == LinkId{0});
}

TEST_CASE("link_heatmap_svg: the same loads give the same bytes, with no bottleneck when idle") {
  const Topology cube = Hypercube(3);
  reports::LinkLoadGrid idle(cube);
  idle.consume(testing::phase("local", {{2, 2}}));
  CHECK_FALSE(idle.bottleneck());
  const std::string svg = reports::link_heatmap_svg(idle, "t");
  CHECK(svg == reports::link_heatmap_svg(idle, "t"));
  CHECK(svg.find("No link carries anything: there is no bottleneck.") != std::string::npos);
  CHECK(svg.find("class=\"bottleneck\"") == std::string::npos);
}

TEST_CASE("LinkLoadGrid: a machine that does not route is refused") {
  const Topology cluster = Cluster({2, 2});
  CHECK_THROWS_AS(reports::LinkLoadGrid{cluster}, InputError);
  const Topology ports = FullyConnected(4, 2);
  CHECK_THROWS_AS(reports::LinkLoadGrid{ports}, InputError);
}

TEST_CASE("LinkLoadGrid: among equally loaded links the bottleneck is the lowest link id") {
  const Topology ring = Ring(4);
  reports::LinkLoadGrid grid(ring);
  // Links 1 -> 2 (id 2) and 0 -> 1 (id 0) carry one block each, given in that order.
  grid.consume(testing::phase("a", {{1, 2}, {0, 1}}));
  REQUIRE(grid.bottleneck());
  CHECK(*grid.bottleneck() == LinkId{0});
  CHECK(link_name(ring, *grid.bottleneck()) == "0 -> 1");
}
