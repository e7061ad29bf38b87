// mpich-brucks against MPIR_Alltoall_intra_brucks and MPIR_Allgather_intra_brucks: tmp_buf, the
// packing of the blocks with bit pof2 set, the rotations; verified with its claims for both
// collectives; an offset or partner off by one is caught.

#include "core/error.hpp"
#include "mpich_support.hpp"

using namespace phasecheck;
using namespace phasecheck::mpich_test;

namespace {
const Slot out(std::uint32_t i) { return {Buffer::output, i}; }
const Slot tmp(std::uint32_t i) { return {Buffer::scratch, i}; }
const Slot in(std::uint32_t i) { return {Buffer::input, i}; }
}  // namespace

TEST_CASE("mpich-brucks alltoall: p = 5, rank 2, as alltoall_intra_brucks.c runs it") {
  const Schedule s = program_of("mpich-brucks", 5);
  REQUIRE(s.phases.size() == 3 + 2 * 3);
  // Phase 1: sendbuf[2..4] -> recvbuf[0..2], sendbuf[0..1] -> recvbuf[3..4].
  CHECK(ops_of(s.phases[0], 2) ==
        std::vector<BufferOp>{{2, 2, in(2), out(0), 3}, {2, 2, in(0), out(3), 2}});
  // pof2 = 1: blocks 1 and 3 packed into tmp_buf[0..1], sent to rank 3 into its recvbuf 1 and 3.
  CHECK(ops_of(s.phases[1], 2) ==
        std::vector<BufferOp>{{2, 2, out(1), tmp(0), 1}, {2, 2, out(3), tmp(1), 1}});
  CHECK(ops_of(s.phases[2], 2) ==
        std::vector<BufferOp>{{2, 3, tmp(0), out(1), 1}, {2, 3, tmp(1), out(3), 1}});
  // pof2 = 4: block 4 only, to rank 1.
  CHECK(ops_of(s.phases[6], 2) == std::vector<BufferOp>{{2, 1, tmp(0), out(4), 1}});
  // rotate up by rank + 1 = 3: recvbuf[3..4] -> tmp_buf[0..1], recvbuf[0..2] -> tmp_buf[2..4];
  CHECK(ops_of(s.phases[7], 2) ==
        std::vector<BufferOp>{{2, 2, out(3), tmp(0), 2}, {2, 2, out(0), tmp(2), 3}});
  // then recvbuf[4 - i] = tmp_buf[i].
  CHECK(ops_of(s.phases[8], 2)[1] == BufferOp{2, 2, tmp(1), out(3), 1});
  CHECK(*s.header.buffers == BufferLayout{1, false, 5, 5, 5});
}

TEST_CASE("mpich-brucks allgather: p = 6 doubles tmp_buf, then sends the rem = 2 first blocks") {
  const Schedule s = program_of("mpich-brucks", 6, parameters({{"collective", "allgather"}}));
  REQUIRE(s.phases.size() == 2 + 3);
  CHECK(ops_of(s.phases[1], 0) == std::vector<BufferOp>{{0, 5, tmp(0), tmp(1), 1}});
  CHECK(ops_of(s.phases[2], 0) == std::vector<BufferOp>{{0, 4, tmp(0), tmp(2), 2}});
  CHECK(ops_of(s.phases[3], 0) == std::vector<BufferOp>{{0, 2, tmp(0), tmp(4), 2}});
  // rank 4 rotates tmp_buf down by 4: tmp_buf[0..1] -> recvbuf[4..5], tmp_buf[2..5] ->
  // recvbuf[0..3].
  CHECK(ops_of(s.phases[4], 4) ==
        std::vector<BufferOp>{{4, 4, tmp(0), out(4), 2}, {4, 4, tmp(2), out(0), 4}});
}

TEST_CASE("mpich-brucks: verifies with its claims for both collectives") {
  for (Rank p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17}) {
    check_row("mpich-brucks", p);
    check_row("mpich-brucks", p, parameters({{"collective", "allgather"}}));
  }
  const verify::Report r = verify_with_claims(program_of("mpich-brucks", 12));
  CHECK(r.passed(CheckId::invariants));
  CHECK(r.counts.c2 == 6 + 6 + 4 + 4);  // block indices below 12 with bit 1, 2, 4, 8 set
  const verify::Report g =
      verify_with_claims(program_of("mpich-brucks", 12, parameters({{"collective", "allgather"}})));
  CHECK(g.counts.c2 == 11);
}

TEST_CASE("mpich-brucks: a collective it does not name is refused") {
  CHECK_THROWS_AS(header_of("mpich-brucks", 4, parameters({{"collective", "reduce"}})), InputError);
}

TEST_CASE("mpich-brucks mutants: a final offset (alltoall) or a partner (allgather) off by one") {
  const Schedule a = program_of("mpich-brucks", 7);
  check_caught(
      mutant(a, a.phases.size() - 1, 3, [](BufferOp& op) { op.to.index = (op.to.index + 1) % 7; }));
  const Schedule g = program_of("mpich-brucks", 6, parameters({{"collective", "allgather"}}));
  check_caught(mutant(g, 3, 1, [](BufferOp& op) { op.dst = (op.dst + 1) % 6; }));
}
