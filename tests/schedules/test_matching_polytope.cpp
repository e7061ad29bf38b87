#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>

#include "schedules/matching_polytope.hpp"

using namespace phasecheck::schedules;

namespace {

/// The heaviest matching by trying every one (n <= 8): node x unmatched, or with a later one.
std::int64_t heaviest(std::uint32_t n, const std::vector<std::int64_t>& w, std::uint32_t x,
                      std::uint32_t used) {
  while (x < n && (used >> x & 1)) ++x;
  if (x == n) return 0;
  std::int64_t best = heaviest(n, w, x + 1, used | 1u << x);
  for (std::uint32_t y = x + 1; y < n; ++y)
    if (!(used >> y & 1) && w[x * n + y] > 0)
      best = std::max(best, w[x * n + y] + heaviest(n, w, x + 1, used | 1u << x | 1u << y));
  return best;
}

}  // namespace

TEST_CASE("max_weight_matching: as heavy as the heaviest of every matching, and a matching") {
  std::mt19937 random(7);
  for (int trial = 0; trial < 300; ++trial) {
    const auto n = static_cast<std::uint32_t>(1 + random() % 8);
    std::vector<std::int64_t> w(n * n, 0);
    std::vector<WeightedPair> pairs;
    for (std::uint32_t x = 0; x < n; ++x)
      for (std::uint32_t y = x + 1; y < n; ++y)
        if (random() % 3 != 0) {
          // Few distinct weights: many matchings of equal weight, the case that breaks some codes.
          w[x * n + y] = 1 + random() % (trial % 2 ? 3 : 1000);
          pairs.push_back({x, y, w[x * n + y]});
        }
    const std::vector<std::uint32_t> mate = max_weight_matching(n, pairs);
    REQUIRE(mate.size() == n);
    std::int64_t weight = 0;
    for (std::uint32_t x = 0; x < n; ++x) {
      CHECK(mate[mate[x]] == x);
      if (x < mate[x]) {
        CHECK(w[x * n + mate[x]] > 0);
        weight += w[x * n + mate[x]];
      }
    }
    INFO("trial " << trial << ", " << n << " nodes");
    CHECK(weight == heaviest(n, w, 0, 0));
  }
}

TEST_CASE("min_odd_cut: the least cut(S) + spare(S) over every odd set S") {
  std::mt19937 random(11);
  for (int trial = 0; trial < 300; ++trial) {
    const auto n = static_cast<std::uint32_t>(1 + random() % 9);
    std::vector<std::uint64_t> capacity(n * n, 0), spare(n);
    for (std::uint32_t x = 0; x < n; ++x) {
      spare[x] = random() % 6;
      for (std::uint32_t y = x + 1; y < n; ++y)
        capacity[x * n + y] = capacity[y * n + x] = random() % 2 ? random() % 7 : 0;
    }
    const auto value_of = [&](std::uint32_t set) {
      std::uint64_t v = 0;
      for (std::uint32_t x = 0; x < n; ++x) {
        if (!(set >> x & 1)) continue;
        v += spare[x];
        for (std::uint32_t y = 0; y < n; ++y)
          if (!(set >> y & 1)) v += capacity[x * n + y];
      }
      return v;
    };
    std::uint64_t least = ~0ull;
    for (std::uint32_t set = 1; set < (1u << n); ++set)
      if (std::popcount(set) % 2 == 1) least = std::min(least, value_of(set));
    const OddCut cut = min_odd_cut(n, capacity, spare);
    INFO("trial " << trial << ", " << n << " nodes");
    CHECK(cut.value == least);
    REQUIRE(cut.set.size() % 2 == 1);
    std::uint32_t set = 0;
    for (const std::uint32_t x : cut.set) set |= 1u << x;
    CHECK(value_of(set) == cut.value);
  }
}

TEST_CASE("min_odd_cut: a triangle of m parallel edges a side needs 3m colours, not 3m - 1") {
  // Three nodes, m exchanges between each two: degree 2m, but the three of them hold one pair a
  // phase, so t phases hold them only when t >= 3m. With spare t - 2m each, the odd set of all
  // three has cut 0 + 3 (t - 2m), below t exactly when t < 3m.
  const std::uint64_t m = 5;
  const std::vector<std::uint64_t> capacity{0, m, m, m, 0, m, m, m, 0};
  const std::vector<std::uint64_t> short_by_one(3, m - 1);  // t = 3m - 1
  const OddCut cut = min_odd_cut(3, capacity, short_by_one);
  CHECK(cut.set == std::vector<std::uint32_t>{0, 1, 2});
  CHECK(cut.value == 3 * (m - 1));  // < t = 3m - 1
  // With t = 3m every odd set has room: each single node and the three together come to t.
  CHECK(min_odd_cut(3, capacity, std::vector<std::uint64_t>(3, m)).value == 3 * m);
}
