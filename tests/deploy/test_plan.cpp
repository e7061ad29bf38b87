// deploy/plan.hpp: what a verified schedule becomes for the C runtime, and what is refused.
#include "deploy/plan.hpp"
#include "deploy/deploy.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/error.hpp"
#include "helpers.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::deploy {
namespace {

using namespace phasecheck::testing;
using programs::Op;
using programs::Separation;

std::size_t count_kind(const RankPlan& r, Op::Kind k) {
  return std::count_if(r.steps.begin(), r.steps.end(), [&](const Step& s) { return s.kind == k; });
}

TEST_CASE("separation_for: pairwise on routed models, none where ports never limit, else barrier") {
  CHECK(separation_for(SyncChoice::automatic, Hypercube(3)) == Separation::pairwise);
  CHECK(separation_for(SyncChoice::automatic, Ring(5)) == Separation::pairwise);
  CHECK(separation_for(SyncChoice::automatic, FullyConnected(4, 3)) == Separation::none);
  CHECK(separation_for(SyncChoice::automatic, FullyConnected(4, 1)) == Separation::barrier);
  CHECK(separation_for(SyncChoice::automatic, Cluster({1, 2, 3})) == Separation::barrier);
  CHECK(separation_for(SyncChoice::none, Hypercube(3)) == Separation::none);
  CHECK(separation_for(SyncChoice::barrier, FullyConnected(4, 3)) == Separation::barrier);
  CHECK_THROWS_AS(parse_sync_choice("pairwize"), InputError);
  CHECK(parse_sync_choice("auto") == SyncChoice::automatic);
}

TEST_CASE("check: a forwarding phase table (hypercube-exchange, p = 4) is lowered and planned") {
  const Schedule table =
      schedules::generate(schedules::require_algorithm("hypercube-exchange"), Hypercube(2));
  const Checked c = check(table, "hx.json", SyncChoice::automatic);
  REQUIRE_MESSAGE(c.refusal.empty(), c.refusal);
  REQUIRE(c.plan);
  CHECK(c.verdict() == Verdict::pass);
  CHECK(Outcome{{c}, {}, {}}.verdict() == Verdict::pass);
  REQUIRE(c.lowered);  // a table: its buffer program was verified too
  CHECK(c.lowered->passed(CheckId::placement));
  CHECK(c.separation == Separation::pairwise);
  const Plan& p = *c.plan;
  CHECK(p.ranks == 4);
  CHECK(p.chunks == 1);
  CHECK(p.programs.size() == 4);
  CHECK(p.phase_labels.size() == 2);
  CHECK(p.scratch > 0);  // relayed blocks wait in scratch
  CHECK(p.verdict.find("checks pass") != std::string::npos);
  for (const RankPlan& r : p.programs) {
    CHECK(count_kind(r, Op::Kind::send) == 2);  // one message per dimension
    CHECK(count_kind(r, Op::Kind::recv) == 2);
    CHECK(count_kind(r, Op::Kind::wait) == 2);
    CHECK(r.requests >= 2);
    // Each message carries 2 blocks (p/2); every step names the slots of all of them.
    for (const Step& s : r.steps)
      if (s.kind == Op::Kind::send || s.kind == Op::Kind::recv) CHECK(s.chunks == 2);
  }
}

TEST_CASE("check: a schedule that fails a check is refused, naming the check") {
  // The direct alltoall over 3 ranks without its second phase: blocks never arrive.
  Schedule broken = direct_program_3();
  broken.phases.pop_back();
  const Checked c = check(broken, "broken.json", SyncChoice::none);
  CHECK_FALSE(c.plan);
  // The verdict is the deploy library's: a refused schedule fails, and so does the whole run,
  // as does a run with no schedule at all (nothing is written).
  CHECK(c.verdict() == Verdict::fail);
  CHECK(Outcome{{c}, {}, {}}.verdict() == Verdict::fail);
  CHECK(Outcome{}.verdict() == Verdict::fail);
  CHECK(c.refusal.find("it does not verify (") == 0);
  CHECK(c.refusal.find("placement: fail") != std::string::npos);
}

TEST_CASE("check: more ranks than deploy compiles is bad input") {
  Schedule big{header(FullyConnected(kMaxDeployRanks + 1, 1)), {}};
  CHECK_THROWS_WITH_AS(check(big, "big.json", SyncChoice::none),
                       doctest::Contains("deploy works on at most 1024 ranks"), InputError);
}

TEST_CASE("check: --sync pairwise on a model that does not route is bad input") {
  CHECK_THROWS_WITH_AS(check(direct_program_3(), "d.json", SyncChoice::pairwise),
                       doctest::Contains("pair-wise synchronization needs a routed model"),
                       InputError);
}

TEST_CASE("make_plan: sends and receives of disjoint slots go straight to the user's buffers") {
  const Checked c = check(direct_program_3(), "d3.json", SyncChoice::none);
  REQUIRE(c.plan);
  for (const RankPlan& r : c.plan->programs) {
    CHECK(r.staging == 0);
    for (const Step& s : r.steps) CHECK_FALSE(s.staged);
  }
  // Rank 0, phase 0: receive from 2 into output[2], send to 1 from input[1], self copy.
  const std::vector<Step>& steps = c.plan->programs[0].steps;
  REQUIRE(steps.size() >= 4);
  CHECK(steps[0] == Step{Op::Kind::recv, false, 2, 0, {}, {{Buffer::output, 2, 1}}, 1, 0});
  CHECK(steps[1] == Step{Op::Kind::send, false, 1, 0, {{Buffer::input, 1, 1}}, {}, 1, 0});
  CHECK(steps[2] ==
        Step{Op::Kind::copy, false, 0, 0, {{Buffer::input, 0, 1}}, {{Buffer::output, 0, 1}}, 1, 0});
  CHECK(steps[3].kind == Op::Kind::wait);
}

TEST_CASE("make_plan: a phase that reads a slot it writes stages its writes (a swap in scratch)") {
  // Rank r: scratch[0..1] = input[..]; then swap scratch[0] and scratch[1] in one phase; then the
  // messages and self copies from scratch. Slot-level semantics: reads see the phase's start.
  const BufferLayout layout{1, false, 2, 2, 2};
  std::vector<Phase> phases;
  phases.push_back(ops("load", {copy(0, in(0), scr(1)), copy(0, in(1), scr(0)),
                                copy(1, in(0), scr(1)), copy(1, in(1), scr(0))}));
  phases.push_back(ops("swap", {copy(0, scr(0), scr(1)), copy(0, scr(1), scr(0)),
                                copy(1, scr(0), scr(1)), copy(1, scr(1), scr(0))}));
  phases.push_back(ops("exchange", {copy(0, scr(0), out(0)), send(0, 1, scr(1), out(0)),
                                    copy(1, scr(1), out(1)), send(1, 0, scr(0), out(1))}));
  const Schedule s = program(Collective::alltoall, 2, layout, std::move(phases));
  const Checked c = check(s, "swap.json", SyncChoice::none);
  REQUIRE_MESSAGE(c.refusal.empty(), c.refusal);
  const RankPlan& r0 = c.plan->programs[0];
  std::vector<const Step*> swap;
  for (const Step& st : r0.steps)
    if (st.phase == 1 && st.kind == Op::Kind::copy) swap.push_back(&st);
  REQUIRE(swap.size() == 2);
  CHECK(swap[0]->staged);
  CHECK(swap[1]->staged);
  CHECK(swap[0]->staging != swap[1]->staging);  // each its own staging chunk
  CHECK(r0.staging == 2);
  for (const Step& st : r0.steps)
    if (st.phase != 1) CHECK_FALSE(st.staged);  // no hazard in the other phases
}

TEST_CASE("make_plan: output slots beyond p * chunks live in scratch, after the program's own") {
  // p = 2, output of 3 slots: output[2] is spare and used as a relay by rank 0.
  const BufferLayout layout{1, false, 2, 3, 1};
  std::vector<Phase> phases;
  phases.push_back(
      ops("spare", {copy(0, in(1), out(2)), copy(0, in(0), out(0)), copy(1, in(1), out(1))}));
  phases.push_back(ops("send", {send(0, 1, out(2), out(0)), send(1, 0, in(0), out(1))}));
  const Schedule s = program(Collective::alltoall, 2, layout, std::move(phases));
  const Checked c = check(s, "spare.json", SyncChoice::none);
  REQUIRE_MESSAGE(c.refusal.empty(), c.refusal);
  CHECK(c.plan->scratch == 2);  // 1 of its own + 1 spare output slot
  bool found = false;
  for (const Step& st : c.plan->programs[0].steps)
    if (st.kind == Op::Kind::send) {
      CHECK(st.from == std::vector<Segment>{{Buffer::scratch, 1, 1}});
      found = true;
    }
  CHECK(found);
}

TEST_CASE("check: barrier separation puts a barrier after every phase of every rank") {
  const Checked c = check(direct_program_3(), "d3.json", SyncChoice::barrier);
  REQUIRE(c.plan);
  for (const RankPlan& r : c.plan->programs) CHECK(count_kind(r, Op::Kind::barrier) == 2);
}

TEST_CASE("check: a 1-rank schedule of every algorithm deploys, its table and its program verified") {
  // One machine of each kind an algorithm may ask for; each algorithm must take one of them.
  const std::vector<Topology> machines = {FullyConnected(1, 1), Cluster({1}),
                                          Tree({"n0"}, {"s0"}, {{"n0", "s0"}})};
  std::size_t deployed = 0;
  std::size_t applicable = 0;
  for (const schedules::Algorithm& a : schedules::algorithms()) {
    INFO(a.name);
    std::optional<Schedule> table;
    for (const Topology& machine : machines) {
      try {
        table = schedules::generate(a, machine);
        break;
      } catch (const InputError&) {  // not a machine this algorithm is made for
      }
    }
    // Shipped algorithms may refuse one rank (Open MPI's two-process exchange, neighbor exchange at
    // odd p), and deploy serves an MPI_IN_PLACE alltoall out of place (format 4 is refused).
    if (!table || a.in_place) continue;
    ++applicable;
    const Checked c = check(*table, "one-rank.json", SyncChoice::automatic);
    CHECK_MESSAGE(c.refusal.empty(), c.refusal);
    CHECK(c.report.verdict() == Verdict::pass);
    REQUIRE(c.lowered);  // a table: its buffer program was verified too
    CHECK(c.lowered->verdict() == Verdict::pass);
    REQUIRE(c.plan);
    CHECK(c.plan->ranks == 1);
    deployed += c.plan.has_value();
  }
  CHECK(deployed == applicable);
  CHECK(deployed > 0);
}

}  // namespace
}  // namespace phasecheck::deploy
