// The Grama et al. algorithms (Section 4.5): ring, mesh, hypercube-exchange, hypercube-pairwise.
// Positive: they verify with forwarded blocks, keep their invariants and cost what Equations 4.7 to
// 4.10 say; hypercube-pairwise is contention-free under e-cube routing for every d <= 10.
// Negative: forwarded blocks sent before they arrive or to the wrong intermediate node, steps
// dropped or merged, each caught by the check that owns it, with the counterexample it gives.

#include <doctest/doctest.h>

#include <algorithm>

#include "helpers.hpp"
#include "schedules/registry.hpp"
#include "verify/cost.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;

namespace {

const schedules::Algorithm& algorithm(std::string_view name) {
  const auto* a = schedules::find_algorithm(name);
  REQUIRE(a != nullptr);
  return *a;
}

Schedule generate(std::string_view name, const Topology& model, Parameters params = {}) {
  return schedules::generate(algorithm(name), model, std::move(params));
}

/// Verifies `phases` as if they were `name`'s schedule for `model`, with its claims.
Report verify_as(std::string_view name, const Topology& model, const std::vector<Phase>& phases,
                 Parameters params = {}) {
  const ScheduleHeader h = schedules::make_header(algorithm(name), model, std::move(params));
  return verify::verify(Schedule{h, phases}, model, algorithm(name).claims(h));
}

const CheckResult& check(const Report& r, CheckId id) {
  const auto it = std::find_if(r.checks.begin(), r.checks.end(),
                               [&](const CheckResult& c) { return c.id == id; });
  REQUIRE(it != r.checks.end());
  return *it;
}

/// The check `id` failed, and its counterexample is at `phase` with `explanation`.
void expect_counterexample(const Report& r, CheckId id, std::size_t phase,
                           const std::string& explanation) {
  const CheckResult& c = check(r, id);
  CHECK(c.verdict == Verdict::fail);
  REQUIRE(c.counterexample);
  CHECK(c.counterexample->phase == phase);
  CHECK(c.counterexample->explanation == explanation);
}

std::string failed(const Report& r) {
  std::string s;
  for (const auto& c : r.checks)
    if (c.verdict != Verdict::pass) s += std::string(c.name()) + ": " + c.summary + "; ";
  return s;
}

/// A copy of `p` with transfer `index` replaced by `replacement` (same blocks unless given).
Phase with_transfer(const Phase& p, std::size_t index, Rank src, Rank dst) {
  Phase out(std::string(p.label()));
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Transfer& t = p[i];
    out.add(i == index ? src : t.src, i == index ? dst : t.dst, p.blocks(t));
  }
  return out;
}

}  // namespace

TEST_CASE("ring: p - 1 steps, messages shrink by one block per step (Fig. 4.18), p = 2..12") {
  for (Rank p = 2; p <= 12; ++p) {
    const Schedule s = generate("ring", Ring(p));
    REQUIRE(s.phases.size() == p - 1);
    for (std::size_t step = 0; step < s.phases.size(); ++step) {
      REQUIRE(s.phases[step].size() == p);
      for (const Transfer& t : s.phases[step].transfers()) {
        CHECK(t.dst == (t.src + 1) % p);
        CHECK(t.block_count == p - 1 - step);
      }
    }
    const Report r = verify::verify(s, Ring(p), algorithm("ring").claims(s.header));
    CHECK_MESSAGE(r.verdict() == Verdict::pass, "p = " << p << ": " << failed(r));
    CHECK(r.counts.c2 == std::uint64_t{p} * (p - 1) / 2);
  }
}

TEST_CASE("ring: a forwarded block sent before it arrives is caught by delivery") {
  // Steps 1 and 2 swapped: in the first phase node 1 forwards node 0's blocks, which it does not
  // have yet.
  std::vector<Phase> phases = generate("ring", Ring(5)).phases;
  std::swap(phases[0], phases[1]);
  const Report r = verify_as("ring", Ring(5), phases);
  expect_counterexample(r, CheckId::delivery, 0,
                        "rank 0 sends block [4,1] in phase 0 but does not hold it");
}

TEST_CASE("ring: blocks sent to the wrong intermediate node are caught, and by the invariant") {
  // Step 1: node 0 sends its consolidated message to node 2 instead of its neighbour 1. Node 1
  // then forwards blocks it never received, and node 1 has received nothing after step 1.
  std::vector<Phase> phases = generate("ring", Ring(5)).phases;
  phases[0] = with_transfer(phases[0], 0, 0, 2);
  const Report r = verify_as("ring", Ring(5), phases);
  expect_counterexample(r, CheckId::delivery, 1,
                        "rank 1 sends block [0,2] in phase 1 but does not hold it");
  expect_counterexample(
      r, CheckId::invariants, 0,
      "after step s every node has received exactly s blocks destined to it fails after phase "
      "0: node 1 has received 0 blocks after step 1, not 1");
}

TEST_CASE("ring: bidirectional takes floor(p/2) steps and stays contention-free on the ring") {
  Parameters both;
  both.set("bidirectional", "true");
  for (Rank p = 2; p <= 12; ++p) {
    const Schedule s = generate("ring", Ring(p), both);
    CHECK(s.phases.size() == p / 2);
    const Report r = verify::verify(s, Ring(p), algorithm("ring").claims(s.header));
    CHECK_MESSAGE(r.verdict() == Verdict::pass, "p = " << p << ": " << failed(r));
  }
}

TEST_CASE("mesh: after the row phase every block is in its destination column") {
  for (const Mesh& m : {Mesh(3, 3, false), Mesh(4, 4, true), Mesh(2, 5, false), Mesh(5, 3, true),
                        Mesh(1, 4, false), Mesh(4, 1, false)}) {
    const Schedule s = generate("mesh", m);
    CHECK(s.phases.size() == (m.cols - 1) + (m.rows - 1));
    const Report r = verify::verify(s, m, algorithm("mesh").claims(s.header));
    CHECK_MESSAGE(r.verdict() == Verdict::pass, describe(Topology(m)) << ": " << failed(r));
  }
}

TEST_CASE("mesh: the row-phase invariant fires at the row phase's end, even without its label") {
  // The last row step dropped (and the labels lost with it): delivery fails at the end, but the
  // invariant names the first block that is not in its destination column, right at the boundary
  // where the row phase should have ended.
  std::vector<Phase> phases = generate("mesh", Mesh(3, 3, false)).phases;
  phases[1] = Phase("nothing");
  const Report r = verify_as("mesh", Mesh(3, 3, false), phases);
  expect_counterexample(
      r, CheckId::invariants, 1,
      "after the row phase every block is in its destination column fails after phase 1: "
      "block [0,2] is not at rank 2 (row 0, column 2)");
}

TEST_CASE("hypercube-exchange: log p steps of p/2 blocks across one dimension (Fig. 4.20)") {
  for (unsigned d = 1; d <= 6; ++d) {
    const Rank p = Rank{1} << d;
    const Schedule s = generate("hypercube-exchange", Hypercube(d));
    REQUIRE(s.phases.size() == d);
    for (unsigned k = 0; k < d; ++k)
      for (const Transfer& t : s.phases[k].transfers()) {
        CHECK(t.dst == (t.src ^ (Rank{1} << k)));
        CHECK(t.block_count == p / 2);
      }
    const Report r =
        verify::verify(s, Hypercube(d), algorithm("hypercube-exchange").claims(s.header));
    CHECK_MESSAGE(r.verdict() == Verdict::pass, "d = " << d << ": " << failed(r));
  }
}

TEST_CASE("hypercube-exchange: the low-bits invariant names a block left behind") {
  // Step 2 of a 3-cube without node 0's transfer: its blocks for nodes with bit 1 set stay put.
  std::vector<Phase> phases = generate("hypercube-exchange", Hypercube(3)).phases;
  Phase step2(std::string(phases[1].label()));
  for (std::size_t i = 1; i < phases[1].size(); ++i)
    step2.add(phases[1][i].src, phases[1][i].dst, phases[1].blocks(phases[1][i]));
  phases[1] = step2;
  const Report r = verify_as("hypercube-exchange", Hypercube(3), phases);
  expect_counterexample(
      r, CheckId::invariants, 1,
      "after step s every block sits on a node that agrees with its destination in the s lowest "
      "dimensions fails after phase 1: block [0,2] is not at node 2 after step 2");
  CHECK(check(r, CheckId::delivery).verdict == Verdict::fail);
}

TEST_CASE("hypercube-pairwise: contention-free under e-cube routing for every d <= 10") {
  // The proof the book gives in words (Section 4.5.3), checked link by link: in step j every node
  // i sends to i xor j along its e-cube path, and no directed link carries two messages.
  for (unsigned d = 0; d <= 10; ++d) {
    const Schedule s = generate("hypercube-pairwise", Hypercube(d));
    const Report r =
        verify::verify(s, Hypercube(d), algorithm("hypercube-pairwise").claims(s.header));
    INFO("d = " << d);
    CHECK(check(r, CheckId::contention).verdict == Verdict::pass);
    CHECK(r.verdict() == Verdict::pass);
    CHECK(r.counts.c1 == (std::size_t{1} << d) - 1);
  }
}

TEST_CASE("hypercube-pairwise: two steps in one phase share an e-cube link") {
  // Steps 1 and 3 merged: i -> i xor 3 starts across dimension 0, the link i -> i xor 1 uses.
  std::vector<Phase> phases = generate("hypercube-pairwise", Hypercube(2)).phases;
  Phase merged("steps 1 and 3");
  for (const Phase* p : {&phases[0], &phases[2]})
    for (const Transfer& t : p->transfers()) merged.add(t.src, t.dst, p->blocks(t));
  const Report r = verify::verify(
      Schedule{generate("hypercube-pairwise", Hypercube(2)).header, {merged, phases[1]}},
      Hypercube(2));
  const CheckResult& contention = check(r, CheckId::contention);
  CHECK(contention.verdict == Verdict::fail);
  REQUIRE(contention.counterexample);
  CHECK(contention.counterexample->resource == "link 0 -> 1");
  CHECK(contention.counterexample->transfers.size() == 2);
}

TEST_CASE("cost: the tables cost exactly what Equations 4.7 to 4.10 say") {
  const LinearCost model{10e-6, 1e-9, 1024};
  struct Case {
    const char* algorithm;
    Topology model;
    std::uint64_t c1, c2;
    double equation;
  };
  const double ts = model.ts, twm = model.tw * model.m;
  const std::vector<Case> cases = {
      {"ring", Ring(6), 5, 15, (ts + twm * 6 / 2) * 5},                      // Eq. 4.7
      {"ring", Ring(9), 8, 36, (ts + twm * 9 / 2) * 8},                      // Eq. 4.7
      {"mesh", Mesh(3, 3, false), 4, 18, (2 * ts + twm * 9) * 2},            // Eq. 4.8
      {"mesh", Mesh(4, 4, true), 6, 48, (2 * ts + twm * 16) * 3},            // Eq. 4.8
      {"hypercube-exchange", Hypercube(3), 3, 12, (ts + twm * 8 / 2) * 3},   // Eq. 4.9
      {"hypercube-exchange", Hypercube(5), 5, 80, (ts + twm * 32 / 2) * 5},  // Eq. 4.9
      {"hypercube-pairwise", Hypercube(3), 7, 7, (ts + twm) * 7},            // Eq. 4.10
      {"hypercube-pairwise", Hypercube(5), 31, 31, (ts + twm) * 31},         // Eq. 4.10
  };
  for (const Case& c : cases) {
    INFO(c.algorithm << " on " << describe(c.model));
    const Schedule s = generate(c.algorithm, c.model);
    const Claims claims = algorithm(c.algorithm).claims(s.header);
    const Report r = verify::verify(s, c.model, claims);
    REQUIRE(r.verdict() == Verdict::pass);
    CHECK(r.counts.c1 == c.c1);
    CHECK(r.counts.c2 == c.c2);
    const CostReport cost = verify::cost(r, claims, model);
    CHECK(cost.consistent());
    CHECK(cost.seconds == doctest::Approx(c.equation).epsilon(1e-12));
    const auto equation = std::find_if(cost.rows.begin(), cost.rows.end(), [](const CostRow& row) {
      return row.kind == CostRow::Kind::equation;
    });
    REQUIRE(equation != cost.rows.end());
    CHECK(equation->seconds == doctest::Approx(c.equation).epsilon(1e-12));
  }
}

TEST_CASE("cost: a table that differs from its equation, or beats a bound, is reported") {
  // The ring's claims applied to a schedule whose first step's messages are one block short: T is
  // below Eq. 4.7 (DIFFERS), and delivery fails.
  const Schedule s = generate("ring", Ring(4));
  std::vector<Phase> phases = s.phases;
  Phase trimmed(std::string(phases[0].label()));
  for (const Transfer& t : phases[0].transfers()) {
    const auto blocks = phases[0].blocks(t);
    trimmed.add(t.src, t.dst, blocks.first(blocks.size() - 1));
  }
  phases[0] = trimmed;
  const Claims claims = algorithm("ring").claims(s.header);
  const Report r = verify::verify(Schedule{s.header, phases}, Ring(4), claims);
  const CostReport cost = verify::cost(r, claims, {1, 1, 1});
  CHECK(!cost.consistent());
  CHECK(cost.rows[1].verdict == verify::Verdict::fail);  // Eq. 4.7
  CHECK(cost.rows[1].kind == CostRow::Kind::equation);
  CHECK(check(r, CheckId::delivery).verdict == Verdict::fail);
}

TEST_CASE("hypercube-exchange on one port: C1-optimal, and C2-optimal for that C1 (Theorem 2.5)") {
  const Schedule s = generate("hypercube-exchange", FullyConnected(8, 1));
  const Report r = verify::verify(s, FullyConnected(8, 1));
  CHECK(r.verdict() == Verdict::pass);
  CHECK(r.counts.c1 == 3);
  CHECK(r.bound_c1 == 3);  // ceil(log_2 8): optimal in start-ups
  CHECK(r.counts.c2 == 12);
  // Every rank receives p - 1 = 7 blocks (Proposition 2.4), but with C1 = log_2 8 Bruck et al.'s
  // Theorem 2.5 raises the bound to n log_2 n / 2 = 12, which the exchange meets.
  CHECK(r.bound_c2 == 12);
  const auto theorem = std::find_if(r.bounds.begin(), r.bounds.end(), [](const Bound& b) {
    return b.argument.rfind("Theorem 2.5", 0) == 0;
  });
  REQUIRE(theorem != r.bounds.end());
  CHECK(theorem->value == 12);
}
