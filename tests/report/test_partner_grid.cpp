// report/partner_grid.hpp: the phase table as a grid, parsed back as XML (pugixml).

#include <doctest/doctest.h>

#include <pugixml.hpp>
#include <set>
#include <string>

#include "core/error.hpp"
#include "helpers.hpp"
#include "report/partner_grid.hpp"
#include "report/svg_text.hpp"
#include "schedules/registry.hpp"

using namespace phasecheck;

namespace {

/// A registered algorithm generated straight into the grid: the schedule is never held.
reports::PartnerGrid drawn(std::string_view algorithm, Topology machine) {
  const schedules::Algorithm& a = schedules::require_algorithm(algorithm);
  const ScheduleHeader header = schedules::make_header(a, std::move(machine), {});
  reports::PartnerGrid grid(header);
  a.generate(header, grid.sink());
  return grid;
}

pugi::xpath_node_set cells(const pugi::xml_document& doc) {
  return doc.select_nodes("//rect[@class='cell']");
}

}  // namespace

TEST_CASE("partner_grid_svg: a 64-rank shift is one cell per rank and phase, one colour a phase") {
  const reports::PartnerGrid grid = drawn("shift", FullyConnected(64, 1));
  REQUIRE(grid.grid().phases() == 64);  // phase 0 is every rank's local copy
  CHECK(grid.grid().full_resolution());
  const std::string svg = reports::partner_grid_svg(grid, "shift on 64");
  pugi::xml_document doc;
  REQUIRE(doc.load_string(svg.c_str()));
  const pugi::xpath_node_set all = cells(doc);
  REQUIRE(all.size() == 64 * 64);
  // Row by row: rank r's cell in phase t is all[r * 64 + t]. Phase t of a shift moves every
  // rank the distance t, so a column has one colour, and no two columns share one; phase 0 sends
  // nothing (local copies are free): grey.
  std::set<std::string> colors;
  for (std::size_t t = 0; t < 64; ++t) {
    const std::string color = all[t].node().attribute("fill").value();
    for (std::size_t r = 1; r < 64; ++r)
      CHECK(std::string(all[r * 64 + t].node().attribute("fill").value()) == color);
    colors.insert(color);
  }
  CHECK(colors.size() == 64);
  CHECK(std::string(all[0].node().attribute("fill").value()) == "#eeeeee");
  const std::string title = all[5 * 64 + 2].node().child_value("title");
  CHECK(title.starts_with("phase 2 (step 2), rank 5\n"));
  CHECK(title.find("\nsends 5 -> 7 [5,7]") != std::string::npos);  // in the phase's order
  CHECK(title.find("\nreceives 3 -> 5 [3,5]") != std::string::npos);
  CHECK(testing::svg_texts(doc, "/svg/text")
            .find("One cell per rank (row, as sender) and phase (column) (64 ranks, 64 "
                  "phases in 64 x 64 cells)") != std::string::npos);
}

TEST_CASE("partner_grid_svg: 4,096 ranks aggregate into 256 x 256 cells of 16 ranks x 16 phases") {
  const reports::PartnerGrid grid = drawn("shift", FullyConnected(4096, 1));
  const reports::BinnedGrid& g = grid.grid();
  CHECK(g.phases() == 4096);
  CHECK(g.row_bin() == 16);
  CHECK(g.row_bins() == 256);
  CHECK(g.phase_bin() == 16);
  REQUIRE(g.columns().size() == 256);
  const std::string svg = reports::partner_grid_svg(grid, "shift on 4096");
  pugi::xml_document doc;
  REQUIRE(doc.load_string(svg.c_str()));
  const pugi::xpath_node_set all = cells(doc);
  CHECK(all.size() == 256 * 256);
  CHECK(testing::svg_texts(doc, "/svg/text")
            .find("One cell = 16 ranks x 16 phases (4096 ranks, 4096 phases in 256 x 256 "
                  "cells)") != std::string::npos);
  CHECK(testing::svg_texts(doc, "/svg/text").find("Hue: mean partner distance") !=
        std::string::npos);
  // Phases 1-15 move distances 1-15 (phase 0 copies locally): mean 8, 15 of 16 phases busy.
  CHECK(std::string(all[0].node().child_value("title")) ==
        "phases 0-15, ranks 0-15: 240 sends, 94% busy, mean partner distance 8.0");
  CHECK(std::string(all[255].node().child_value("title")) ==
        "phases 4080-4095, ranks 0-15: 256 sends, 100% busy, mean partner distance 4087.5");
}

TEST_CASE("partner_grid_svg: an idle rank is grey, a partly busy bin paler than a busy one") {
  // Ranks 0 and 1 exchange in phase 0; ranks 2 and 3 never send.
  reports::PartnerGrid full(testing::header(FullyConnected(4, 1)));
  full.consume(testing::phase("a", {{0, 1}, {1, 0}}));
  pugi::xml_document doc;
  REQUIRE(doc.load_string(reports::partner_grid_svg(full, "t").c_str()));
  const pugi::xpath_node_set all = cells(doc);
  REQUIRE(all.size() == 4);
  CHECK(std::string(all[2].node().attribute("fill").value()) == "#eeeeee");
  CHECK(std::string(all[2].node().child_value("title")) == "phase 0 (a), rank 2\nno transfer");

  // Two ranks per cell: the first bin has one sender of two, the second both.
  reports::PartnerGrid binned(testing::header(FullyConnected(4, 1)), 2);
  binned.consume(testing::phase("a", {{0, 1}, {2, 3}, {3, 2}}));
  pugi::xml_document doc2;
  REQUIRE(doc2.load_string(reports::partner_grid_svg(binned, "t").c_str()));
  const pugi::xpath_node_set two = cells(doc2);
  REQUIRE(two.size() == 2);
  CHECK(std::string(two[0].node().child_value("title")) ==
        "phases 0, ranks 0-1: 1 sends, 50% busy, mean partner distance 1.0");
  CHECK(std::string(two[0].node().attribute("fill").value()) !=
        std::string(two[1].node().attribute("fill").value()));
}

TEST_CASE("partner_grid_svg: the same schedule gives the same bytes") {
  const auto once = reports::partner_grid_svg(drawn("pairwise-xor", FullyConnected(16, 1)), "x");
  const auto again = reports::partner_grid_svg(drawn("pairwise-xor", FullyConnected(16, 1)), "x");
  CHECK(once == again);
  CHECK(once.find("<script") == std::string::npos);
  CHECK(once.find("href") == std::string::npos);
}

TEST_CASE("partner_grid_svg: a schedule without phases says so and draws no cell") {
  const reports::PartnerGrid grid(testing::header(FullyConnected(3, 1)));
  pugi::xml_document doc;
  REQUIRE(doc.load_string(reports::partner_grid_svg(grid, "empty").c_str()));
  CHECK(cells(doc).empty());
  CHECK(testing::svg_texts(doc, "/svg/text").find("The schedule has no phases.") !=
        std::string::npos);
}

TEST_CASE("PartnerGrid: a rank that does not exist is bad input naming phase and transfer") {
  reports::PartnerGrid grid(testing::header(FullyConnected(4, 1)));
  CHECK_THROWS_WITH_AS(grid.consume(testing::phase("a", {{0, 1}, {0, 7}})),
                       "phase 0, transfer 1: rank 7 does not exist (4 ranks)", InputError);
}
