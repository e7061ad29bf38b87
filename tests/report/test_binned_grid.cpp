// report/binned_grid.hpp: rows binned up front, phases merged pairwise as they come.

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "report/binned_grid.hpp"

using namespace phasecheck;
using reports::BinnedGrid;

TEST_CASE("BinnedGrid: one cell per row and phase up to max_cells, then bins of rows") {
  const BinnedGrid small(4, 4);
  CHECK(small.row_bin() == 1);
  CHECK(small.row_bins() == 4);
  const BinnedGrid five(5, 4);  // ceil(5 / 4) = 2 rows per cell, the last bin holds one
  CHECK(five.row_bin() == 2);
  CHECK(five.row_bins() == 3);
  CHECK(five.rows_of(2) == std::pair<std::uint64_t, std::uint64_t>{4, 4});
}

TEST_CASE("BinnedGrid: phases beyond max_cells merge pairwise, counts and maxima are kept") {
  BinnedGrid g(3, 4);
  for (std::uint64_t t = 0; t < 9; ++t) {
    g.start_phase("p" + std::to_string(t));
    reports::GridCell& c = g.cell(t % 3);
    ++c.items;
    c.sum += t;
    c.max = std::max(c.max, t);
    c.describe("phase " + std::to_string(t));
  }
  // 4 columns of 1, merged into 2 of 2 at phase 4, then into 2 of 4 at phase 8: 3 columns.
  CHECK(g.phases() == 9);
  CHECK(g.phase_bin() == 4);
  REQUIRE(g.columns().size() == 3);
  CHECK(g.phases_of(1) == std::pair<std::uint64_t, std::uint64_t>{4, 7});
  CHECK(g.phases_of(2) == std::pair<std::uint64_t, std::uint64_t>{8, 8});
  std::uint64_t items = 0, sum = 0;
  for (std::size_t col = 0; col < g.columns().size(); ++col)
    for (const reports::GridCell& c : g.columns()[col]) {
      items += c.items;
      sum += c.sum;
      if (col < 2) CHECK(c.detail.empty());  // merged cells stand for several phases
    }
  CHECK(items == 9);
  CHECK(sum == 36);
  CHECK(g.columns()[1][1].max == 7);  // phases 4-7, row 1: phases 4 and 7
  CHECK_FALSE(g.full_resolution());
  CHECK(g.labels().empty());
}

TEST_CASE("BinnedGrid: a cell's detail lists kMaxDetailLines lines and counts the rest") {
  reports::GridCell c;
  for (int i = 0; i < 9; ++i) c.describe("line " + std::to_string(i));
  CHECK(c.detail == "line 0\nline 1\nline 2\nline 3\nline 4\nline 5");
  CHECK(c.unlisted == 3);
}

TEST_CASE("BinnedGrid: refuses no rows and an odd or tiny cell count") {
  CHECK_THROWS_AS(BinnedGrid(0, 4), InputError);
  CHECK_THROWS_AS(BinnedGrid(4, 3), InputError);
  CHECK_THROWS_AS(BinnedGrid(4, 0), InputError);
}
