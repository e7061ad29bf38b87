// mpich-recexch against MPIR_Allgather_intra_recexch and recexchalgo.c: Step 1 folds the first T
// ranks' non-participants in, Step 2 exchanges get_count_and_offset's runs with the k - 1
// neighbours of one base-k digit (doubling: lowest digit first; halving: highest first after the
// digit-reversal swap), Step 3 sends the result back; an offset off by one is caught.

#include "core/error.hpp"
#include "mpich_support.hpp"

using namespace phasecheck;
using namespace phasecheck::mpich_test;

namespace {
const Slot out(std::uint32_t i) { return {Buffer::output, i}; }
const Slot in(std::uint32_t i) { return {Buffer::input, i}; }
Parameters recexch(Rank k, const char* distance = "doubling", const char* single = "false") {
  return parameters(
      {{"radix", std::to_string(k)}, {"distance", distance}, {"single_phase_recv", single}});
}
}  // namespace

TEST_CASE("mpich-recexch: p = 6, k = 2: ranks 0 and 2 fold into 1 and 3, Step 2 over 1, 3, 4, 5") {
  const Schedule s = program_of("mpich-recexch", 6, recexch(2));
  REQUIRE(s.phases.size() == 5);
  CHECK(ops_of(s.phases[0], 0).empty());  // rank 0 does not take part: no own copy
  CHECK(ops_of(s.phases[1], 0) == std::vector<BufferOp>{{0, 1, in(0), out(0), 1}});
  CHECK(ops_of(s.phases[1], 2) == std::vector<BufferOp>{{2, 3, in(0), out(2), 1}});
  // Step 2, phase 0: rank 1 (Step-2 rank 0) sends blocks 0..1 to rank 3 (Step-2 rank 1);
  // phase 1: blocks 0..3 to rank 4 (Step-2 rank 2).
  CHECK(ops_of(s.phases[2], 1) == std::vector<BufferOp>{{1, 3, out(0), out(0), 2}});
  CHECK(ops_of(s.phases[2], 4) == std::vector<BufferOp>{{4, 5, out(4), out(4), 1}});
  CHECK(ops_of(s.phases[3], 1) == std::vector<BufferOp>{{1, 4, out(0), out(0), 4}});
  CHECK(ops_of(s.phases[3], 4) == std::vector<BufferOp>{{4, 1, out(4), out(4), 2}});
  // Step 3: rank 1 sends blocks 1..5 to rank 0, which copies its own block.
  CHECK(ops_of(s.phases[4], 1) == std::vector<BufferOp>{{1, 0, out(1), out(1), 5}});
  CHECK(ops_of(s.phases[4], 0) == std::vector<BufferOp>{{0, 0, in(0), out(0), 1}});
}

TEST_CASE("mpich-recexch: halving swaps with the digit-reversed partner first") {
  // p = 8, k = 2: rank 1 (001) and rank 4 (100) swap their own blocks.
  const Schedule s = program_of("mpich-recexch", 8, recexch(2, "halving"));
  REQUIRE(s.phases.size() == 1 + 1 + 3);
  CHECK(ops_of(s.phases[1], 1) == std::vector<BufferOp>{{1, 4, out(1), out(1), 1}});
  CHECK(ops_of(s.phases[1], 0).empty());  // 000 is its own reversal
  // Step 2 phase 0 is digit 2: rank 1 with rank 5, sending the run of its reversal, rank 4.
  CHECK(ops_of(s.phases[2], 1) == std::vector<BufferOp>{{1, 5, out(4), out(4), 1}});
}

TEST_CASE("mpich-recexch: verifies with its claims, both distances, both receive modes") {
  for (Rank p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 17, 27, 31, 33})
    for (Rank k : {2, 3, 4, 5, 9})
      for (const char* distance : {"doubling", "halving"})
        for (const char* single : {"false", "true"})
          check_row("mpich-recexch", p, recexch(k, distance, single), ports_for(p, k - 1));
}

TEST_CASE("mpich-recexch: an unknown distance is refused") {
  CHECK_THROWS_AS(header_of("mpich-recexch", 4, recexch(2, "tripling")), InputError);
}

TEST_CASE("mpich-recexch mutant: at p = 6 rank 4's Step-2 run one block off") {
  const Schedule s = program_of("mpich-recexch", 6, recexch(2));
  // phase 3's ops in rank order: rank 1, 3, 4, 5; rank 4's is the third.
  check_caught(mutant(s, 3, 2, [](BufferOp& op) {
    op.from.index -= 1;
    op.to.index -= 1;
  }));
}
