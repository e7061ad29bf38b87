// mpich-pairwise against MPIR_Alltoall_intra_pairwise: the self copy first, xor partners for a
// power of two, rank + i / rank - i otherwise; verified with its claims at awkward sizes; a partner
// off by one is caught.

#include "core/error.hpp"
#include "mpich_support.hpp"

using namespace phasecheck;
using namespace phasecheck::mpich_test;

TEST_CASE("mpich-pairwise: p = 4 exchanges with rank xor i, after the self copy") {
  const Schedule t = table_of_row("mpich-pairwise", 4);
  REQUIRE(t.phases.size() == 4);
  CHECK(t.phases[0].empty());  // the local copy sendbuf[rank] -> recvbuf[rank]
  using P = std::vector<std::pair<Rank, Rank>>;
  CHECK(sends(t.phases[1]) == P{{0, 1}, {1, 0}, {2, 3}, {3, 2}});
  CHECK(sends(t.phases[2]) == P{{0, 2}, {1, 3}, {2, 0}, {3, 1}});
  CHECK(sends(t.phases[3]) == P{{0, 3}, {1, 2}, {2, 1}, {3, 0}});
}

TEST_CASE("mpich-pairwise: p = 5 sends to rank + i and receives from rank - i") {
  const Schedule s = program_of("mpich-pairwise", 5);
  REQUIRE(s.phases.size() == 5);
  // Step 2 on rank 4: sendbuf[1] to rank 1, which receives it into recvbuf[4].
  CHECK(ops_of(s.phases[2], 4) ==
        std::vector<BufferOp>{{4, 1, {Buffer::input, 1}, {Buffer::output, 4}, 1}});
  CHECK(ops_of(s.phases[0], 3) ==
        std::vector<BufferOp>{{3, 3, {Buffer::input, 3}, {Buffer::output, 3}, 1}});
}

TEST_CASE("mpich-pairwise: verifies with its claims (p phases, C2 = p - 1, 2 requests)") {
  for (Rank p : {1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 17}) check_row("mpich-pairwise", p);
  const verify::Report r = verify_with_claims(program_of("mpich-pairwise", 6));
  CHECK(r.counts.phases == 6);
  CHECK(r.counts.c2 == 5);
  CHECK(r.passed(CheckId::requests));
}

TEST_CASE("mpich-pairwise: an allgather is refused (MPICH's pairwise is an alltoall)") {
  CHECK_THROWS_AS(header_of("mpich-pairwise", 4, parameters({{"collective", "allgather"}})),
                  InputError);
}

TEST_CASE("mpich-pairwise mutant: at p = 6, rank 3 sends step 2 one rank too far") {
  const Schedule s = program_of("mpich-pairwise", 6);
  check_caught(mutant(s, 2, 3, [](BufferOp& op) { op.dst = (op.dst + 1) % 6; }));
  // and at p = 8 (xor), the offset of rank 0's receive in step 5 off by one
  const Schedule x = program_of("mpich-pairwise", 8);
  check_caught(mutant(x, 5, 0, [](BufferOp& op) { op.to.index = (op.to.index + 1) % 8; }));
}
