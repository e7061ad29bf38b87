// mpich-k-brucks against MPIR_Alltoall_intra_k_brucks and MPIR_Allgather_intra_k_brucks: the
// base-k digit classes packed into tmp_sbuf / unpacked from tmp_rbuf, k - 1 exchanges per phase,
// the allgather's shortened last phase; verified with its claims over sizes and radices, radix
// above p included (MPICH skips the steps with delta j >= p); an offset or partner off by one is
// caught.

#include "core/error.hpp"
#include "mpich_support.hpp"

using namespace phasecheck;
using namespace phasecheck::mpich_test;

namespace {
const Slot out(std::uint32_t i) { return {Buffer::output, i}; }
const Slot scr(std::uint32_t i) { return {Buffer::scratch, i}; }
Parameters radix(Rank k, const char* collective = "alltoall") {
  return parameters({{"radix", std::to_string(k)}, {"collective", collective}});
}
}  // namespace

TEST_CASE("mpich-k-brucks alltoall: p = 10, k = 3 packs digit classes into tmp_sbuf[j-1]") {
  const Schedule s = program_of("mpich-k-brucks", 10, radix(3));
  // nphases = 3 base-3 digits of 9: Step 1, 3 x (pack, exchange, unpack), two rotations.
  REQUIRE(s.phases.size() == 3 + 3 * 3);
  // tmp_buf = scratch[0..10), then tmp_sbuf[0], tmp_rbuf[0], tmp_sbuf[1], tmp_rbuf[1] of
  // p_of_k = 9 slots each.
  CHECK(s.header.buffers->scratch == 10 + 4 * 9);
  // Phase 0, digit 1: offsets 1, 4, 7; digit 2: offsets 2, 5, 8.
  CHECK(ops_of(s.phases[1], 0) == std::vector<BufferOp>{{0, 0, out(1), scr(10), 1},
                                                        {0, 0, out(4), scr(11), 1},
                                                        {0, 0, out(7), scr(12), 1},
                                                        {0, 0, out(2), scr(28), 1},
                                                        {0, 0, out(5), scr(29), 1},
                                                        {0, 0, out(8), scr(30), 1}});
  CHECK(ops_of(s.phases[2], 0) ==
        std::vector<BufferOp>{{0, 1, scr(10), scr(19), 3}, {0, 2, scr(28), scr(37), 3}});
  // Phase 1 (delta 3), digit 2: offsets 6..8, one run, to rank 0 + 6.
  CHECK(ops_of(s.phases[5], 0)[1] == BufferOp{0, 6, scr(28), scr(37), 3});
  // Phase 2 (delta 9): digit 1 only (offset 9); digit 2 would start at 18 >= p.
  CHECK(ops_of(s.phases[8], 4) == std::vector<BufferOp>{{4, 3, scr(10), scr(19), 1}});
}

TEST_CASE("mpich-k-brucks allgather: p = 10, k = 3, rank 0 receives in recvbuf itself") {
  const Schedule s = program_of("mpich-k-brucks", 10, radix(3, "allgather"));
  REQUIRE(s.phases.size() == 2 + 3);
  CHECK(ops_of(s.phases[1], 0) ==
        std::vector<BufferOp>{{0, 9, out(0), scr(1), 1}, {0, 8, out(0), scr(2), 1}});
  CHECK(ops_of(s.phases[2], 0) ==
        std::vector<BufferOp>{{0, 7, out(0), scr(3), 3}, {0, 4, out(0), scr(6), 3}});
  // Rank 9's last phase: one block (p - 9 left) to rank 0, straight into its recvbuf[9].
  CHECK(ops_of(s.phases[3], 9) == std::vector<BufferOp>{{9, 0, scr(0), out(9), 1}});
  CHECK(ops_of(s.phases[4], 0).empty());  // rank 0 needs no rotation
}

TEST_CASE("mpich-k-brucks: verifies with its claims, radix 2..8 and above p") {
  for (Rank p : {1, 2, 3, 4, 5, 7, 8, 9, 10, 16, 17, 27, 28})
    for (Rank k : {2, 3, 4, 5, 8, 40}) {
      check_row("mpich-k-brucks", p, radix(k), ports_for(p, k - 1));
      check_row("mpich-k-brucks", p, radix(k, "allgather"), ports_for(p, k - 1));
    }
  const verify::Report r = verify_with_claims(program_of("mpich-k-brucks", 10, radix(3)));
  CHECK(r.passed(CheckId::invariants));
  const verify::Report g =
      verify_with_claims(program_of("mpich-k-brucks", 10, radix(3, "allgather")));
  CHECK(g.counts.c2 == 1 + 3 + 1);
}

TEST_CASE("mpich-k-brucks: radix 1 is refused (MPICH's k >= 2)") {
  CHECK_THROWS_AS(header_of("mpich-k-brucks", 4, radix(1)), InputError);
}

TEST_CASE(
    "mpich-k-brucks mutants: an unpack offset (alltoall) or a partner (allgather) off by one") {
  const Schedule a = program_of("mpich-k-brucks", 10, radix(3));
  check_caught(mutant(a, 3, 0, [](BufferOp& op) { op.to.index = (op.to.index + 1) % 10; }));
  const Schedule g = program_of("mpich-k-brucks", 10, radix(3, "allgather"));
  check_caught(mutant(g, 2, 5, [](BufferOp& op) { op.dst = (op.dst + 1) % 10; }));
}
