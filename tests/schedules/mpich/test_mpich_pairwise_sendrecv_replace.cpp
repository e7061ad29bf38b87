// mpich-pairwise-sendrecv-replace against MPIR_Alltoall_intra_pairwise_sendrecv_replace: in place
// (format 4), blocking exchanges with partners 0 .. p - 1 (or rank xor mask), run as soon as both
// partners reach them: pair {a, b} in phase a + b - 1; an exchange with the wrong slot is caught.

#include "core/error.hpp"
#include "mpich_support.hpp"

using namespace phasecheck;
using namespace phasecheck::mpich_test;

TEST_CASE("mpich-pairwise-sendrecv-replace: p = 4, pair {a, b} runs in phase a + b - 1") {
  const Schedule s = program_of("mpich-pairwise-sendrecv-replace", 4);
  REQUIRE(s.header.buffers);
  CHECK(s.header.buffers->inplace);
  CHECK(s.header.buffers->input == 0);
  CHECK(s.header.inplace);
  REQUIRE(s.phases.size() == 5);
  const Schedule t = table_of_row("mpich-pairwise-sendrecv-replace", 4);
  using P = std::vector<std::pair<Rank, Rank>>;
  CHECK(sends(t.phases[0]) == P{{0, 1}, {1, 0}});
  CHECK(sends(t.phases[1]) == P{{0, 2}, {2, 0}});
  CHECK(sends(t.phases[2]) == P{{0, 3}, {1, 2}, {2, 1}, {3, 0}});
  CHECK(sends(t.phases[3]) == P{{1, 3}, {3, 1}});
  CHECK(sends(t.phases[4]) == P{{2, 3}, {3, 2}});
  // The swap of {1, 2}: recvbuf[2] of rank 1 and recvbuf[1] of rank 2, in place.
  CHECK(ops_of(s.phases[2], 1) ==
        std::vector<BufferOp>{{1, 2, {Buffer::output, 2}, {Buffer::output, 1}, 1}});
}

TEST_CASE("mpich-pairwise-sendrecv-replace: verifies in place with its claims, both orders") {
  for (Rank p : {1, 2, 3, 4, 5, 6, 7, 8, 12, 17, 33}) {
    check_row("mpich-pairwise-sendrecv-replace", p);
    check_row("mpich-pairwise-sendrecv-replace", p, parameters({{"order", "xor"}}));
  }
  CHECK(program_of("mpich-pairwise-sendrecv-replace", 17).phases.size() == 2 * 17 - 3);
  CHECK(program_of("mpich-pairwise-sendrecv-replace", 6, parameters({{"order", "xor"}}))
            .phases.size() == 7);
}

TEST_CASE("mpich-pairwise-sendrecv-replace: an unknown order is refused") {
  CHECK_THROWS_AS(header_of("mpich-pairwise-sendrecv-replace", 4, parameters({{"order", "ring"}})),
                  InputError);
}

TEST_CASE("mpich-pairwise-sendrecv-replace mutant: at p = 6 one swap writes the next slot") {
  const Schedule s = program_of("mpich-pairwise-sendrecv-replace", 6);
  check_caught(mutant(s, 4, 1, [](BufferOp& op) { op.to.index = (op.to.index + 1) % 6; }));
}
