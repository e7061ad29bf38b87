// Pair-wise synchronization (Faraj & Yuan, Section 5) and per-rank programs: the reduction keeps
// only necessary synchronizations (dropping any one leaves a contending pair unordered, which both
// the graph checker and the replay see), barrier and pairwise programs replay cleanly, and broken
// programs deadlock or stray from the table.

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/buffer_state.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "helpers.hpp"
#include "io/programs_json.hpp"
#include "programs/program.hpp"
#include "programs/replay.hpp"
#include "programs/synchronization.hpp"
#include "schedules/registry.hpp"
#include "verify/synchronization_check.hpp"

using namespace phasecheck;
using namespace phasecheck::programs;
using verify::Verdict;

namespace {

Schedule fig1_schedule() {
  return schedules::generate(*schedules::find_algorithm("faraj-yuan"), testing::fig1_tree());
}

std::vector<std::pair<verify::TransferRef, verify::TransferRef>> refs(
    const SyncPlan& plan, std::size_t without = SIZE_MAX) {
  std::vector<std::pair<verify::TransferRef, verify::TransferRef>> out;
  for (std::size_t k = 0; k < plan.kept.size(); ++k) {
    if (k == without) continue;
    const Message &x = plan.messages[plan.kept[k].first], &y = plan.messages[plan.kept[k].second];
    out.push_back({{x.phase, x.transfer}, {y.phase, y.transfer}});
  }
  return out;
}

}  // namespace

TEST_CASE("synchronization: Fig. 1 needs 8 of 168 naive synchronizations, and each of the 8") {
  const Schedule s = fig1_schedule();
  const SyncPlan plan = pairwise_synchronization(s, s.header.topology);
  CHECK(plan.messages.size() == 30);
  CHECK(plan.contending_pairs == 168);
  CHECK(plan.dependence_edges == 57);
  CHECK(plan.kept.size() == 8);
  for (const auto& [a, b] : plan.kept) {
    CHECK(plan.messages[a].phase < plan.messages[b].phase);
    // A kept synchronization joins two ranks; one that shares a rank would be program order.
    const Message &x = plan.messages[a], &y = plan.messages[b];
    CHECK(x.src != y.src);
  }
  CHECK(verify::check_synchronization(s, s.header.topology, refs(plan)).verdict == Verdict::pass);
  // The reduction left nothing redundant: without any one of them some pair is unordered.
  for (std::size_t k = 0; k < plan.kept.size(); ++k) {
    INFO("without synchronization " << k);
    const auto check = verify::check_synchronization(s, s.header.topology, refs(plan, k));
    CHECK(check.verdict == Verdict::fail);
    REQUIRE(check.counterexample);
    CHECK(check.counterexample->resource.rfind("link ", 0) == 0);
  }
}

TEST_CASE("synchronization: one switch needs none, program order is enough") {
  const Schedule s = schedules::generate(
      *schedules::find_algorithm("faraj-yuan"),
      Tree({"a", "b", "c", "d"}, {"s"}, {{"a", "s"}, {"b", "s"}, {"c", "s"}, {"d", "s"}}));
  const SyncPlan plan = pairwise_synchronization(s, s.header.topology);
  CHECK(plan.kept.empty());
  CHECK(plan.by_program_order > 0);
}

TEST_CASE("synchronization: a table without messages needs none, on routed models only") {
  // No phases, and a phase of local copies only: nothing to order (Boost's transitive reduction
  // is never asked to reduce an empty graph).
  for (const auto& phases :
       {std::vector<Phase>{}, std::vector<Phase>{testing::phase("copies", {{0, 0}, {2, 2}})}}) {
    const Schedule s{testing::header(testing::fig1_tree()), phases};
    const SyncPlan plan = pairwise_synchronization(s, s.header.topology);
    CHECK(plan.messages.empty());
    CHECK(plan.contending_pairs == 0);
    CHECK(plan.dependence_edges == 0);
    CHECK(plan.by_program_order == 0);
    CHECK(plan.kept.empty());
    CHECK(verify::check_synchronization(s, s.header.topology, {}).verdict == Verdict::pass);
    for (const Separation separation : {Separation::barrier, Separation::pairwise}) {
      const auto programs = rank_programs(s, separation, &plan);
      CHECK(replay(s, s.header.topology, programs).verdict == Verdict::pass);
    }
  }
  const Schedule unrouted{testing::header(FullyConnected(3, 1)), {}};
  CHECK_THROWS_WITH_AS(pairwise_synchronization(unrouted, unrouted.header.topology),
                       "pair-wise synchronization needs a routed model (tree, hypercube, mesh or "
                       "ring), not fully-connected(p=3, k=1)",
                       InputError);
}

TEST_CASE(
    "synchronization: routed models, at most kMaxSyncRanks ranks and kMaxSyncMessages messages") {
  const Schedule s = schedules::generate(*schedules::find_algorithm("shift"), FullyConnected(4, 1));
  CHECK_THROWS_WITH_AS(pairwise_synchronization(s, s.header.topology),
                       "pair-wise synchronization needs a routed model (tree, hypercube, mesh or "
                       "ring), not fully-connected(p=4, k=1)",
                       InputError);
  const Schedule big = schedules::generate(*schedules::find_algorithm("shift"), Ring(129));
  CHECK_THROWS_AS(pairwise_synchronization(big, big.header.topology), InputError);
  // Few ranks, but more messages than 128 ranks have: the limit is on messages too (found by
  // fuzz-verifier: randomized-segmented on 8 ranks, 37,504 transfers, ran for minutes).
  Schedule many{testing::header(Ring(2)), {}};
  many.phases.assign(kMaxSyncMessages / 2 + 1, testing::phase("", {{0, 1}, {1, 0}, {1, 1}}));
  CHECK_THROWS_WITH_AS(pairwise_synchronization(many, many.header.topology),
                       "pair-wise synchronization is computed for up to 16256 messages, not 16258 "
                       "(the reduction takes a bit per pair of them; segments count one each)",
                       InputError);
  many.phases.pop_back();
  CHECK(pairwise_synchronization(many, many.header.topology).messages.size() == kMaxSyncMessages);
}

TEST_CASE("replay: pairwise and barrier programs realize Fig. 1, unsynchronized ones overlap") {
  const Schedule s = fig1_schedule();
  const SyncPlan plan = pairwise_synchronization(s, s.header.topology);
  for (Separation sep : {Separation::pairwise, Separation::barrier}) {
    const auto r = replay(s, s.header.topology, rank_programs(s, sep, &plan));
    INFO(to_string(sep) << ": " << r.summary);
    CHECK(r.verdict == Verdict::pass);
  }
  const auto none = replay(s, s.header.topology, rank_programs(s, Separation::none));
  CHECK(none.verdict == Verdict::fail);
  REQUIRE(none.counterexample);
  CHECK(none.counterexample->explanation ==
        "3 -> 2 (phase 3) can start before 5 -> 0 (phase 2) is done, and both use link s1 -> s0");
}

TEST_CASE("replay: a program without one synchronization lets contending messages overlap") {
  const Schedule s = fig1_schedule();
  SyncPlan plan = pairwise_synchronization(s, s.header.topology);
  REQUIRE(!plan.kept.empty());
  plan.kept.erase(plan.kept.begin());
  const auto r = replay(s, s.header.topology, rank_programs(s, Separation::pairwise, &plan));
  CHECK(r.verdict == Verdict::fail);
  CHECK(r.summary.find("can overlap in time") != std::string::npos);
}

TEST_CASE("replay: a missing send deadlocks, a stray one is not in the table") {
  const Schedule s = fig1_schedule();
  auto programs = rank_programs(s, Separation::barrier);
  SUBCASE("rank 0's first send left out: its receiver waits for ever") {
    auto& ops = programs[0].ops;
    ops.erase(std::find_if(ops.begin(), ops.end(),
                           [](const Op& op) { return op.kind == Op::Kind::send; }));
    const auto r = replay(s, s.header.topology, programs);
    CHECK(r.verdict == Verdict::fail);
    CHECK(r.summary == "the programs deadlock");
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->explanation.rfind("deadlock: ranks blocked: ", 0) == 0);
  }
  SUBCASE("a send to the wrong rank") {
    auto& ops = programs[0].ops;
    const auto send = std::find_if(ops.begin(), ops.end(),
                                   [](const Op& op) { return op.kind == Op::Kind::send; });
    send->peer = (send->peer + 1) % 6;
    const auto r = replay(s, s.header.topology, programs);
    CHECK(r.verdict == Verdict::fail);
    CHECK(r.summary == "a program does not follow the table");
  }
}

TEST_CASE("programs: rank 3 of Fig. 1 waits for its synchronization, and JSON names the format") {
  const Schedule s = fig1_schedule();
  const SyncPlan plan = pairwise_synchronization(s, s.header.topology);
  const auto programs = rank_programs(s, Separation::pairwise, &plan);
  const std::string text = listing(programs[3]);
  CHECK(text.find("phase 2  sync-recv from 5") != std::string::npos);
  CHECK(text.find("phase 3  send to 2 (1 block)") != std::string::npos);
  const std::string json = io::programs_to_json(programs, s, "fig1.json", Separation::pairwise);
  CHECK(json.find("\"format\": \"phasecheck.programs/2\"") != std::string::npos);
  CHECK(json.find("\"collective\": \"alltoall\"") != std::string::npos);
  CHECK(json.find("\"separation\": \"pairwise\"") != std::string::npos);
  CHECK(io::programs_to_json(programs, s, "fig1.json", Separation::pairwise) == json);
}

namespace {

/// A buffer program with the tables its sends form filled in, as the reader fills them.
Schedule with_tables(Schedule program) {
  BufferState state(program.header.collective, program.header.ranks(), *program.header.buffers);
  for (std::size_t i = 0; i < program.phases.size(); ++i)
    state.apply(i, program.phases[i].ops(), program.phases[i], [](const OpFault&) {});
  return program;
}

}  // namespace

TEST_CASE("programs: a buffer program's copies belong to their rank, its sends to one message") {
  const Schedule s = with_tables(testing::direct_program_3());
  const auto programs = rank_programs(s, Separation::barrier);
  using K = Op::Kind;
  // Rank 0, phase 0: receives from 2, sends to 1, copies its own chunk (op 0), waits.
  const std::vector<Op> phase_0 = {{K::recv, 2, 0, 2, 1},
                                   {K::send, 1, 0, 0, 1},
                                   {K::copy, 0, 0, 0, 1},
                                   {K::wait, 0, 0, 0, 0},
                                   {K::barrier, 0, 0, 0, 0}};
  REQUIRE(programs[0].ops.size() >= phase_0.size());
  CHECK(std::vector<Op>(programs[0].ops.begin(), programs[0].ops.begin() + 5) == phase_0);
  CHECK(listing(programs[0]).find("phase 0  copy (op 0 of the phase, 1 chunk)") !=
        std::string::npos);
  CHECK(replay(s, s.header.topology, programs).verdict == Verdict::pass);
  const std::string json = io::programs_to_json(programs, s, "direct.json", Separation::barrier);
  CHECK(json.find("\"format\": \"phasecheck.programs/3\"") != std::string::npos);
  CHECK(json.find("\"op\": \"copy\"") != std::string::npos);
  CHECK(json.find("\"parts\"") == std::string::npos);
  CHECK(json.find("\"contents\"") == std::string::npos);
}

namespace {

/// `phases` phases of one message each on fully-connected(ranks, 1): phase i sends from rank
/// ranks - 1 - i to rank ranks - 2 - i, a chain against rank order (a rank's receive comes one
/// phase before its send).
Schedule chain_against_rank_order(Rank ranks, std::uint32_t phases) {
  Schedule s{testing::header(FullyConnected(ranks, 1)), {}};
  for (std::uint32_t i = 0; i < phases; ++i)
    s.phases.push_back(testing::phase("p", {{ranks - 1 - i, ranks - 2 - i}}));
  return s;
}

std::uint64_t operations(const std::vector<RankProgram>& programs) {
  std::uint64_t n = 0;
  for (const RankProgram& p : programs) n += p.ops.size();
  return n;
}

}  // namespace

TEST_CASE(
    "programs: operations are counted before they are made, barriers past the limit refused") {
  const Schedule fig1 = fig1_schedule();
  const SyncPlan plan = pairwise_synchronization(fig1, fig1.header.topology);
  for (const Separation s : {Separation::none, Separation::barrier, Separation::pairwise}) {
    const SyncPlan* sync = s == Separation::pairwise ? &plan : nullptr;
    CHECK(program_operations(fig1, s, sync) == operations(rank_programs(fig1, s, sync)));
  }
  const Schedule program = with_tables(testing::direct_program_3());
  for (const Separation s : {Separation::none, Separation::barrier})
    CHECK(program_operations(program, s) == operations(rank_programs(program, s)));

  // 4,096 ranks, 1,000 phases of one message: a send, a receive and two waits a phase, and with
  // barriers 4,096 more: 4,100,000 operations, 82 MB.
  const Schedule sparse = chain_against_rank_order(4096, 1000);
  CHECK(program_operations(sparse, Separation::none) == 4000);
  CHECK(program_operations(sparse, Separation::barrier) == 4100000);
  const Limits saved = limits();
  Limits small = saved;
  small.max_memory_bytes = std::uint64_t{16} << 20;
  set_limits(small);
  CHECK_THROWS_WITH_AS(rank_programs(sparse, Separation::barrier),
                       doctest::Contains("building the programs of 4096 ranks (4100000 operations: "
                                         "a barrier for every rank in each of 1000 phases; --sync "
                                         "none has none) needs 78.3 MiB, more than the memory "
                                         "limit of 16 MiB"),
                       InputError);
  CHECK(operations(rank_programs(sparse, Separation::none)) == 4000);
  set_limits(saved);
}

TEST_CASE("replay: a chain against rank order runs in time linear in its operations") {
  // Run round-robin, each pass over the ranks would move the chain one message on: 10^5 passes
  // over 10^5 ranks. A blocked rank runs again only when its message arrives.
  const Schedule chain = chain_against_rank_order(100001, 100000);
  const auto programs = rank_programs(chain, Separation::none);
  const auto r = replay(chain, chain.header.topology, programs);
  CHECK(r.verdict == Verdict::pass);
  CHECK(r.summary.rfind("100001 programs run to completion and exchange each of the 100000 "
                        "messages once",
                        0) == 0);
}

TEST_CASE("programs JSON: one program at a time, the document a single dump would write") {
  const Schedule fig1 = fig1_schedule();
  const SyncPlan plan = pairwise_synchronization(fig1, fig1.header.topology);
  const Schedule program = with_tables(testing::direct_program_3());
  for (const std::string& text :
       {io::programs_to_json(rank_programs(fig1, Separation::pairwise, &plan), fig1, "fig1.json",
                             Separation::pairwise),
        io::programs_to_json(rank_programs(program, Separation::barrier), program, "direct.json",
                             Separation::barrier)})
    CHECK(text == nlohmann::ordered_json::parse(text).dump(1) + "\n");
}

TEST_CASE("programs: staging is the most one rank reads and receives in one phase") {
  const Schedule s = testing::direct_program_3();
  // Phase 0: every rank copies one chunk, sends one and receives one.
  CHECK(staging_needs(s) == StagingNeeds{3, 1});
  Schedule beyond = s;
  beyond.phases[1] =
      testing::ops("shift 2", {testing::send(0, 2, testing::in(2), testing::out(2), 2)});
  CHECK_THROWS_WITH_AS(staging_needs(beyond),
                       "phase 1, op 0 (send 0 -> 2: input[2..3] -> output[2..3]) reads beyond "
                       "input (3 slots): no runner can execute it",
                       InputError);
}
