// mpich-scattered against MPIR_Alltoall_intra_scattered: batches of bblock Isend/Irecv pairs
// (MPIR_CVAR_ALLTOALL_THROTTLE, default 32, 0 = all), the self message in batch 0; the request
// claim holds and a tighter one fails; a partner off by one is caught.

#include "core/error.hpp"
#include "mpich_support.hpp"

using namespace phasecheck;
using namespace phasecheck::mpich_test;

namespace {
Parameters bblock(Rank b) { return parameters({{"bblock", std::to_string(b)}}); }
}  // namespace

TEST_CASE("mpich-scattered: p = 5, bblock = 2: batches {0, 1}, {2, 3}, {4}") {
  const Schedule s = program_of("mpich-scattered", 5, bblock(2));
  REQUIRE(s.phases.size() == 3);
  const auto in = [](std::uint32_t i) { return Slot{Buffer::input, i}; };
  const auto out = [](std::uint32_t i) { return Slot{Buffer::output, i}; };
  // Rank 1 sends to 1 - ii - i: itself and 0, then 4 and 3, then 2.
  CHECK(ops_of(s.phases[0], 1) ==
        std::vector<BufferOp>{{1, 1, in(1), out(1), 1}, {1, 0, in(0), out(1), 1}});
  CHECK(ops_of(s.phases[1], 1) ==
        std::vector<BufferOp>{{1, 4, in(4), out(1), 1}, {1, 3, in(3), out(1), 1}});
  CHECK(ops_of(s.phases[2], 1) == std::vector<BufferOp>{{1, 2, in(2), out(1), 1}});
}

TEST_CASE("mpich-scattered: verifies with its claims for bblock 0, 1, 3 and the default 32") {
  for (Rank p : {1, 2, 3, 5, 8, 13, 33, 40})
    for (Rank b : {0, 1, 3, 32})
      check_row("mpich-scattered", p, bblock(b), ports_for(p, b ? b : p));
  CHECK(program_of("mpich-scattered", 40).phases.size() == 2);  // default bblock = 32
  CHECK(program_of("mpich-scattered", 40, bblock(0)).phases.size() == 1);
}

TEST_CASE(
    "mpich-scattered: the request claim is checked (2 bblock) and a claim of 2 bblock - 1 fails") {
  const Schedule s = program_of("mpich-scattered", 7, bblock(3));
  Claims claims = row("mpich-scattered").claims(s.header);
  REQUIRE(claims.max_requests);
  CHECK(claims.max_requests->at_most == 6);
  const verify::Report ok = verify::verify(s, s.header.topology, claims);
  CHECK(ok.passed(CheckId::requests));
  claims.max_requests->at_most = 5;
  const verify::Report tight = verify::verify(s, s.header.topology, claims);
  CHECK(!tight.passed(CheckId::requests));
}

TEST_CASE("mpich-scattered: an allgather is refused") {
  CHECK_THROWS_AS(header_of("mpich-scattered", 4, parameters({{"collective", "allgather"}})),
                  InputError);
}

TEST_CASE("mpich-scattered mutant: at p = 9, bblock = 4, one send of batch 1 one rank off") {
  const Schedule s = program_of("mpich-scattered", 9, bblock(4));
  check_caught(mutant(s, 1, 6, [](BufferOp& op) { op.dst = (op.dst + 1) % 9; }));
}
