// mpich-ring against MPIR_Allgather_intra_ring: the own block into recvbuf[rank], then p - 1
// sendrecvs to rank + 1 forwarding the block received last; a forwarded offset off by one is
// caught.

#include "core/error.hpp"
#include "mpich_support.hpp"

using namespace phasecheck;
using namespace phasecheck::mpich_test;

TEST_CASE("mpich-ring: p = 4, rank 1 forwards blocks 1, 0, 3 to rank 2") {
  const Schedule s = program_of("mpich-ring", 4, parameters({{"collective", "allgather"}}));
  REQUIRE(s.phases.size() == 4);
  const Slot b0{Buffer::output, 0}, b1{Buffer::output, 1}, b3{Buffer::output, 3};
  CHECK(ops_of(s.phases[0], 1) == std::vector<BufferOp>{{1, 1, {Buffer::input, 0}, b1, 1}});
  CHECK(ops_of(s.phases[1], 1) == std::vector<BufferOp>{{1, 2, b1, b1, 1}});
  CHECK(ops_of(s.phases[2], 1) == std::vector<BufferOp>{{1, 2, b0, b0, 1}});
  CHECK(ops_of(s.phases[3], 1) == std::vector<BufferOp>{{1, 2, b3, b3, 1}});
}

TEST_CASE("mpich-ring: verifies with its claims (p phases, C2 = p - 1)") {
  for (Rank p : {1, 2, 3, 4, 5, 6, 7, 8, 12, 17}) check_row("mpich-ring", p);
}

TEST_CASE("mpich-ring: an alltoall is refused (MPICH's ring here is the allgather)") {
  CHECK_THROWS_AS(header_of("mpich-ring", 4, parameters({{"collective", "alltoall"}})), InputError);
}

TEST_CASE("mpich-ring mutant: at p = 5 rank 2 forwards the wrong block in step 3") {
  const Schedule s = program_of("mpich-ring", 5);
  check_caught(mutant(s, 3, 2, [](BufferOp& op) {
    op.from.index = (op.from.index + 1) % 5;
    op.to.index = op.from.index;
  }));
}
