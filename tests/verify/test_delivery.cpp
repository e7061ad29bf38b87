#include <doctest/doctest.h>

#include "helpers.hpp"
#include "verify/delivery.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;
using testing::phase;
using testing::T;

namespace {

CheckResult run(Collective c, Rank p, std::initializer_list<Phase> phases) {
  DeliveryChecker d(c, p);
  std::size_t i = 0;
  for (const Phase& ph : phases) d.consume(i++, ph);
  return d.finish();
}

}  // namespace

TEST_CASE("delivery: a direct alltoall over three ranks passes") {
  const auto r = run(Collective::alltoall, 3,
                     {phase("a", {{0, 1}, {1, 2}, {2, 0}}), phase("b", {{0, 2}, {1, 0}, {2, 1}})});
  CHECK(r.verdict == Verdict::pass);
  CHECK(r.summary == "every block reaches every rank that needs it exactly once (6 deliveries)");
}

TEST_CASE("delivery: a missing message is named") {
  const auto r = run(Collective::alltoall, 3,
                     {phase("a", {{0, 1}, {1, 2}, {2, 0}}), phase("b", {{0, 2}, {2, 1}})});
  CHECK(r.verdict == Verdict::fail);
  CHECK(r.summary == "1 of 6 deliveries never happen");
  REQUIRE(r.counterexample);
  CHECK_FALSE(r.counterexample->phase);
  CHECK(r.counterexample->explanation == "block [1,0] never reaches rank 0");
}

TEST_CASE("delivery: a message sent twice is caught at its second arrival") {
  const auto r = run(Collective::alltoall, 2, {phase("a", {{0, 1}, {1, 0}}), phase("b", {{0, 1}})});
  CHECK(r.verdict == Verdict::fail);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->phase == 1);
  CHECK(r.counterexample->explanation ==
        "block [0,1] arrives at rank 1 again in phase 1 (it arrived there in an earlier phase)");
  REQUIRE(r.counterexample->transfers.size() == 1);
  CHECK(r.counterexample->transfers[0] == OffendingTransfer{0, 1, {{0, 1}}, {}});
}

TEST_CASE("delivery: two arrivals in one phase name both transfers") {
  const auto r =
      run(Collective::alltoall, 3,
          {phase("a", {{0, 1, {{0, 1}, {0, 2}}}}), phase("b", {{0, 2}, {1, 2, {{0, 2}}}})});
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->phase == 1);
  CHECK(r.counterexample->explanation == "block [0,2] arrives at rank 2 twice in phase 1");
  CHECK(r.counterexample->transfers ==
        std::vector<OffendingTransfer>{{0, 2, {{0, 2}}, {}}, {1, 2, {{0, 2}}, {}}});
}

TEST_CASE("delivery: a duplicate among a phase's direct messages names both transfers") {
  // Every block carried by its origin straight to its destination.
  SUBCASE("two transfers of one message in one phase") {
    const auto r = run(Collective::alltoall, 3, {phase("a", {{0, 1}, {2, 0}, {0, 1}})});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->phase == 0);
    CHECK(r.counterexample->explanation == "block [0,1] arrives at rank 1 twice in phase 0");
    CHECK(r.counterexample->transfers ==
          std::vector<OffendingTransfer>{{0, 1, {{0, 1}}, {}}, {0, 1, {{0, 1}}, {}}});
  }
  SUBCASE("one transfer carrying its message twice") {
    const auto r = run(Collective::alltoall, 2, {phase("a", {{0, 1, {{0, 1}, {0, 1}}}})});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->explanation == "block [0,1] arrives at rank 1 twice in phase 0");
    CHECK(r.counterexample->transfers.size() == 2);
    CHECK(r.summary == "1 invalid or duplicate deliveries; 1 of 2 deliveries never happen");
  }
  SUBCASE("an allgather block reaching one rank twice, the first duplicate named") {
    const auto r = run(Collective::allgather, 3,
                       {phase("a", {{0, 1, {{0, kEveryRank}}}, {2, 1, {{2, kEveryRank}}},
                                    {2, 1, {{2, kEveryRank}}}, {0, 1, {{0, kEveryRank}}}})});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->explanation == "block [2] arrives at rank 1 twice in phase 0");
    CHECK(r.summary.starts_with("2 invalid or duplicate deliveries"));
  }
}

TEST_CASE("delivery: sending a block one does not hold") {
  const auto r = run(Collective::alltoall, 3, {phase("a", {{0, 2}, {1, 2, {{0, 2}}}})});
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->explanation ==
        "rank 1 sends block [0,2] in phase 0 but does not hold it");
  CHECK(r.counterexample->resource == "rank 1");
}

TEST_CASE("delivery: forwarding through an intermediate rank") {
  SUBCASE("from the next phase on, the relay holds the block") {
    const auto r = run(Collective::alltoall, 3,
                       {phase("a", {{0, 1, {{0, 1}, {0, 2}}}, {1, 2}, {2, 0}, {2, 1}, {1, 0}}),
                        phase("b", {{1, 2, {{0, 2}}}})});
    CHECK(r.verdict == Verdict::pass);
  }
  SUBCASE("in the same phase it arrives, it cannot be forwarded yet") {
    const auto r = run(Collective::alltoall, 3,
                       {phase("a", {{0, 1, {{0, 1}, {0, 2}}}, {1, 2, {{1, 2}, {0, 2}}}})});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->phase == 0);
    CHECK(r.counterexample->explanation ==
          "rank 1 sends block [0,2] in phase 0 but does not hold it yet (it arrives there in this "
          "same phase; it can be forwarded from the next phase on)");
    REQUIRE(r.counterexample->transfers.size() == 1);
    CHECK(r.counterexample->transfers[0] == OffendingTransfer{1, 2, {{1, 2}, {0, 2}}, {}});
  }
  SUBCASE("sent to the wrong intermediate rank, it is held by nobody useful") {
    const auto r = run(Collective::alltoall, 4,
                       {phase("a", {{0, 3, {{0, 1}}}}), phase("b", {{2, 1, {{0, 1}}}})});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->explanation ==
          "rank 2 sends block [0,1] in phase 1 but does not hold it");
  }
}

TEST_CASE("delivery: senders keep copies, so a block can be sent on twice from one holder") {
  // 0 gives [0,2] and [0,3] to 1; 1 forwards each to its destination in later phases.
  const auto r = run(Collective::alltoall, 4,
                     {phase("a", {{0, 1, {{0, 1}, {0, 2}, {0, 3}}}}),
                      phase("b", {{1, 2, {{0, 2}}}}), phase("c", {{1, 3, {{0, 3}}}})});
  CHECK(r.verdict == Verdict::fail);  // only rank 0's messages moved
  CHECK(r.summary == "9 of 12 deliveries never happen");
}

TEST_CASE("delivery: local copies are free and deliver nothing new") {
  const auto r = run(Collective::alltoall, 2, {phase("a", {{0, 0}, {1, 1}, {0, 1}, {1, 0}})});
  CHECK(r.verdict == Verdict::pass);
}

TEST_CASE("delivery: allgather needs every block at every rank") {
  const Collective c = Collective::allgather;
  SUBCASE("recursive doubling on four ranks") {
    const auto r = run(c, 4,
                       {phase("a", {{0, 1}, {1, 0}, {2, 3}, {3, 2}}, c),
                        phase("b",
                              {{0, 2, {{0, kEveryRank}, {1, kEveryRank}}},
                               {2, 0, {{2, kEveryRank}, {3, kEveryRank}}},
                               {1, 3, {{0, kEveryRank}, {1, kEveryRank}}},
                               {3, 1, {{2, kEveryRank}, {3, kEveryRank}}}},
                              c)});
    CHECK(r.verdict == Verdict::pass);
  }
  SUBCASE("a block sent back to its origin is a duplicate") {
    const auto r =
        run(c, 2, {phase("a", {{0, 1}, {1, 0}}, c), phase("b", {{1, 0, {{0, kEveryRank}}}}, c)});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->explanation ==
          "block [0] is sent back to rank 0, which has held it from the start");
  }
  SUBCASE("missing") {
    const auto r = run(c, 3, {phase("a", {{0, 1}, {1, 2}, {2, 0}}, c)});
    CHECK(r.summary == "3 of 6 deliveries never happen");
    CHECK(r.counterexample->explanation == "block [0] never reaches rank 2");
  }
}

TEST_CASE("delivery: the data view answers holds and delivered between phases") {
  DeliveryChecker d(Collective::alltoall, 3);
  d.consume(0, phase("a", {{0, 1, {{0, 2}}}}));
  CHECK(d.holds(1, {0, 2}));
  CHECK(d.holds(0, {0, 2}));
  CHECK_FALSE(d.holds(2, {0, 2}));
  CHECK_FALSE(d.delivered(0, 2));
  d.consume(1, phase("b", {{1, 2, {{0, 2}}}}));
  CHECK(d.delivered(0, 2));
  CHECK(d.delivered(1, 1));
}

TEST_CASE("delivery: a block forwarded on from an older copy, not the latest") {
  // [0,4] travels 0 -> 1 -> 2 -> 3; then 1, which kept its copy from phase a, sends it to 4.
  // Rank 1's copy is no longer the latest, so the checker must remember older copies too.
  DeliveryChecker d(Collective::alltoall, 5);
  d.consume(0, phase("a", {{0, 1, {{0, 4}}}}));
  d.consume(1, phase("b", {{1, 2, {{0, 4}}}}));
  d.consume(2, phase("c", {{2, 3, {{0, 4}}}}));
  CHECK(d.holds(1, {0, 4}));
  CHECK(d.holds(2, {0, 4}));
  CHECK(d.holds(3, {0, 4}));
  CHECK_FALSE(d.holds(4, {0, 4}));
  d.consume(3, phase("d", {{1, 4, {{0, 4}}}, {2, 1, {{0, 4}}}}));  // 2 -> 1: a copy again
  CHECK(d.delivered(0, 4));
  CHECK(d.holds(1, {0, 4}));
  const auto r = d.finish();
  CHECK(r.summary == "19 of 20 deliveries never happen");
  CHECK(r.verdict == Verdict::fail);
  CHECK_FALSE(r.counterexample->phase);  // no invalid transfer, only missing deliveries
}

TEST_CASE("delivery: a block forwarded in the phase it arrives is named as such") {
  const auto r = run(Collective::alltoall, 3, {phase("a", {{0, 1, {{0, 2}}}, {1, 2, {{0, 2}}}})});
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->explanation ==
        "rank 1 sends block [0,2] in phase 0 but does not hold it yet (it arrives there in this "
        "same phase; it can be forwarded from the next phase on)");
}

TEST_CASE("delivery: the data view answers no for ranks and blocks outside the schedule") {
  DeliveryChecker d(Collective::alltoall, 3);
  CHECK_FALSE(d.holds(7, {0, 1}));
  CHECK_FALSE(d.holds(0, {7, 1}));
  CHECK_FALSE(d.holds(0, {0, kEveryRank}));
  CHECK_FALSE(d.delivered(0, 3));
  CHECK_FALSE(d.delivered(3, 3));
  CHECK(d.delivered_count(3) == 0);
}

TEST_CASE("delivery: an allgather whose contributions are cut into parts (format 4)") {
  // Every contribution in 2 parts over 3 ranks: rank o sends [o] and [o, null, 1] to the others.
  const auto allgather = [](bool drop_one) {
    Phase p("everyone");
    for (Rank o = 0; o < 3; ++o)
      for (Rank d = 0; d < 3; ++d) {
        if (o == d) continue;
        std::vector<Block> blocks{{o, kEveryRank, 0}};
        if (!(drop_one && o == 2 && d == 0)) blocks.push_back({o, kEveryRank, 1});
        p.add(o, d, blocks);
      }
    DeliveryChecker checker(Collective::allgather, 3, 2);
    checker.consume(0, p);
    return checker.finish();
  };
  const CheckResult ok = allgather(false);
  CHECK(ok.verdict == Verdict::pass);
  CHECK(ok.summary == "every block reaches every rank that needs it exactly once (12 deliveries)");
  const CheckResult missing = allgather(true);
  CHECK(missing.verdict == Verdict::fail);
  CHECK(missing.summary == "1 of 12 deliveries never happen");
  REQUIRE(missing.counterexample);
  CHECK(missing.counterexample->explanation == "block [2,null,1] never reaches rank 0");
}
