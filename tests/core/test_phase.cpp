// Phase's bulk append against its one-at-a-time form.

#include <doctest/doctest.h>

#include <array>
#include <vector>

#include "core/schedule.hpp"

using namespace phasecheck;

TEST_CASE("phase: add_direct appends what add() of each direct message does") {
  for (const Collective c : {Collective::alltoall, Collective::allgather}) {
    CAPTURE(static_cast<int>(c));
    const std::vector<std::array<Rank, 2>> pairs{{0, 1}, {3, 2}, {2, 2}, {1, 0}};
    Phase one_by_one("p"), bulk("p");
    one_by_one.add(5, 6, Block{5, 6, 0});  // after what is there already
    bulk.add(5, 6, Block{5, 6, 0});
    for (const auto& [src, dst] : pairs) one_by_one.add(src, dst, direct_block(c, src, dst));
    bulk.add_direct(pairs, c);
    CHECK(bulk == one_by_one);
    REQUIRE(bulk.size() == 5);
    CHECK(bulk[2].first_block == 2);
    CHECK(bulk.blocks(bulk[4])[0] == direct_block(c, 1, 0));
    bulk.add_direct({}, c);  // nothing to add
    CHECK(bulk == one_by_one);
  }
}
