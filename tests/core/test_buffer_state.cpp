#include <doctest/doctest.h>

#include <vector>

#include "core/buffer_state.hpp"
#include "core/error.hpp"
#include "helpers.hpp"

using namespace phasecheck;
using namespace phasecheck::testing;

namespace {

/// Applies `phase` as phase `index` and returns its faults.
std::vector<OpFault> run(BufferState& state, std::size_t index, const Phase& phase,
                         Phase* table = nullptr) {
  std::vector<OpFault> faults;
  Phase scratch_table;
  state.apply(index, phase.ops(), table ? *table : scratch_table,
              [&](const OpFault& f) { faults.push_back(f); });
  return faults;
}

}  // namespace

TEST_CASE("buffers: the initial layout of an alltoall and of an allgather, in place or not") {
  const BufferState a(Collective::alltoall, 3, {2, false, 6, 6, 1});
  CHECK(a.at(1, in(0)) == Block{1, 0, 0});
  CHECK(a.at(1, in(5)) == Block{1, 2, 1});  // slot d*c + k holds (r, d, k)
  CHECK(!a.at(1, out(0)));
  CHECK(!a.at(1, scr(0)));

  const BufferState g(Collective::allgather, 3, {2, false, 2, 6, 0});
  CHECK(g.at(2, in(1)) == Block{2, kEveryRank, 1});
  CHECK(!g.at(2, out(4)));
  const BufferState inplace(Collective::allgather, 3, {2, true, 0, 6, 0});
  CHECK(inplace.at(2, out(4)) == Block{2, kEveryRank, 0});  // output slot r*c + k
  CHECK(inplace.at(2, out(5)) == Block{2, kEveryRank, 1});
  CHECK(!inplace.at(2, out(0)));
}

TEST_CASE("buffers: a layout that cannot hold the collective is refused") {
  CHECK_THROWS_WITH_AS(BufferState(Collective::alltoall, 4, {1, false, 4, 3, 0}),
                       "buffer output has 3 slots but must hold every chunk the rank ends with: 4 "
                       "slots",
                       InputError);
  CHECK_THROWS_WITH_AS(BufferState(Collective::alltoall, 4, {1, true, 4, 4, 0}),
                       doctest::Contains("an alltoall in place has no input buffer"), InputError);
  CHECK_THROWS_WITH_AS(BufferState(Collective::allgather, 4, {1, true, 1, 4, 0}),
                       doctest::Contains("input must be 0"), InputError);
}

TEST_CASE("buffers: every op reads the phase's start, so two copies swap two slots") {
  BufferState s(Collective::alltoall, 2, {1, false, 2, 2, 2});
  CHECK(run(s, 0, ops("fill", {copy(0, in(0), scr(0)), copy(0, in(1), scr(1))})).empty());
  CHECK(run(s, 1, ops("swap", {copy(0, scr(0), scr(1)), copy(0, scr(1), scr(0))})).empty());
  CHECK(s.at(0, scr(0)) == Block{0, 1});
  CHECK(s.at(0, scr(1)) == Block{0, 0});
  CHECK(s.copies(Block{0, 0}) == 2);  // input and scratch: a move never loses a copy
}

TEST_CASE("buffers: the sends of a phase form its table, one transfer per pair") {
  BufferState s(Collective::alltoall, 3, {1, false, 3, 3, 2});
  Phase table;
  const auto faults =
      run(s, 0,
          ops("p", {send(0, 1, in(1), out(0)), send(0, 2, in(2), out(0)), copy(0, in(0), out(0)),
                    send(0, 1, in(2), scr(0)), send(2, 1, scr(0), scr(1))}),
          &table);
  // The last op reads an empty slot: a fault, and nothing for the table.
  REQUIRE(faults.size() == 1);
  CHECK(faults[0] == OpFault{OpFault::Kind::empty_read, 4, 2, scr(0), 0});
  REQUIRE(table.size() == 2);
  CHECK(table[0].src == 0);
  CHECK(table[0].dst == 1);
  CHECK(std::vector<Block>(table.blocks(table[0]).begin(), table.blocks(table[0]).end()) ==
        std::vector<Block>{{0, 1}, {0, 2}});
  CHECK(table[1].dst == 2);
}

TEST_CASE("buffers: each fault is reported with its op, rank and slot") {
  BufferState s(Collective::alltoall, 2, {1, false, 2, 2, 1});
  const auto faults = run(s, 0,
                          ops("bad", {send(0, 1, in(0), out(1), 2),  // writes output[2]
                                      send(1, 0, in(2), out(0)),     // reads input[2]
                                      copy(1, in(1), in(0)),         // writes the input
                                      copy(0, in(0), scr(0)), copy(0, in(1), scr(0))}));
  REQUIRE(faults.size() == 4);
  CHECK(faults[0] == OpFault{OpFault::Kind::write_beyond, 0, 1, out(2), 0});
  CHECK(faults[1] == OpFault{OpFault::Kind::read_beyond, 1, 1, in(2), 0});
  CHECK(faults[2] == OpFault{OpFault::Kind::input_write, 2, 1, in(0), 0});
  CHECK(faults[3] == OpFault{OpFault::Kind::double_write, 4, 0, scr(0), 3});
}

TEST_CASE("buffers: the last copy of a chunk overwritten is recorded as lost") {
  BufferState s(Collective::alltoall, 2, {1, false, 2, 2, 1});
  CHECK(run(s, 0, ops("a", {send(0, 1, in(1), scr(0))})).empty());
  CHECK(run(s, 1, ops("b", {send(0, 1, in(0), scr(0))})).empty());  // (0,1)'s only other copy
  CHECK(!s.lost(Block{0, 1}));                                      // still in rank 0's input
  BufferState t(Collective::allgather, 2, {1, true, 0, 2, 1});
  CHECK(run(t, 0, ops("a", {copy(0, out(0), scr(0))})).empty());
  CHECK(run(t, 1, ops("b", {send(1, 0, out(1), out(0)), send(1, 0, out(1), scr(0))})).empty());
  // (0,0) was in output[0] and scratch[0] of rank 0; both are overwritten in phase 1.
  const auto loss = t.lost(Block{0, kEveryRank, 0});
  REQUIRE(loss);
  CHECK(loss->phase == 1);
  CHECK(loss->op == 1);
  CHECK(loss->rank == 0);
  CHECK(loss->slot == scr(0));
  CHECK(t.copies(Block{0, kEveryRank, 0}) == 0);
}

TEST_CASE("buffers: an alltoall in place starts with the input's layout in the output") {
  const BufferState s(Collective::alltoall, 3, {2, true, 0, 6, 0});
  CHECK(s.at(1, out(0)) == Block{1, 0, 0});  // output slot d*c + k holds (r, d, k)
  CHECK(s.at(1, out(5)) == Block{1, 2, 1});
  CHECK(s.at(1, out(2)) == Block{1, 1, 0});  // its own block, where it ends
  CHECK(s.misplaced().count == 3 * 4);       // every slot but the rank's own two
  CHECK(s.copies(Block{2, 0, 1}) == 1);
}

TEST_CASE(
    "buffers: a slot written by three ops in one phase: each double write names the op "
    "before it") {
  for (const auto codes : {BufferState::Codes::narrowest, BufferState::Codes::wide}) {
    BufferState s(Collective::alltoall, 2, {1, false, 2, 2, 1}, codes);
    const auto faults = run(s, 0,
                            ops("thrice", {copy(0, in(0), scr(0)), send(1, 0, in(0), out(1)),
                                           copy(0, in(1), scr(0)), copy(0, in(0), scr(0))}));
    REQUIRE(faults.size() == 2);
    CHECK(faults[0] == OpFault{OpFault::Kind::double_write, 2, 0, scr(0), 0});
    CHECK(faults[1] == OpFault{OpFault::Kind::double_write, 3, 0, scr(0), 2});
    CHECK(s.at(0, scr(0)) == Block{0, 0});  // the last write wins
    CHECK(s.at(0, out(1)) == Block{1, 0});
  }
}

TEST_CASE("buffers: 4-byte and 8-byte slots hold the same chunks and form the same tables") {
  // Three ranks, two chunks: slots are 4 bytes unless asked for 8; the sends of ranks 0 and 2 to
  // rank 1 are not consecutive, so their transfers gather them.
  const BufferLayout layout{2, false, 6, 6, 2};
  BufferState narrow(Collective::alltoall, 3, layout);
  BufferState wide(Collective::alltoall, 3, layout, BufferState::Codes::wide);
  CHECK(narrow.code_bytes() == 4);
  CHECK(wide.code_bytes() == 8);
  const Phase p = ops("p", {send(0, 1, in(2), out(0), 2), send(2, 1, in(2), out(4), 2),
                            send(0, 1, in(4), scr(0), 2), copy(1, in(2), out(2), 2)});
  Phase a, b;
  CHECK(run(narrow, 0, p, &a).empty());
  CHECK(run(wide, 0, p, &b).empty());
  CHECK(a == b);
  REQUIRE(a.size() == 2);
  CHECK(a[0].src == 0);
  CHECK(std::vector<Block>(a.blocks(a[0]).begin(), a.blocks(a[0]).end()) ==
        std::vector<Block>{{0, 1, 0}, {0, 1, 1}, {0, 2, 0}, {0, 2, 1}});
  CHECK(a[1].src == 2);
  for (Rank r = 0; r < 3; ++r)
    for (std::uint32_t i = 0; i < 6; ++i) CHECK(narrow.at(r, out(i)) == wide.at(r, out(i)));
  CHECK(narrow.at(1, scr(1)) == Block{0, 2, 1});
  CHECK(narrow.misplaced().count == wide.misplaced().count);
  CHECK(narrow.misplaced().count == 3 * 6 - 6);  // rank 1 holds its output
}

TEST_CASE(
    "buffers: the last write of a misplaced output slot, and none for a slot that holds its "
    "chunk") {
  BufferState s(Collective::alltoall, 2, {1, false, 2, 2, 0});
  CHECK(run(s, 0, ops("a", {send(0, 1, in(1), out(1)), copy(1, in(1), out(1))})).size() == 1);
  CHECK(run(s, 1, ops("b", {send(0, 1, in(0), out(0))})).empty());
  // out[1] of rank 1 holds its chunk (1,1) (written last in phase 0); out[0] holds (0,0).
  CHECK(!s.last_write(1, 1));
  REQUIRE(s.last_write(1, 0));
  CHECK(*s.last_write(1, 0) == std::pair<std::uint32_t, std::uint32_t>{1, 0});
  CHECK(!s.last_write(0, 0));  // never written
  const BufferState inplace(Collective::alltoall, 2, {1, true, 0, 2, 0});
  CHECK(inplace.at(0, out(1)) == Block{0, 1});  // there from the start, not where it ends
  CHECK(!inplace.last_write(0, 1));
}
