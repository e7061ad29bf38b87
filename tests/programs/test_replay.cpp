// The replay checker on programs written by hand, operation by operation, so that each of its
// three proofs (completion, the table realized, contending messages ordered in time) and each of
// its refusals is seen on the smallest case that shows it: no program generator in between.

#include <doctest/doctest.h>

#include "helpers.hpp"
#include "programs/replay.hpp"

using namespace phasecheck;
using namespace phasecheck::programs;

namespace {

using K = Op::Kind;

Op send(Rank peer, std::uint32_t phase, std::uint32_t transfer = 0) {
  return {K::send, peer, phase, transfer, 1};
}
Op recv(Rank peer, std::uint32_t phase, std::uint32_t transfer = 0) {
  return {K::recv, peer, phase, transfer, 1};
}
Op wait(std::uint32_t phase) { return {K::wait, 0, phase, 0, 0}; }
Op barrier(std::uint32_t phase) { return {K::barrier, 0, phase, 0, 0}; }
Op sync_send(Rank peer, std::uint32_t phase) { return {K::sync_send, peer, phase, 0, 0}; }
Op sync_recv(Rank peer, std::uint32_t phase) { return {K::sync_recv, peer, phase, 0, 0}; }

std::vector<RankProgram> by_rank(std::vector<std::vector<Op>> ops) {
  std::vector<RankProgram> out;
  for (Rank r = 0; r < ops.size(); ++r) out.push_back({r, std::move(ops[r])});
  return out;
}

/// A star: hosts a, b, c (ranks 0, 1, 2) on one switch s. 0 -> 2 and 1 -> 2 share the link
/// s -> c.
Tree star() { return Tree({"a", "b", "c"}, {"s"}, {{"a", "s"}, {"b", "s"}, {"c", "s"}}); }

/// 0 -> 2 in phase 0, 1 -> 2 in phase 1, on the star: two messages on one link.
Schedule into_c() {
  return {testing::header(star()),
          {testing::phase("first", {{0, 2}}), testing::phase("second", {{1, 2}})}};
}

/// A chain on 3 fully connected ranks: 0 -> 1 in phase 0, 1 -> 2 in phase 1.
Schedule chain() {
  return {testing::header(FullyConnected(3, 1)),
          {testing::phase("p0", {{0, 1}}), testing::phase("p1", {{1, 2}})}};
}

}  // namespace

TEST_CASE("replay: one program per rank, or the count is the failure") {
  const Schedule s = chain();
  const CheckResult r = replay(s, s.header.topology, by_rank({{}, {}}));
  CHECK(r.id == CheckId::replay);
  CHECK(r.verdict == Verdict::fail);
  CHECK(r.summary == "there are 2 programs for 3 ranks");
}

TEST_CASE("replay: sends and receives match in either order, and an unrouted model is not timed") {
  const Schedule s = chain();
  // Rank 1 posts its receive before rank 0 has run, and rank 2 before rank 1 sends: each match
  // is made by the later post, from either side.
  const auto r = replay(s, s.header.topology,
                        by_rank({{send(1, 0), wait(0)},
                                 {recv(0, 0), wait(0), send(2, 1), wait(1)},
                                 {recv(1, 1), wait(1)}}));
  CHECK(r.verdict == Verdict::pass);
  CHECK(r.summary ==
        "3 programs run to completion and exchange each of the 2 messages once, in its phase; "
        "fully-connected(p=3, k=1) does not route, so time ordering is not checked");
  CHECK_FALSE(r.counterexample);
}

TEST_CASE("replay: a post the table does not have is refused, naming rank, pair and phase") {
  const Schedule s = chain();
  SUBCASE("a phase beyond the table") {
    const auto r =
        replay(s, s.header.topology, by_rank({{send(1, 0), wait(0)}, {recv(0, 5), wait(5)}, {}}));
    CHECK(r.verdict == Verdict::fail);
    CHECK(r.summary == "a program does not follow the table");
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->phase == 5);
    CHECK(r.counterexample->resource == "rank 1");
    CHECK(r.counterexample->explanation ==
          "rank 1's program has a recv 0 -> 1 in phase 5 that the table does not have");
  }
  SUBCASE("the right phase, the wrong direction") {
    const auto r = replay(s, s.header.topology, by_rank({{recv(1, 0), wait(0)}, {}, {}}));
    CHECK(r.verdict == Verdict::fail);
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->explanation ==
          "rank 0's program has a recv 1 -> 0 in phase 0 that the table does not have");
  }
  SUBCASE("a local transfer is no message") {
    Schedule local = s;
    local.phases[0] = testing::phase("p0", {{0, 1}, {2, 2}});
    const auto r =
        replay(local, local.header.topology,
               by_rank({{send(1, 0), wait(0)}, {recv(0, 0), wait(0)}, {send(2, 0, 1), wait(0)}}));
    CHECK(r.verdict == Verdict::fail);
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->explanation ==
          "rank 2's program has a send 2 -> 2 in phase 0 that the table does not have");
  }
}

TEST_CASE("replay: posts of one pair and phase match first in, first out") {
  // Two messages 0 -> 1 in one phase: the receiver posts them in the other order.
  const Schedule s{testing::header(FullyConnected(2, 1)),
                   {testing::phase("p0", {{0, 1}, {0, 1, {Block{0, 1}}}})}};
  const auto in_order = replay(
      s, s.header.topology,
      by_rank({{send(1, 0, 0), send(1, 0, 1), wait(0)}, {recv(0, 0, 0), recv(0, 0, 1), wait(0)}}));
  CHECK(in_order.verdict == Verdict::pass);
  const auto crossed = replay(
      s, s.header.topology,
      by_rank({{send(1, 0, 0), send(1, 0, 1), wait(0)}, {recv(0, 0, 1), recv(0, 0, 0), wait(0)}}));
  CHECK(crossed.verdict == Verdict::fail);
  CHECK(crossed.summary == "sends and receives are matched out of order");
  REQUIRE(crossed.counterexample);
  CHECK(crossed.counterexample->explanation ==
        "the posts of 0 -> 1 in phase 0 match different transfers of the table");
}

TEST_CASE("replay: every message of the table is exchanged exactly once") {
  const Schedule s = chain();
  SUBCASE("a message the programs leave out") {
    const auto r =
        replay(s, s.header.topology, by_rank({{send(1, 0), wait(0)}, {recv(0, 0), wait(0)}, {}}));
    CHECK(r.verdict == Verdict::fail);
    CHECK(r.summary == "the programs do not realize the table");
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->phase == 1);
    CHECK(r.counterexample->explanation ==
          "the message 1 -> 2 of phase 1 is exchanged 0 times by the programs");
  }
  SUBCASE("a message exchanged twice") {
    const auto r = replay(s, s.header.topology,
                          by_rank({{send(1, 0), send(1, 0), wait(0)},
                                   {recv(0, 0), recv(0, 0), wait(0), send(2, 1), wait(1)},
                                   {recv(1, 1), wait(1)}}));
    CHECK(r.verdict == Verdict::fail);
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->phase == 0);
    CHECK(r.counterexample->explanation ==
          "the message 0 -> 1 of phase 0 is exchanged 2 times by the programs");
  }
}

TEST_CASE("replay: a deadlock names every blocked rank and the operation it waits at") {
  // Rank 0 waits for a synchronization nobody sends, rank 1 for a receive nobody matches, rank
  // 2 in a barrier the others never reach.
  const Schedule s = chain();
  const auto r = replay(s, s.header.topology,
                        by_rank({{sync_recv(2, 0)}, {recv(0, 0), wait(0)}, {barrier(0)}}));
  CHECK(r.verdict == Verdict::fail);
  CHECK(r.summary == "the programs deadlock");
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->explanation ==
        "deadlock: ranks blocked: 0 at sync-recv (phase 0, peer 2), 1 at wait (phase 0), 2 at "
        "barrier (phase 0)");
}

TEST_CASE("replay: two messages on one link overlap unless something orders them") {
  const Schedule s = into_c();
  const Topology& model = s.header.topology;
  SUBCASE("nothing orders them: they can overlap, and the counterexample names the link") {
    const auto r = replay(
        s, model,
        by_rank({{send(2, 0), wait(0)}, {send(2, 1), wait(1)}, {recv(0, 0), recv(1, 1), wait(1)}}));
    CHECK(r.verdict == Verdict::fail);
    CHECK(r.summary ==
          "3 programs run to completion and exchange each of the 2 messages once, in its phase; "
          "but 1 of 1 pairs of messages sharing a link can overlap in time");
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->phase == 1);
    CHECK(r.counterexample->label == "second");
    CHECK(r.counterexample->resource == "link s -> c");
    CHECK(r.counterexample->explanation ==
          "1 -> 2 (phase 1) can start before 0 -> 2 (phase 0) is done, and both use link s -> c");
  }
  const std::string ordered =
      "3 programs run to completion and exchange each of the 2 messages once, in its phase; all "
      "1 pairs of messages sharing a link (per link) are ordered in time";
  SUBCASE("the receiver waits for the first before it posts the second") {
    const auto r = replay(s, model,
                          by_rank({{send(2, 0), wait(0)},
                                   {send(2, 1), wait(1)},
                                   {recv(0, 0), wait(0), recv(1, 1), wait(1)}}));
    CHECK(r.verdict == Verdict::pass);
    CHECK(r.summary == ordered);
  }
  SUBCASE("the first sender tells the second when it is done (pair-wise synchronization)") {
    const auto r = replay(s, model,
                          by_rank({{send(2, 0), wait(0), sync_send(1, 0)},
                                   {sync_recv(0, 1), send(2, 1), wait(1)},
                                   {recv(0, 0), recv(1, 1), wait(1)}}));
    CHECK(r.verdict == Verdict::pass);
    CHECK(r.summary == ordered);
  }
  SUBCASE("a synchronization sent before the first message is done orders nothing") {
    const auto r = replay(s, model,
                          by_rank({{sync_send(1, 0), send(2, 0), wait(0)},
                                   {sync_recv(0, 1), send(2, 1), wait(1)},
                                   {recv(0, 0), recv(1, 1), wait(1)}}));
    CHECK(r.verdict == Verdict::fail);
  }
  SUBCASE("a barrier between the phases") {
    const auto r = replay(s, model,
                          by_rank({{send(2, 0), wait(0), barrier(0)},
                                   {barrier(0), send(2, 1), wait(1)},
                                   {recv(0, 0), wait(0), barrier(0), recv(1, 1), wait(1)}}));
    CHECK(r.verdict == Verdict::pass);
    CHECK(r.summary == ordered);
  }
}

TEST_CASE("replay: a local copy never blocks and is no message") {
  const Schedule s = chain();
  const Op copy{K::copy, 0, 0, 0, 1};
  const auto r = replay(s, s.header.topology,
                        by_rank({{copy, send(1, 0), wait(0)},
                                 {recv(0, 0), copy, wait(0), send(2, 1), wait(1)},
                                 {copy, recv(1, 1), wait(1), copy}}));
  CHECK(r.verdict == Verdict::pass);
}

TEST_CASE("replay: beyond kMaxTimedRanks ranks completion is proven, ordering is not checked") {
  const Rank p = kMaxTimedRanks + 1;
  const Schedule s{testing::header(Ring(p)),
                   {testing::phase("p0", {{0, 1}}), testing::phase("p1", {{0, 1}})}};
  std::vector<std::vector<Op>> ops(p);
  // Both messages in flight together on one link: overlapping, but not looked at.
  ops[0] = {send(1, 0), send(1, 1), wait(1)};
  ops[1] = {recv(0, 0), recv(0, 1), wait(1)};
  const auto r = replay(s, s.header.topology, by_rank(ops));
  CHECK(r.verdict == Verdict::pass);
  CHECK(r.summary ==
        "129 programs run to completion and exchange each of the 2 messages once, in its phase; "
        "the ordering of contending messages was not checked (more than 128 ranks)");
  // The same on kMaxTimedRanks ranks is timed, and the overlap found.
  const Schedule timed{testing::header(Ring(kMaxTimedRanks)), s.phases};
  ops.pop_back();
  CHECK(replay(timed, timed.header.topology, by_rank(ops)).verdict == Verdict::fail);
}
