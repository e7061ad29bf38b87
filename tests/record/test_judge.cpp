// record/judge.hpp on recordings written by hand (synthetic_recording.hpp): a correct pairwise
// alltoall passes every check, and each single fault planted in it fails the one check that
// owns it, with a counterexample that names where.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>

#include "core/topology.hpp"
#include "record/judge.hpp"
#include "record/recording.hpp"
#include "tests/record/synthetic_recording.hpp"

using namespace phasecheck;
using namespace phasecheck::testing;

namespace {

/// Writes `run`, reads it back and judges it on the fully connected machine of its ranks.
record::Judgement judged(const SyntheticRun& run) {
  const ScratchDirectory dir;
  write_recording(dir.path(), render(run));
  const record::Recording rec = record::read_recording(dir.path().string());
  return record::judge(rec, FullyConnected(run.ranks, std::max<Rank>(1, run.ranks - 1)),
                       "synthetic");
}

const CheckResult& check(const record::Judgement& j, CheckId id) {
  const auto it = std::find_if(j.report.checks.begin(), j.report.checks.end(),
                               [&](const CheckResult& c) { return c.id == id; });
  REQUIRE_MESSAGE(it != j.report.checks.end(), "no ", to_string(id), " check");
  return *it;
}

/// The one failed check of `j`, which must be `id`.
CheckResult only_failure(const record::Judgement& j, CheckId id) {
  for (const CheckResult& c : j.report.checks)
    CHECK_MESSAGE((c.verdict != Verdict::fail || c.id == id), c.name(), " failed too: ", c.summary);
  const CheckResult& c = check(j, id);
  REQUIRE_MESSAGE(c.verdict == Verdict::fail, c.name(), ": ", c.summary);
  REQUIRE(c.counterexample.has_value());
  return c;
}

void put_word(std::vector<std::uint8_t>& bytes, std::uint64_t at, std::uint64_t word) {
  std::memcpy(bytes.data() + at, &word, 8);
}

}  // namespace

TEST_CASE("record judge: a correct pairwise alltoall passes every check, and every check ran") {
  const record::Judgement j = judged(pairwise_alltoall(3, 2));
  std::vector<CheckId> ran;
  for (const CheckResult& c : j.report.checks) {
    ran.push_back(c.id);
    CHECK_MESSAGE(c.verdict == Verdict::pass, c.name(), ": ", c.summary);
  }
  CHECK(ran == std::vector<CheckId>{CheckId::execution, CheckId::delivery, CheckId::contention,
                                    CheckId::invariants, CheckId::claims, CheckId::bounds,
                                    CheckId::placement, CheckId::deadlock, CheckId::lifetime});
  CHECK(j.report.verdict() == Verdict::pass);
  // The work was done: 3 x 2 x 2 elements moved by messages, 6 messages, the buffers decoded.
  const std::string delivery = check(j, CheckId::delivery).summary;
  const std::string placement = check(j, CheckId::placement).summary;
  const std::string deadlock = check(j, CheckId::deadlock).summary;
  const std::string lifetime = check(j, CheckId::lifetime).summary;
  const std::string invariants = check(j, CheckId::invariants).summary;
  CHECK(delivery.find("(12 deliveries)") != std::string::npos);
  CHECK(j.report.counts.transfers == 6);
  CHECK(j.report.counts.blocks == 12);
  CHECK(placement.find("every rank's 6 receive elements") == 0);
  CHECK(deadlock.find("all 24 calls of 3 ranks complete") == 0);
  CHECK(lifetime.find("(6 sends)") != std::string::npos);
  CHECK(invariants.find("1 invariant holds at each of the 3") == 0);
  // The table is the registry's shift (its step 0 is the self copy, which sends nothing).
  REQUIRE(j.schedule.has_value());
  CHECK(j.identified == std::optional<std::string>("shift"));
  CHECK(j.schedule->phases.size() == 3);
}

TEST_CASE("record judge: a wrong element in a final receive buffer fails placement, naming it") {
  SyntheticRun run = pairwise_alltoall(3, 2);
  // Rank 1's receive element 3 is its own block's element 1; put rank 2's (2,1,0) there instead.
  put_word(run.rank[1].recv_final, kSyntheticGuard + 3 * 8, record::tag({2, 1, 0}));
  const CheckResult c = only_failure(judged(run), CheckId::placement);
  CHECK(c.summary ==
        "1 wrong element, 0 bytes written outside the receive data, 0 send-buffer "
        "bytes changed");
  // Phases are the identified algorithm's (shift): its step 0 is the self copy, no message.
  CHECK(c.counterexample->explanation ==
        "rank 1: receive element 3 (block from 1, element 1; byte 88 of the buffer) holds "
        "(2,1,0), expected (1,1,1); rank 2's 2nd send (to 1, tag -13) in step 2 brought it");
  CHECK(c.counterexample->phase == std::optional<std::size_t>(2));
}

TEST_CASE("record judge: a byte written into a guard fails placement, naming the bytes") {
  SyntheticRun run = pairwise_alltoall(3, 2);
  const std::uint64_t past = kSyntheticGuard + 3 * 2 * 8;  // the first byte after the data
  run.rank[2].recv_final[past + 5] = 0;
  const CheckResult c = only_failure(judged(run), CheckId::placement);
  CHECK(c.summary.find("1 byte written outside the receive data") != std::string::npos);
  CHECK(c.counterexample->explanation ==
        "rank 2 wrote bytes 117..117 of its receive buffer, past the end of its data: they must "
        "keep the guard byte 0xcd");
}

TEST_CASE("record judge: a send buffer changed before its request completed fails lifetime") {
  SyntheticRun run = pairwise_alltoall(3, 2);
  // Rank 0's first send (to 1) is event 0; its completion (event 2) packs other bytes.
  SyntheticEvent& completion = run.rank[0].events[2];
  REQUIRE(completion.kind == SyntheticEvent::Kind::complete);
  REQUIRE(completion.id == run.rank[0].events[0].id);
  completion.payload[0] = record::tag({0, 2, 0});
  const CheckResult c = only_failure(judged(run), CheckId::lifetime);
  CHECK(c.summary == "1 buffer used while a request still owned it");
  CHECK(c.counterexample->explanation ==
        "rank 0 changed the buffer of its send to 1 (event 1) before the request completed: "
        "element 0 was (0,1,0) at the send, (0,2,0) when it completed");
}

TEST_CASE("record judge: a message delivered twice fails delivery") {
  SyntheticRun run = pairwise_alltoall(3, 2);
  // Rank 0 sends its block for rank 1 once more at the end, and rank 1 receives it again.
  const SyntheticEvent send = run.rank[0].events[0];
  const SyntheticEvent recv = run.rank[1].events[1];  // step 1 of rank 1: from 0
  REQUIRE(recv.kind == SyntheticEvent::Kind::recv);
  REQUIRE(recv.peer == 0);
  using Kind = SyntheticEvent::Kind;
  run.rank[0].events.push_back(
      {Kind::send, 100, 1, kSyntheticTag, send.lo, send.hi, false, send.payload});
  run.rank[0].events.push_back({Kind::complete, 100, 1, kSyntheticTag, 0, 0, false, send.payload});
  run.rank[1].events.push_back({Kind::recv, 100, 0, kSyntheticTag, recv.lo, recv.hi, false, {}});
  run.rank[1].events.push_back({Kind::complete, 100, 0, kSyntheticTag, 0, 0, false, send.payload});
  const CheckResult c = only_failure(judged(run), CheckId::delivery);
  // Both elements of the block arrive again, in the phase after rank 0's last receive.
  CHECK(c.summary == "2 invalid or duplicate deliveries");
  CHECK(c.counterexample->explanation ==
        "block [0,1] arrives at rank 1 again in phase 2 (it arrived there in an earlier phase)");
  CHECK(c.counterexample->phase == std::optional<std::size_t>(2));
}

TEST_CASE("record judge: two ranks that each send (blocking) before they receive deadlock") {
  SyntheticRun run = pairwise_alltoall(2, 2);
  // Each rank's one step becomes MPI_Send then MPI_Recv: fine when the send is buffered eagerly.
  for (SyntheticRank& rr : run.rank) {
    REQUIRE(rr.events.size() == 4);
    auto& e = rr.events;
    std::swap(e[1], e[2]);  // send, complete send, recv, complete recv
    e[0].blocking = true;
    e[2].blocking = true;
  }
  const CheckResult c = only_failure(judged(run), CheckId::deadlock);
  CHECK(c.counterexample->resource == "ranks 0 -> 1 -> 0");
  CHECK(c.counterexample->explanation ==
        "rank 0 waits in send to 1 (event 1) for rank 1 to post the receive; rank 1 waits in send "
        "to 0 (event 1) for rank 0 to post the receive: with no message buffered none of them "
        "ever returns");
}

TEST_CASE("record judge: a payload word that is no element fails delivery, naming the message") {
  SyntheticRun run = pairwise_alltoall(3, 2);
  // Rank 2's first send (to 0) carried a garbage word as its element 1, at the post and at the
  // wait.
  run.rank[2].events[0].payload[1] = 0x1234;
  run.rank[2].events[2].payload[1] = 0x1234;
  const record::Judgement j = judged(run);
  const CheckResult c = only_failure(j, CheckId::delivery);
  CHECK(c.counterexample->explanation ==
        "rank 2's 1st send (to 0, tag -13) carried 0x1234 (not an element) as its element 1: not "
        "an element of this alltoall of 3 ranks and 2 elements a block");
  CHECK(c.counterexample->phase == std::optional<std::size_t>(0));
  CHECK_FALSE(j.schedule.has_value());
}
