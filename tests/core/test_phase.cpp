// Phase's bulk append against its one-at-a-time form.

#include <doctest/doctest.h>

#include <array>
#include <vector>

#include "core/schedule.hpp"

using namespace phasecheck;

TEST_CASE("phase: add_direct appends what add() of each direct message does") {
  for (const Collective c : {Collective::alltoall, Collective::allgather}) {
    CAPTURE(static_cast<int>(c));
    const std::vector<DirectTransfer> pairs{{0, 1}, {3, 2}, {2, 2}, {1, 0}};
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

TEST_CASE("phase: carries_own_messages follows every change of the transfers") {
  Phase p("p");
  CHECK(p.carries_own_messages(Collective::alltoall));  // nothing carried: nothing wrong
  CHECK(p.carries_own_messages(Collective::allgather));
  p.add(2, 3, Block{2, 3, 0});
  CHECK(p.carries_own_messages(Collective::alltoall));
  CHECK_FALSE(p.carries_own_messages(Collective::allgather));
  p.add(4, 4, Block{4, 4, 0});  // a local copy of its own message
  CHECK(p.carries_own_messages(Collective::alltoall));

  SUBCASE("another rank's block") { p.add(1, 3, Block{2, 3, 0}); }
  SUBCASE("addressed elsewhere") { p.add(2, 5, Block{2, 3, 0}); }
  SUBCASE("a later part") { p.add(2, 3, Block{2, 3, 1}); }
  SUBCASE("two blocks in one transfer") {
    const std::array<Block, 2> two{Block{1, 0, 0}, Block{1, 0, 0}};
    p.add(1, 0, two);
  }
  SUBCASE("past the capacity, through the out-of-line add") {
    for (Rank r = 0; r < 100; ++r) p.add(r, r + 1, Block{r, r + 1, 0});
    REQUIRE(p.carries_own_messages(Collective::alltoall));
    p.add(0, 1, Block{0, 2, 0});
  }
  CHECK_FALSE(p.carries_own_messages(Collective::alltoall));
  CHECK_FALSE(p.carries_own_messages(Collective::allgather));
  p.clear_transfers();
  CHECK(p.carries_own_messages(Collective::alltoall));
  p.add(0, 1, Block{0, 1, 1});
  CHECK_FALSE(p.carries_own_messages(Collective::alltoall));
  p.clear();
  CHECK(p.carries_own_messages(Collective::alltoall));
  CHECK(p.carries_own_messages(Collective::allgather));
}

TEST_CASE("phase: most_rank follows every change of the transfers") {
  Phase p("p");
  CHECK(p.most_rank() == 0);
  p.add(2, 7, Block{2, 7, 0});
  CHECK(p.most_rank() == 7);
  p.add(9, 1, Block{9, 1, 0});
  CHECK(p.most_rank() == 9);
  const std::array<Block, 2> two{Block{1, 0, 0}, Block{1, 4, 0}};
  p.add(11, 0, two);  // the out-of-line add
  CHECK(p.most_rank() == 11);
  const std::vector<DirectTransfer> pairs{{3, 12}, {5, 4}};
  p.add_direct(pairs, Collective::alltoall);
  CHECK(p.most_rank() == 12);
  for (Rank r = 0; r < 100; ++r) p.add(r, 20, Block{r, 20, 0});  // past the capacity
  CHECK(p.most_rank() == 99);
  p.clear_transfers();
  CHECK(p.most_rank() == 0);
  p.add_direct(pairs, Collective::allgather);
  CHECK(p.most_rank() == 12);
  p.clear();
  CHECK(p.most_rank() == 0);
}

TEST_CASE("phase: a label from a prefix and a number") {
  std::string label = "a much longer label than the small-string buffer holds";
  numbered_label(label, "phase ", 0);
  CHECK(label == "phase 0");
  numbered_label(label, "phase ", 2080767);
  CHECK(label == "phase 2080767");
  numbered_label(label, "", 18446744073709551615u);
  CHECK(label == "18446744073709551615");
}

TEST_CASE("phase: a direct phase fills the Phase add_direct builds") {
  const std::vector<DirectTransfer> pairs{{0, 1}, {3, 2}, {2, 2}};
  for (const Collective c : {Collective::alltoall, Collective::allgather}) {
    Phase built("phase 7");
    built.add_direct(pairs, c);
    Phase filled("an earlier phase's label");
    filled.add(5, 6, Block{5, 6});
    DirectPhase{"phase 7", c, pairs}.fill(filled);
    CHECK(filled == built);
    CHECK(filled.carries_own_messages(c));
    CHECK(filled.most_rank() == 3);
  }
}

TEST_CASE("phase: add_direct keeps carries_own_messages for its collective only") {
  const std::vector<DirectTransfer> pairs{{0, 1}, {3, 2}};
  Phase a, g;
  a.add_direct(pairs, Collective::alltoall);
  g.add_direct(pairs, Collective::allgather);
  CHECK(a.carries_own_messages(Collective::alltoall));
  CHECK_FALSE(a.carries_own_messages(Collective::allgather));
  CHECK(g.carries_own_messages(Collective::allgather));
  CHECK_FALSE(g.carries_own_messages(Collective::alltoall));
  g.add(1, 2, Block{1, 2, 0});  // an alltoall block in an allgather phase
  CHECK_FALSE(g.carries_own_messages(Collective::allgather));
}

TEST_CASE("phase: a phase of own messages is judged well-formed by its ranks alone") {
  for (const Collective c : {Collective::alltoall, Collective::allgather}) {
    CAPTURE(static_cast<int>(c));
    Phase p;
    const std::vector<DirectTransfer> pairs{{0, 1}, {3, 2}, {2, 2}};
    p.add_direct(pairs, c);
    REQUIRE(p.carries_own_messages(c));
    CHECK(transfers_well_formed(p, c, 4));
    CHECK_FALSE(transfers_well_formed(p, c, 3));  // rank 3 does not exist
    const std::vector<DirectTransfer> beyond{{1, 9}};
    p.add_direct(beyond, c);
    CHECK_FALSE(transfers_well_formed(p, c, 4));  // nor rank 9
    REQUIRE(transfer_problem(p, p[3], c, 4).has_value());
    CHECK(*transfer_problem(p, p[3], c, 4) == "rank 9 does not exist (ranks: 4)");
  }
}
