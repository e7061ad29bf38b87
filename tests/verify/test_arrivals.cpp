#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "verify/arrivals.hpp"

using namespace phasecheck;
using phasecheck::verify::detail::Arrivals;

TEST_CASE("arrivals: runs merge from either side and answer membership and ranges") {
  Arrivals a(2, 10, "test");
  for (std::uint32_t x : {3u, 5u, 4u, 9u, 0u}) CHECK(a.insert(1, x));
  CHECK_FALSE(a.insert(1, 4));  // a duplicate
  CHECK(a.size(1) == 5);
  CHECK(a.size(0) == 0);
  CHECK(a.contains(1, 3));
  CHECK(a.contains(1, 5));
  CHECK_FALSE(a.contains(1, 6));
  CHECK_FALSE(a.contains(0, 3));
  CHECK(a.contains_all(1, 3, 6));
  CHECK_FALSE(a.contains_all(1, 2, 6));
  CHECK_FALSE(a.contains_all(1, 3, 7));
  CHECK(a.first_missing(1, 0, 0) == 1);
  CHECK(a.first_missing(1, 1, 3) == 6);  // 1 and 2 skipped, 3-5 there
  CHECK(a.first_missing(0, 0, 1) == 1);
  for (std::uint32_t x = 0; x < 10; ++x) a.insert(0, x);
  CHECK(a.first_missing(0, 0, 0) == 10);  // none missing: `items`
}

TEST_CASE("arrivals: a scattered order becomes a bitset with the same answers") {
  // 200 items: a bitset is 4 words, so a fifth run turns the set into bits. Random insertions
  // against std::set as the reference, in both representations.
  std::mt19937 rng(7);
  Arrivals a(1, 200, "test");
  std::set<std::uint32_t> reference;
  std::uniform_int_distribution<std::uint32_t> item(0, 199);
  for (int i = 0; i < 400; ++i) {
    const std::uint32_t x = item(rng);
    CHECK(a.insert(0, x) == reference.insert(x).second);
    const std::uint32_t y = item(rng);
    CHECK(a.contains(0, y) == reference.contains(y));
  }
  CHECK(a.size(0) == reference.size());
  std::uint32_t expected = 200;
  for (std::uint32_t x = 0; x < 200; ++x)
    if (!reference.contains(x) && (x < 50 || x >= 60)) {
      expected = x;
      break;
    }
  CHECK(a.first_missing(0, 50, 60) == expected);
  CHECK(a.bytes() <= Arrivals::base_bytes(1) + 4 * 8);  // one bitset of 4 words, runs freed
}

TEST_CASE("arrivals: growth past the memory limit is refused before the allocation") {
  const Limits saved = limits();
  Limits l = saved;
  l.max_memory_bytes = Arrivals::base_bytes(1) + 64;  // room for 8 runs of 8 bytes
  set_limits(l);
  Arrivals a(1, 1u << 20, "checking delivery on 1048576 ranks");
  for (std::uint32_t x = 0; x < 16; x += 2) CHECK(a.insert(0, x));  // 8 runs fit
  CHECK_THROWS_WITH_AS(a.insert(0, 100), doctest::Contains("checking delivery on 1048576 ranks"),
                       InputError);
  set_limits(saved);
}

TEST_CASE("arrivals: runs past the inline ones move to the heap and keep merging") {
  // 4096 items: a bitset is 64 words, so up to 64 runs stay runs. Every other item first (runs
  // of one, past the kInline kept in the set itself), then the gaps in a scattered order, which
  // merges runs on the heap two at a time; std::set is the reference throughout.
  Arrivals a(1, 4096, "test");
  std::set<std::uint32_t> reference;
  const auto insert = [&](std::uint32_t x) {
    CHECK(a.insert(0, x) == reference.insert(x).second);
  };
  for (std::uint32_t x = 0; x < 80; x += 2) insert(x);
  CHECK(a.bytes() > Arrivals::base_bytes(1));  // 40 runs: spilled to the heap
  CHECK(a.bytes() <= Arrivals::base_bytes(1) + 64 * 8);  // never more than the bitset
  for (std::uint32_t x = 0; x < 80; x += 2) CHECK_FALSE(a.insert(0, x));
  for (std::uint32_t k = 0; k < 40; ++k) {
    insert((k * 17 % 40) * 2 + 1);  // the gaps 1, 35, 69, 23, ... in turn
    for (std::uint32_t y = 0; y < 82; ++y) CHECK(a.contains(0, y) == reference.contains(y));
  }
  CHECK(a.size(0) == 80);
  CHECK(a.contains_all(0, 0, 80));
  CHECK_FALSE(a.contains_all(0, 0, 81));
  CHECK(a.first_missing(0, 0, 0) == 80);
  CHECK(a.first_missing(0, 80, 100) == 100);
}

TEST_CASE("arrivals: sweeps up and down through the tail answer as std::set does") {
  // Sweeps of consecutive items, ascending or descending, from random starts: arrivals extend the
  // tail at either end, meet a neighbouring run (the tail goes back into the set and the merged
  // run comes out), repeat items (duplicates, in the tail or in the set), and in the end spill
  // to the heap and to bits. Every answer against std::set after every sweep. Rank 599 of 600:
  // its tail is at a mixed slot past the last rank (tails come in whole blocks of 256).
  const std::uint32_t items = 600;
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    CAPTURE(seed);
    std::mt19937 engine(seed);
    const auto rng = [&engine] { return static_cast<std::uint32_t>(engine()); };
    Arrivals a(600, items, "test");
    const std::uint32_t r = 599;
    std::set<std::uint32_t> reference;
    std::uint64_t checked = 0;
    for (int sweep = 0; sweep < 40; ++sweep) {
      const std::uint32_t start = rng() % items, length = 1 + rng() % 40;
      const bool up = rng() % 2 == 0;
      for (std::uint32_t k = 0; k < length; ++k) {
        const std::int64_t x = up ? std::int64_t{start} + k : std::int64_t{start} - k;
        if (x < 0 || x >= items) break;
        const auto item = static_cast<std::uint32_t>(x);
        REQUIRE(a.insert(r, item) == reference.insert(item).second);
        ++checked;
      }
      REQUIRE(a.size(r) == reference.size());
      for (std::uint32_t y = 0; y < items; ++y) REQUIRE(a.contains(r, y) == reference.contains(y));
      const std::uint32_t lo = rng() % items, hi = std::min(items, lo + 1 + rng() % 30);
      bool all = true;
      for (std::uint32_t y = lo; y < hi && all; ++y) all = reference.contains(y);
      CHECK(a.contains_all(r, lo, hi) == all);
      std::uint32_t missing = items;
      for (std::uint32_t y = 0; y < items; ++y)
        if (!reference.contains(y) && (y < lo || y >= hi)) {
          missing = y;
          break;
        }
      CHECK(a.first_missing(r, lo, hi) == missing);
      CHECK(a.size(0) == 0);
      CHECK(a.size(598) == 0);
    }
    CHECK(checked > 100);  // the sweeps ran
  }
}
