#include <doctest/doctest.h>

#include "helpers.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::testing;
using verify::Verdict;

namespace {

const verify::CheckResult& check(const verify::Report& r, CheckId id) {
  for (const auto& c : r.checks)
    if (c.id == id) return c;
  FAIL("no check " << to_string(id));
  return r.checks.front();
}

verify::Report judge(const Schedule& s) { return verify::verify(s, s.header.topology); }

/// `s` with op `index` of phase `phase` replaced by `with`.
Schedule replaced(Schedule s, std::size_t phase, std::size_t index, BufferOp with) {
  Phase p(s.phases[phase].label());
  for (std::size_t i = 0; i < s.phases[phase].ops().size(); ++i)
    p.add(i == index ? with : s.phases[phase].ops()[i]);
  s.phases[phase] = std::move(p);
  return s;
}

/// `s` without op `index` of phase `phase`.
Schedule without(Schedule s, std::size_t phase, std::size_t index) {
  Phase p(s.phases[phase].label());
  for (std::size_t i = 0; i < s.phases[phase].ops().size(); ++i)
    if (i != index) p.add(s.phases[phase].ops()[i]);
  s.phases[phase] = std::move(p);
  return s;
}

}  // namespace

TEST_CASE("placement: the direct alltoall program over 3 ranks passes every check") {
  const auto r = judge(direct_program_3());
  CHECK(r.verdict() == Verdict::pass);
  CHECK(check(r, CheckId::placement).summary ==
        "every output slot holds its chunk (9 slots, 9 chunk moves)");
  CHECK(check(r, CheckId::delivery).verdict == Verdict::pass);
  CHECK(r.counts.phases == 2);
  CHECK(r.counts.c1 == 2);
  CHECK(r.counts.direct);
}

TEST_CASE("placement: two receives into swapped output slots are caught with their writer") {
  // Rank 1 receives (0,1) into output[2] and (2,1) into output[0]: every block reaches the right
  // rank, so delivery passes; only the placement check sees it.
  Schedule s = replaced(direct_program_3(), 0, 3, send(0, 1, in(1), out(2)));
  s = replaced(s, 1, 2, send(2, 1, in(1), out(0)));
  const auto r = judge(s);
  CHECK(check(r, CheckId::delivery).verdict == Verdict::pass);
  const auto& p = check(r, CheckId::placement);
  REQUIRE(p.verdict == Verdict::fail);
  CHECK(p.summary == "2 of 9 output slots hold the wrong chunk");
  REQUIRE(p.counterexample);
  CHECK(p.counterexample->explanation ==
        "rank 1: output[0] holds (2,1,0), expected (0,1,0); it was written in phase 1 by the send "
        "from rank 2, reading input[1] (op 2). (0,1,0) is left in rank 1 output[2]");
  CHECK(p.counterexample->resource == "rank 1 output[0]");
  REQUIRE(p.counterexample->ops.size() == 1);
  CHECK(p.counterexample->ops[0].phase == 1);
  CHECK(p.counterexample->ops[0].op == send(2, 1, in(1), out(0)));
}

TEST_CASE("placement: a forgotten self copy is a bug") {
  const auto r = judge(without(direct_program_3(), 0, 1));
  const auto& p = check(r, CheckId::placement);
  REQUIRE(p.verdict == Verdict::fail);
  CHECK(p.counterexample->explanation ==
        "rank 1: output[1] holds nothing, expected (1,1,0); no op ever writes it. (1,1,0) is left "
        "in rank 1 input[1]");
  CHECK(check(r, CheckId::delivery).verdict == Verdict::pass);  // the table cannot see it
}

TEST_CASE("placement: a read beyond a buffer names the op, the rank and the slot") {
  const auto r = judge(replaced(direct_program_3(), 1, 0, send(0, 2, in(3), out(0))));
  const auto& p = check(r, CheckId::placement);
  REQUIRE(p.verdict == Verdict::fail);
  CHECK(p.summary.starts_with("1 faulty read or write"));
  CHECK(p.counterexample->phase == 1);
  CHECK(p.counterexample->label == "shift 2");
  CHECK(p.counterexample->phase_size == 3);
  CHECK(p.counterexample->explanation ==
        "op 0 (send 0 -> 2: input[3] -> output[0]) reads input[3] of rank 0, beyond its 3 input "
        "slots");
}

TEST_CASE("placement: two writes to one slot in one phase are a conflict") {
  const auto r = judge(replaced(direct_program_3(), 1, 2, send(2, 0, in(0), out(1))));
  const auto& p = check(r, CheckId::placement);
  REQUIRE(p.verdict == Verdict::fail);
  CHECK(p.counterexample->explanation ==
        "rank 0 output[1] is written twice in phase 1: by op 1 (send 1 -> 0: input[0] -> "
        "output[1]) and op 2 (send 2 -> 0: input[0] -> output[1])");
  REQUIRE(p.counterexample->ops.size() == 2);
  CHECK(p.counterexample->ops[0].index == 1);
  CHECK(p.counterexample->ops[1].index == 2);
}

TEST_CASE("placement: the phase and op where a chunk's last copy was lost") {
  // An allgather in place keeps its chunks in the output only: rank 1 overwrites rank 0's only
  // copy of (0,0) before anyone has read it.
  const BufferLayout layout{1, true, 0, 2, 0};
  std::vector<Phase> phases;
  phases.push_back(ops("clobber", {send(1, 0, out(1), out(0))}));
  const auto r = judge(program(Collective::allgather, 2, layout, std::move(phases)));
  const auto& p = check(r, CheckId::placement);
  REQUIRE(p.verdict == Verdict::fail);
  CHECK(p.counterexample->explanation ==
        "rank 0: output[0] holds (1,0), expected (0,0); it was written in phase 0 by the send from "
        "rank 1, reading output[1] (op 0). The last copy of (0,0) was lost in phase 0: op 0 (send "
        "1 -> 0: output[1] -> output[0]) overwrote rank 0 output[0]");
  CHECK(p.counterexample->ops.size() == 2);
}

TEST_CASE("placement: a version-3 allgather in place with two chunks") {
  const BufferLayout layout{2, true, 0, 4, 0};
  std::vector<Phase> phases;
  phases.push_back(ops("exchange", {send(0, 1, out(0), out(0), 2), send(1, 0, out(2), out(2), 2)}));
  const Schedule s = program(Collective::allgather, 2, layout, std::move(phases));
  const auto r = judge(s);
  CHECK(r.verdict() == Verdict::pass);
  CHECK(check(r, CheckId::delivery).summary ==
        "every block reaches every rank that needs it exactly once (4 deliveries)");
  CHECK(r.counts.c2 == 2);
}

TEST_CASE("placement: a chunk arriving twice by network at a rank that needs it is a duplicate") {
  Schedule s = direct_program_3();
  Phase again = ops("again", {send(0, 1, in(1), out(0))});
  s.phases.push_back(again);
  const auto r = judge(s);
  CHECK(check(r, CheckId::placement).verdict == Verdict::pass);  // the right chunk, rewritten
  CHECK(check(r, CheckId::delivery).verdict == Verdict::fail);
  CHECK(check(r, CheckId::delivery).counterexample->explanation ==
        "block [0,1] arrives at rank 1 again in phase 2 (it arrived there in an earlier phase)");
}

// --- an alltoall in place (format 4): the output starts with the input's layout

namespace {

/// Shift 1 then shift 2 over 3 ranks in place; `save`: each rank first copies its message to
/// r + 2, whose output slot shift 1 overwrites, to scratch and sends it from there.
Schedule inplace_shift(bool save) {
  std::vector<Phase> phases;
  Phase shift1 = ops("shift 1", {send(0, 1, out(1), out(0)), send(1, 2, out(2), out(1)),
                                 send(2, 0, out(0), out(2))});
  if (save)
    for (Rank r = 0; r < 3; ++r) shift1.add(copy(r, out((r + 2) % 3), scr(0)));
  phases.push_back(shift1);
  const Buffer from = save ? Buffer::scratch : Buffer::output;
  phases.push_back(
      ops("shift 2", {send(0, 2, {from, save ? 0u : 2u}, out(0)), send(1, 0, {from, 0u}, out(1)),
                      send(2, 1, {from, save ? 0u : 1u}, out(2))}));
  return program(Collective::alltoall, 3, {1, true, 0, 3, save ? 1u : 0u}, std::move(phases), 2);
}

}  // namespace

TEST_CASE("placement: an alltoall in place, its own blocks already where they end") {
  const auto r = judge(inplace_shift(true));
  CHECK(r.inplace);
  CHECK(r.verdict() == Verdict::pass);
  CHECK(check(r, CheckId::placement).summary ==
        "every output slot holds its chunk (9 slots, 9 chunk moves)");  // no self copy
  CHECK(check(r, CheckId::delivery).summary ==
        "every block reaches every rank that needs it exactly once (6 deliveries)");
}

TEST_CASE("placement: in place, a rank that overwrites a slot it still had to send") {
  // Shift 1 writes (r, r + 1) into rank r + 1's output[r], which held r + 1's message to r,
  // sent only by shift 2: shift 2 sends the chunk that overwrote it.
  const auto r = judge(inplace_shift(false));
  const auto& p = check(r, CheckId::placement);
  REQUIRE(p.verdict == Verdict::fail);
  CHECK(p.summary == "3 of 9 output slots hold the wrong chunk");
  REQUIRE(p.counterexample);
  CHECK(p.counterexample->explanation ==
        "rank 0: output[1] holds (0,1,0), expected (1,0,0); it was written in phase 1 by the send "
        "from rank 1, reading output[0] (op 1). The last copy of (1,0,0) was lost in phase 0: op "
        "0 (send 0 -> 1: output[1] -> output[0]) overwrote rank 1 output[0]");
  REQUIRE(p.counterexample->ops.size() == 2);
  CHECK(p.counterexample->ops[1].op == send(0, 1, out(1), out(0)));
  // The table of its sends has rank 1 pass on (0,1,0) in place of its own message to 0.
  CHECK(check(r, CheckId::delivery).verdict == Verdict::fail);
}

TEST_CASE("placement: in place there is no input buffer to read") {
  std::vector<Phase> phases;
  phases.push_back(ops("from the input", {send(0, 1, in(1), out(0))}));
  const auto r = judge(program(Collective::alltoall, 2, {1, true, 0, 2, 0}, std::move(phases)));
  const auto& p = check(r, CheckId::placement);
  REQUIRE(p.verdict == Verdict::fail);
  CHECK(p.counterexample->explanation ==
        "op 0 (send 0 -> 1: input[1] -> output[0]) reads input[1] of rank 0, beyond its 0 input "
        "slots");
}

TEST_CASE("placement: past 2^20 misplaced slots, the first still names the op that wrote it last") {
  // 1100 ranks, one chunk: every rank copies its input one slot along its output, the highest rank
  // first, so the writers of rank 0's slots are no longer kept in full when they are written
  // (1,210,000 misplaced slots, 2^20 kept).
  const Rank p = 1100;
  Phase shift("shift by one");
  for (Rank r = p; r-- > 0;) {
    shift.add(copy(r, in(0), out(1), p - 1));
    shift.add(copy(r, in(p - 1), out(0)));
  }
  verify::PlacementChecker checker(Collective::alltoall, p,
                                   natural_layout(Collective::alltoall, p, 1));
  checker.consume(0, shift);
  const verify::CheckResult r = checker.finish();
  CHECK(r.summary == "1210000 of 1210000 output slots hold the wrong chunk");
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->explanation ==
        "rank 0: output[0] holds (0,1099,0), expected (0,0,0); it was last written in phase 0 by "
        "op 2199. (0,0,0) is left in rank 0 output[1]");
}
