// programs/zero_buffering.hpp: request programs replayed with no message buffered. A program
// that completes passes; one that needs a buffered send fails with the cycle of ranks, or with
// the chain that ends at a request nothing matches.

#include <doctest/doctest.h>

#include "programs/zero_buffering.hpp"

using namespace phasecheck;
using programs::Request;
using programs::RequestOp;
using programs::RequestProgram;

namespace {

RequestOp post(std::uint32_t q) { return {RequestOp::Kind::post, q}; }
RequestOp wait(std::uint32_t q) { return {RequestOp::Kind::wait, q}; }

/// Two ranks exchanging one message each way: request 0 the send, 1 the receive, each matched
/// with the other rank's request of the other kind; `ops` is each rank's order of calls.
std::vector<RequestProgram> exchange(const std::vector<RequestOp>& ops) {
  std::vector<RequestProgram> progs(2);
  for (Rank r = 0; r < 2; ++r) {
    const Rank peer = 1 - r;
    progs[r].requests = {{true, peer, 1, "send to " + std::to_string(peer)},
                         {false, peer, 0, "recv from " + std::to_string(peer)}};
    progs[r].ops = ops;
  }
  return progs;
}

}  // namespace

TEST_CASE("zero_buffering: nonblocking exchange completes with no message buffered") {
  const CheckResult c = programs::zero_buffering(exchange({post(0), post(1), wait(0), wait(1)}));
  CHECK(c.id == CheckId::deadlock);
  CHECK(c.verdict == Verdict::pass);
  CHECK(c.summary == "all 8 calls of 2 ranks complete with no message buffered");
  // The receive first, then a blocking send: also fine.
  CHECK(programs::zero_buffering(exchange({post(1), post(0), wait(0), wait(1)})).verdict ==
        Verdict::pass);
}

TEST_CASE("zero_buffering: send before receive on both ranks is a cycle of two") {
  const CheckResult c = programs::zero_buffering(exchange({post(0), wait(0), post(1), wait(1)}));
  CHECK(c.verdict == Verdict::fail);
  CHECK(c.summary ==
        "2 of 2 ranks never finish with no message buffered (the run completed on "
        "eager buffering)");
  REQUIRE(c.counterexample.has_value());
  CHECK(c.counterexample->resource == "ranks 0 -> 1 -> 0");
  CHECK(c.counterexample->explanation ==
        "rank 0 waits in send to 1 for rank 1 to post the receive; rank 1 waits in send to 0 for "
        "rank 0 to post the receive: with no message buffered none of them ever returns");
}

TEST_CASE("zero_buffering: a chain that ends at a request nothing matches") {
  // Rank 0 waits for rank 1's send; rank 1 first waits for a message from rank 2 that never
  // comes (no partner); rank 2 has nothing to do.
  std::vector<RequestProgram> progs(3);
  progs[0].requests = {{false, 1, 1, "recv from 1"}};
  progs[0].ops = {post(0), wait(0)};
  progs[1].requests = {{false, 2, std::nullopt, "recv from 2"}, {true, 0, 0, "send to 0"}};
  progs[1].ops = {post(0), wait(0), post(1), wait(1)};
  const CheckResult c = programs::zero_buffering(progs);
  CHECK(c.verdict == Verdict::fail);
  CHECK(c.summary.find("2 of 3 ranks never finish") == 0);
  REQUIRE(c.counterexample.has_value());
  CHECK(c.counterexample->resource == "ranks 0 -> 1");
  CHECK(c.counterexample->explanation ==
        "rank 0 waits in recv from 1 for rank 1 to post the send; rank 1 waits in recv from 2 for "
        "a matching send that rank 2 never posts: with no message buffered it never returns");
}
