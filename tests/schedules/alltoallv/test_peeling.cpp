// Birkhoff-von Neumann peeling (schedules/alltoallv/peeling.hpp): stuffing evens the line sums,
// and peeling takes weighted permutations whose weights sum to the line sum and whose sum is the
// stuffed matrix.

#include "schedules/alltoallv/peeling.hpp"

#include <doctest/doctest.h>

#include <random>

using namespace phasecheck;
using namespace phasecheck::schedules::alltoallv;

namespace {

SquareMatrix random_matrix(Rank p, std::uint32_t seed) {
  std::mt19937 rng(seed);
  SquareMatrix m{p, std::vector<std::uint64_t>(std::size_t{p} * p, 0)};
  for (std::uint64_t& c : m.cells) c = rng() % 2 ? 0 : rng() % 100;
  return m;
}

}  // namespace

TEST_CASE("stuffed: every line sums to the largest - and no cell shrinks") {
  int runs = 0;
  for (Rank p = 1; p <= 20; ++p) {
    const SquareMatrix m = random_matrix(p, p);
    const SquareMatrix s = stuffed(m);
    const std::uint64_t target = largest_line_sum(m);
    for (Rank r = 0; r < p; ++r) {
      std::uint64_t row = 0, column = 0;
      for (Rank x = 0; x < p; ++x) {
        row += s.at(r, x);
        column += s.at(x, r);
        CHECK(s.at(r, x) >= m.at(r, x));
      }
      CHECK(row == target);
      CHECK(column == target);
    }
    ++runs;
  }
  CHECK(runs == 20);
}

TEST_CASE("Peeler: permutations summing to the stuffed matrix - weights summing to its line sum") {
  int runs = 0;
  for (Rank p = 1; p <= 24; p += 1 + p / 4) {
    const SquareMatrix s = stuffed(random_matrix(p, 100 + p));
    Peeler peeler(s);
    SquareMatrix rebuilt{p, std::vector<std::uint64_t>(std::size_t{p} * p, 0)};
    std::uint64_t weights = 0, count = 0;
    while (const auto w = peeler.next()) {
      std::vector<bool> hit(p, false);
      for (Rank r = 0; r < p; ++r) {
        REQUIRE(w->receiver[r] < p);
        CHECK_FALSE(hit[w->receiver[r]]);
        hit[w->receiver[r]] = true;
        rebuilt.at(r, w->receiver[r]) += w->weight;
      }
      CHECK(w->weight > 0);
      weights += w->weight;
      ++count;
    }
    CHECK(rebuilt == s);
    CHECK(weights == largest_line_sum(s));
    CHECK(count <= weights);
    CHECK(largest_line_sum(peeler.rest()) == 0);
    ++runs;
  }
  CHECK(runs > 5);
}

TEST_CASE("Peeler: a matrix whose line sums differ is an internal error - not a wrong answer") {
  SquareMatrix m{2, {1, 0, 0, 0}};
  Peeler peeler(m);
  CHECK_THROWS_AS(peeler.next(), std::logic_error);
}
