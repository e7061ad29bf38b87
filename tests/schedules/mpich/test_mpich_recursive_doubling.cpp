// mpich-recursive-doubling against MPIR_Allgather_intra_recursive_doubling: sendrecvs with rank
// xor mask at the tree roots' offsets in recvbuf; p not a power of two refused with MPICH's
// assertion named; a tree-root offset off by one is caught.

#include "core/error.hpp"
#include "mpich_support.hpp"

using namespace phasecheck;
using namespace phasecheck::mpich_test;

TEST_CASE("mpich-recursive-doubling: p = 8, rank 5 sends from its tree roots 5, 4, 4") {
  const Schedule s = program_of("mpich-recursive-doubling", 8);
  REQUIRE(s.phases.size() == 4);
  const auto o = [](std::uint32_t i) { return Slot{Buffer::output, i}; };
  CHECK(ops_of(s.phases[1], 5) == std::vector<BufferOp>{{5, 4, o(5), o(5), 1}});
  CHECK(ops_of(s.phases[2], 5) == std::vector<BufferOp>{{5, 7, o(4), o(4), 2}});
  CHECK(ops_of(s.phases[3], 5) == std::vector<BufferOp>{{5, 1, o(4), o(4), 4}});
}

TEST_CASE("mpich-recursive-doubling: verifies with its claims for powers of two") {
  for (Rank p : {1, 2, 4, 8, 16, 32}) check_row("mpich-recursive-doubling", p);
}

TEST_CASE("mpich-recursive-doubling: p = 6 is refused, naming MPICH's power-of-two assertion") {
  CHECK_THROWS_WITH_AS(program_of("mpich-recursive-doubling", 6),
                       doctest::Contains("needs a power-of-two number of ranks (p = 6)"),
                       InputError);
}

TEST_CASE("mpich-recursive-doubling mutant: at p = 8 rank 3's receive offset off by one") {
  const Schedule s = program_of("mpich-recursive-doubling", 8);
  check_caught(mutant(s, 2, 3, [](BufferOp& op) { op.to.index += 1; }));
}
