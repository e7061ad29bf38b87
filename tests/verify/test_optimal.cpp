// Proven optima with known answers: SAT and UNSAT sides, every witness through the verifier, a
// wrong bound caught, a timeout reported as unknown; the forwarding frontier against the counting
// bound, which the solver re-proves here instead of trusting it.

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "core/networks.hpp"
#include "io/json.hpp"
#include "schedules/registry.hpp"
#include "verify/bounds.hpp"
#include "verify/optimal.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;

namespace {

/// The optimum with no bound given (the solver proves every UNSAT below it itself), and a check
/// that the witness is a valid, contention-free direct schedule in that many phases.
OptimalResult solve(const Topology& model, OptimalOptions o = {}) {
  const OptimalResult r = optimal_phases(model, o);
  if (r.witness) {
    const Report check = verify::verify(*r.witness, model);
    CHECK(check.passed(CheckId::delivery));
    CHECK(check.passed(CheckId::contention));
    CHECK(check.counts.direct);
    CHECK(check.counts.phases == r.upper);
    CHECK(r.witness_check.verdict == Verdict::pass);  // the library checked it too
  }
  return r;
}

/// Whether the solver answered `answer` at `phases`; "unsat" also matches "unsat (certified
/// clique)".
bool has_step(const OptimalResult& r, std::uint64_t phases, const std::string& answer) {
  for (const auto& s : r.steps)
    if (s.phases == phases && s.answer.rfind(answer, 0) == 0) return true;
  return false;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace

TEST_CASE("optimal: Faraj-Yuan Fig. 1 needs 9 phases, and 8 are impossible") {
  const Topology fig1 =
      io::read_topology_file(PHASECHECK_SOURCE_DIR "/examples/faraj-yuan-fig1/topology.json");
  const OptimalResult r = solve(fig1);
  CHECK(r.proven);
  CHECK(r.upper == 9);
  CHECK(has_step(r, 9, "sat"));
  CHECK(has_step(r, 8, "unsat (certified clique)"));
  CHECK(r.clique == 9);  // the messages over the busiest link

  // Without the clique the solver proves UNSAT at 8 by search alone.
  OptimalOptions first;
  first.symmetry = Symmetry::first;
  const OptimalResult f = solve(fig1, first);
  CHECK(f.proven);
  CHECK(f.upper == 9);
  CHECK(f.clique == 1);
  bool searched = false;
  for (const auto& step : f.steps) searched |= step.phases == 8 && step.answer == "unsat";
  CHECK(searched);
}

TEST_CASE("optimal: a clique is certified pair by pair, and a false one is refused") {
  const Topology fig1 =
      io::read_topology_file(PHASECHECK_SOURCE_DIR "/examples/faraj-yuan-fig1/topology.json");
  CHECK(certify_clique(fig1, conflict_clique(fig1)).empty());
  CHECK(certify_clique(Cluster({1, 2, 3}), conflict_clique(Cluster({1, 2, 3}))).empty());
  CHECK(certify_clique(FullyConnected(5, 1), {{0, 1}, {0, 2}, {0, 3}, {0, 4}}).empty());
  // Disjoint pairs share a phase on one port; two ports let rank 0 send twice.
  CHECK(certify_clique(FullyConnected(5, 1), {{0, 1}, {2, 3}}) ==
        "messages 0->1 and 2->3 can share a phase");
  CHECK(certify_clique(FullyConnected(5, 2), {{0, 1}, {0, 2}}) ==
        "messages 0->1 and 0->2 can share a phase");
  // On a cluster the two directions between two nodes are one exchange: no conflict.
  CHECK(certify_clique(Cluster({1, 1}), {{0, 1}, {1, 0}}) ==
        "messages 0->1 and 1->0 can share a phase");
  CHECK(certify_clique(Cluster({2, 1}), {{0, 2}, {1, 2}}).empty());  // node 0: two operations
}

TEST_CASE("optimal: clusters, where the solver proves the UNSAT side itself") {
  struct Case {
    std::vector<Rank> sizes;
    std::uint64_t optimum;
  };
  // 1,1,1: one exchange per node and phase; size * (p - 1) = 2 is not enough, 3 is.
  for (const Case& c :
       {Case{{1, 1, 1}, 3}, Case{{2, 2, 1}, 8}, Case{{1, 1, 1, 1}, 3}, Case{{1, 1, 1, 1, 1}, 5}}) {
    CAPTURE(c.optimum);
    for (const Symmetry s : {Symmetry::clique, Symmetry::first, Symmetry::none})
      for (const Encoding e : {Encoding::cardinality, Encoding::pairwise}) {
        OptimalOptions o;
        o.symmetry = s;
        o.encoding = e;
        const OptimalResult r = solve(Cluster(c.sizes), o);
        CHECK(r.proven);
        CHECK(r.upper == c.optimum);
        CHECK(has_step(r, c.optimum - 1, "unsat"));
      }
  }
}

TEST_CASE("optimal: cluster 1,2,3 needs 15 phases: a witness, and a certified clique below") {
  // The 15 messages the node of size 3 sends pairwise conflict (one operation per node and
  // phase); Z3 checks each pair, so 14 phases are impossible. A plain UNSAT search at 14 (one
  // message fixed) does not finish in minutes: docs/optimality.md.
  const Topology model = Cluster({1, 2, 3});
  CHECK(best_bounds(lower_bounds(model, Collective::alltoall), true).first == 15);
  const OptimalResult r = solve(model);
  CHECK(r.proven);
  CHECK(r.upper == 15);
  CHECK(r.clique == 15);
  CHECK(has_step(r, 15, "sat"));
  CHECK(has_step(r, 14, "unsat (certified clique)"));
}

TEST_CASE("optimal: k-port, a rank sends to one rank and receives from another in a phase") {
  for (Rank p = 2; p <= 7; ++p)
    for (Rank k = 1; k < p; ++k) {
      CAPTURE(p);
      CAPTURE(k);
      const OptimalResult r = solve(FullyConnected(p, k));
      CHECK(r.proven);
      CHECK(r.upper == ceil_div(p - 1, k));
    }
  const OptimalResult five = solve(FullyConnected(5, 1));
  CHECK(five.upper == 4);
  CHECK(has_step(five, 3, "unsat"));
}

TEST_CASE("optimal: routed models, never below their bounds") {
  for (const Topology& model : {Topology(Hypercube(2)), Topology(Hypercube(3)),
                                Topology(Mesh(2, 3, false)), Topology(Ring(5))}) {
    CAPTURE(describe(model));
    const auto bound = best_bounds(lower_bounds(model, Collective::alltoall), true).first;
    const OptimalResult r = solve(model);
    CHECK(r.proven);
    CHECK(r.upper >= bound);
  }
}

TEST_CASE("optimal: a link of capacity c takes c messages per phase, a capacity-1 link one") {
  // Two nodes of two gpus: 4 messages cross each way between the nodes, 3 reach every gpu.
  const OptimalResult one_nic = solve(gpu_cluster(2, 2, 1));
  CHECK(one_nic.proven);
  CHECK(one_nic.upper == 4);  // the NIC link carries one message per phase
  CHECK(one_nic.clique == 4);
  const OptimalResult two_nics = solve(gpu_cluster(2, 2, 2));
  CHECK(two_nics.proven);
  CHECK(two_nics.upper == 3);  // two parallel links: the gpus' single ports bind
  CHECK(two_nics.clique == 3);
  // xgmi: each gpu drives its three links at once.
  const OptimalResult xgmi4 = solve(xgmi(4));
  CHECK(xgmi4.proven);
  CHECK(xgmi4.upper == 1);
  CHECK(xgmi4.clique == 1);

  // The messages over a link of capacity 2 do not pairwise conflict, and the clique skips it.
  const Topology t = gpu_cluster(2, 2, 2);
  CHECK(certify_clique(t, {{0, 2}, {1, 3}}) == "messages 0->2 and 1->3 can share a phase");
  CHECK(certify_clique(t, conflict_clique(t)).empty());
  // When every link has capacity > 1, one message is the clique.
  const Topology wide = Graph({"a", "b"}, {{"a", "b"}}, {1, 1}, {2}, {2, 2});
  CHECK(conflict_clique(wide) == std::vector<std::pair<Rank, Rank>>{{0, 1}});
  const OptimalResult w = solve(wide);
  CHECK(w.proven);
  CHECK(w.upper == 1);
}

TEST_CASE("optimal: a bound above the optimum is caught, not believed") {
  OptimalOptions o;
  o.lower = 5;  // wrong: 4 phases suffice on fully-connected(5, 1)
  const OptimalResult r = optimal_phases(FullyConnected(5, 1), o);
  CHECK_FALSE(r.proven);
  CHECK(r.why.find("the bound or the encoding is wrong") != std::string::npos);
}

TEST_CASE("optimal: a timeout is unknown, never proven") {
  OptimalOptions o;
  o.timeout = 0.05;
  o.symmetry = Symmetry::none;
  const OptimalResult r = optimal_phases(Ring(12), o);  // 18 phases: undecided in seconds
  CHECK_FALSE(r.proven);
  CHECK_FALSE(r.witness);
  REQUIRE_FALSE(r.steps.empty());
  CHECK(r.steps.back().answer.rfind("unknown", 0) == 0);
  CHECK(r.why.find("gave up") != std::string::npos);
}

TEST_CASE("optimal: more than 12 ranks is refused") {
  CHECK_THROWS_AS(optimal_phases(FullyConnected(13, 1), {}), InputError);
}

TEST_CASE("reach bound: Theorem 2.5 where it applies, never above a Bruck schedule") {
  CHECK(reach_c2_bound(8, 1, 3) == 12);  // n d / (k + 1) = 8 * 3 / 2
  CHECK(reach_c2_bound(9, 2, 2) == 6);
  CHECK(reach_c2_bound(27, 2, 3) == 27);
  CHECK(reach_c2_bound(7, 1, 4) == 8);  // 6 + 2: two blocks per origin need two hops
  CHECK(reach_c2_bound(8, 1, 2) == 0);  // 2 rounds reach 4 ranks: no schedule
  CHECK(reach_c2_bound(5, 1, 4) == 4);  // direct: n - 1
  CHECK(reach_c2_bound(6, 7, 1) == 1);  // more ports than ranks
  const auto& bruck = *schedules::find_algorithm("bruck-index");
  for (Rank n = 2; n <= 20; ++n)
    for (Rank k = 1; k <= 3 && k < n; ++k)
      for (Rank r = 2; r <= n; ++r) {
        Parameters p;
        p.set("radix", std::to_string(r));
        p.set("ports", std::to_string(k));
        const Topology model = FullyConnected(n, k);
        const Report rep = verify::verify(schedules::generate(bruck, model, p), model);
        CAPTURE(n);
        CAPTURE(k);
        CAPTURE(r);
        REQUIRE(rep.passed(CheckId::delivery));
        CHECK(reach_c2_bound(n, k, rep.counts.c1) <= rep.counts.c2);
      }
}

TEST_CASE("forwarding: the frontier of n = 6, k = 1, every point re-proven by the solver") {
  ForwardingOptions o;
  o.confirm_bound = true;  // the counting bound is not trusted here: UNSAT below each point
  const ForwardingResult r = optimal_forwarding(FullyConnected(6, 1), o);
  CHECK(r.c1_proven);
  REQUIRE(r.frontier.size() == 3);
  const std::uint64_t c2[] = {7, 6, 5};
  for (std::size_t i = 0; i < 3; ++i) {
    const FrontierPoint& p = r.frontier[i];
    CAPTURE(p.c1);
    CHECK(p.c1 == 3 + i);
    CHECK(p.c2_upper == c2[i]);
    CHECK(p.proven);
    CHECK(p.proof == "unsat");
    CHECK(p.c2_upper == reach_c2_bound(6, 1, p.c1));  // the bound is tight here
    REQUIRE(p.witness);
    const Report check = verify::verify(*p.witness, FullyConnected(6, 1));
    CHECK(check.passed(CheckId::delivery));
    CHECK(check.passed(CheckId::contention));
    CHECK(check.counts.c2 == p.c2_upper);
  }
}

TEST_CASE("forwarding: where Bruck et al. miss by some data (n = 6, k = 2)") {
  const Topology model = FullyConnected(6, 2);
  ForwardingOptions o;
  for (Rank r = 2; r <= 6; ++r) {
    Parameters p;
    p.set("radix", std::to_string(r));
    p.set("ports", "2");
    o.known.push_back({"bruck-index r=" + std::to_string(r),
                       schedules::generate(*schedules::find_algorithm("bruck-index"), model, p)});
  }
  const ForwardingResult res = optimal_forwarding(model, o);
  REQUIRE(!res.frontier.empty());
  const FrontierPoint& first = res.frontier.front();
  CHECK(first.c1 == 2);
  CHECK(first.c2_upper == 4);  // the best radix gives 5
  CHECK(first.proof == "unsat");
  CHECK(first.source == "solver");
  REQUIRE(first.witness);
  CHECK(verify::verify(*first.witness, model).passed(CheckId::delivery));
}

TEST_CASE("forwarding: concatenation, a transfer limit, and refusals") {
  ForwardingOptions gather;
  gather.collective = Collective::allgather;
  gather.confirm_bound = true;
  const ForwardingResult g = optimal_forwarding(FullyConnected(5, 1), gather);
  REQUIRE(g.frontier.size() == 1);  // C1 = 3 and C2 = n - 1 at once
  CHECK(g.frontier[0].c1 == 3);
  CHECK(g.frontier[0].c2_upper == 4);
  CHECK(g.frontier[0].proven);

  ForwardingOptions one;
  one.max_transfer = 1;  // one block per transfer: only direct schedules remain
  const ForwardingResult d = optimal_forwarding(FullyConnected(5, 1), one);
  REQUIRE(d.frontier.size() == 1);
  CHECK(d.frontier[0].c1 == 4);

  CHECK_THROWS_AS(optimal_forwarding(FullyConnected(9, 1), {}), InputError);
  CHECK_THROWS_AS(optimal_forwarding(Hypercube(2), {}), InputError);
}

TEST_CASE("optimal: the library checks every witness, and a broken one is never proven") {
  const Topology model = FullyConnected(3, 1);
  const OptimalResult r = optimal_phases(model, {});
  REQUIRE(r.proven);
  REQUIRE(r.witness);
  CHECK(r.witness_check.verdict == Verdict::pass);
  const auto direct = [](const Counts& c) { return c.direct ? "" : std::string("not direct"); };
  SUBCASE("a witness missing a message fails delivery, with its counterexample") {
    Schedule broken = *r.witness;
    Phase& last = broken.phases.back();
    Phase fewer(last.label());
    const auto transfers = last.transfers();
    for (std::size_t i = 1; i < transfers.size(); ++i)
      fewer.add(transfers[i].src, transfers[i].dst, last.blocks(transfers[i]));
    last = fewer;
    const CheckResult c = check_witness(broken, model, direct);
    CHECK(c.verdict == Verdict::fail);
    CHECK(c.summary.starts_with("delivery fails"));
    REQUIRE(c.counterexample);
  }
  SUBCASE("a witness that overloads a port fails contention") {
    Schedule crowded = *r.witness;
    Phase all("everything at once");
    for (const Phase& p : crowded.phases)
      for (const Transfer& t : p.transfers()) all.add(t.src, t.dst, p.blocks(t));
    crowded.phases = {all};
    const CheckResult c = check_witness(crowded, model, direct);
    CHECK(c.verdict == Verdict::fail);
    CHECK(c.summary.starts_with("contention fails"));
  }
  SUBCASE("what the caller expects of the counts is part of the check") {
    const CheckResult c =
        check_witness(*r.witness, model, [](const Counts&) { return std::string("too long"); });
    CHECK(c.verdict == Verdict::fail);
    CHECK(c.summary.starts_with("too long"));
  }
}

TEST_CASE("an optimum's verdict: a failing witness is fail, proven is pass, anything else unknown") {
  verify::OptimalResult r;
  CHECK(r.verdict() == verify::Verdict::unknown);
  r.proven = true;
  CHECK(r.verdict() == verify::Verdict::pass);
  r.witness_check.verdict = verify::Verdict::fail;
  CHECK(r.verdict() == verify::Verdict::fail);

  verify::ForwardingResult f;
  f.c1_proven = true;
  f.frontier.push_back({});
  f.frontier.back().proven = true;
  CHECK(f.verdict() == verify::Verdict::pass);
  f.frontier.push_back({});  // an open point
  CHECK(f.verdict() == verify::Verdict::unknown);
  f.frontier.back().witness_check.verdict = verify::Verdict::fail;
  CHECK(f.verdict() == verify::Verdict::fail);
  f.frontier.pop_back();
  f.c1_proven = false;
  CHECK(f.verdict() == verify::Verdict::unknown);
}
