#include <doctest/doctest.h>

#include <charconv>
#include <set>

#include "core/error.hpp"
#include "helpers.hpp"
#include "schedules/hierarchical_factor.hpp"
#include "schedules/one_factors.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::schedules;
using verify::Report;
using verify::Verdict;

namespace {

Schedule generate(std::vector<Rank> sizes, bool compact = false) {
  Parameters p;
  if (compact) p.set("compact", "true");
  return schedules::generate(*find_algorithm("hierarchical-factor"), Cluster(std::move(sizes)), p);
}

Report verify_schedule(const Schedule& s) {
  return verify::verify(s, s.header.topology,
                        find_algorithm("hierarchical-factor")->claims(s.header));
}

/// (phase, round) of a label "phase P, round i, step s...".
std::pair<unsigned, unsigned> phase_round(const std::string& label) {
  unsigned P = 0, i = 0;
  const char* text = label.c_str();
  std::from_chars(text + 6, text + label.size(), P);
  const auto r = label.find("round ");
  std::from_chars(text + r + 6, text + label.size(), i);
  return {P, i};
}

template <class Partner>
void check_factorization(Partner partner, std::uint32_t n) {
  std::multiset<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t u = 0; u < n; ++u) {
      const std::uint32_t v = partner(i, u, n);
      REQUIRE(v < n);
      CHECK(partner(i, v, n) == u);  // a matching: degree one
      if (u <= v) edges.insert({u, v});
    }
  // Every edge {u, v}, self-loops included, exactly once over the n factors.
  CHECK(edges.size() == std::size_t{n} * (n + 1) / 2);
  CHECK(std::set<std::pair<std::uint32_t, std::uint32_t>>(edges.begin(), edges.end()).size() ==
        edges.size());
}

}  // namespace

TEST_CASE("1-factorizations: every pair exactly once, self-loops included, |A| = 1..50") {
  for (std::uint32_t n = 1; n <= 50; ++n) {
    CAPTURE(n);
    check_factorization(lemma1_partner, n);
    check_factorization(concentrated_partner, n);
  }
  SUBCASE("for even n the self-loops are all in the last factor") {
    for (std::uint32_t n = 2; n <= 50; n += 2)
      for (std::uint32_t u = 0; u < n; ++u) {
        CHECK(concentrated_partner(n - 1, u, n) == u);
        for (std::uint32_t i = 0; i + 1 < n; ++i) CHECK(concentrated_partner(i, u, n) != u);
      }
  }
}

TEST_CASE(
    "hierarchical-factor: Fig. 3, nodes of sizes 1, 2, 3: 3 phases of 3, 2, 1 rounds, 15 steps") {
  const Schedule s = generate({1, 2, 3});
  CHECK(s.phases.size() == 15);
  std::set<std::pair<unsigned, unsigned>> rounds;
  for (const Phase& p : s.phases) rounds.insert(phase_round(p.label()));
  CHECK(rounds ==
        std::set<std::pair<unsigned, unsigned>>{{1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {3, 0}});
  const Report r = verify_schedule(s);
  CHECK(r.verdict() == Verdict::pass);
  CHECK(r.bound_c1 == 15);  // Theorem 1 meets the lower bound here
  CHECK(s.phases[0].label() == "phase 1, round 0, step 1");
  CHECK(s.phases[7].label() == "phase 1, round 2, step 3, end of phase 1");
  CHECK(s.phases[14].label() == "phase 3, round 0, step 2, end of phase 3");
}

TEST_CASE(
    "hierarchical-factor: node order by size, then index, the smaller node's processors lead") {
  // Node 0 has 2 processors (ranks 0, 1), node 1 has 1 (rank 2): node 1 < node 0. In phase 1
  // (current = 1) round 1 pairs them: rank 2 exchanges with rank 0, then with rank 1.
  const Schedule s = generate({2, 1});
  REQUIRE(s.phases.size() >= 3);
  CHECK(s.phases[0].label() == "phase 1, round 0, step 1");
  CHECK(s.phases[0] == testing::phase("phase 1, round 0, step 1", {{0, 1}}));
  CHECK(s.phases[1] == testing::phase("phase 1, round 1, step 1", {{2, 0}, {0, 2}}));
  CHECK(s.phases[2] ==
        testing::phase("phase 1, round 1, step 2, end of phase 1", {{2, 1}, {1, 2}}));
  CHECK(verify_schedule(s).verdict() == Verdict::pass);
}

TEST_CASE("hierarchical-factor: four nodes of four, 64 steps plain, 60 (the bound) compact") {
  const Schedule plain = generate({4, 4, 4, 4});
  const Schedule compact = generate({4, 4, 4, 4}, true);
  CHECK(plain.phases.size() == 64);
  CHECK(compact.phases.size() == 60);
  const Report rp = verify_schedule(plain), rc = verify_schedule(compact);
  CHECK(rp.verdict() == Verdict::pass);
  CHECK(rc.verdict() == Verdict::pass);
  CHECK(rp.bound_c1 == 60);
  SUBCASE(
      "the inefficient steps of Theorem 1's proof: a self-paired node sends while two maximal "
      "nodes exchange") {
    const Cluster c({4, 4, 4, 4});
    const auto count = [&](const Schedule& s) {
      return std::count_if(s.phases.begin(), s.phases.end(),
                           [&](const Phase& p) { return inefficient_step(c, p); });
    };
    CHECK(count(plain) == 24);  // rounds 0 and 2: 12 steps each
    CHECK(count(compact) == 0);
  }
  SUBCASE("compact moves the intra-node steps to the end") {
    CHECK(compact.phases[48].label() == "phase 1, round 3, step 1 (moved to the end)");
    CHECK(compact.phases[47].label() == "phase 1, round 2, step 16, end of phase 1");
  }
}

TEST_CASE("hierarchical-factor: a skipped round is caught by the invariant at its phase's end") {
  const Schedule s = generate({1, 2, 3});
  Schedule broken = s;
  // Drop phase 1, round 1 (steps 4 and 5: node 0 with node 1, node 2 with itself). Phase 1 ends
  // at step 8 (index 7) in the algorithm's structure; index 5 is now where the invariant finds
  // the gap, whatever the label there says.
  REQUIRE(s.phases[7].label() == "phase 1, round 2, step 3, end of phase 1");
  broken.phases.erase(broken.phases.begin() + 3, broken.phases.begin() + 5);
  const Report r = verify_schedule(broken);
  const auto& inv = *std::find_if(r.checks.begin(), r.checks.end(),
                                  [](const auto& c) { return c.id == CheckId::invariants; });
  CHECK(inv.verdict == Verdict::fail);
  REQUIRE(inv.counterexample);
  CHECK(inv.counterexample->phase == 7);
  CHECK(inv.counterexample->explanation.ends_with(
      "fails after phase 7: after phase 1 (done = 1) the message from rank 0 (node 0) to rank 1 "
      "(node 1) has not been delivered"));
}

TEST_CASE("hierarchical-factor: the invariant is keyed on positions, not on labels") {
  Schedule s = generate({1, 2, 3});
  SUBCASE("relabelled phases still verify, and the invariant still runs") {
    for (Phase& p : s.phases) p.set_label("x");
    const Report r = verify_schedule(s);
    CHECK(r.passed(CheckId::invariants));
  }
  SUBCASE("a message missing from phase 1 is caught at phase 1's end without any label") {
    for (Phase& p : s.phases) p.set_label("");
    // The transfer 0 -> 1 (and back) leaves round 1 of phase 1; 1 -> 0 moves to the last step.
    Phase& round = s.phases[3];
    Phase without;
    for (const Transfer& t : round.transfers())
      if (!(t.src == 0 && t.dst == 1)) without.add(t.src, t.dst, round.blocks(t)[0]);
    REQUIRE(without.size() + 1 == round.size());
    round = without;
    s.phases.back().add(0, 1, direct_block(Collective::alltoall, 0, 1));
    const Report r = verify_schedule(s);
    const auto& inv = *std::find_if(r.checks.begin(), r.checks.end(),
                                    [](const auto& c) { return c.id == CheckId::invariants; });
    CHECK(inv.verdict == Verdict::fail);
    REQUIRE(inv.counterexample);
    CHECK(inv.counterexample->phase == 7);
    CHECK(r.passed(CheckId::delivery));  // every message arrives in the end: only the invariant sees it
  }
}

TEST_CASE("hierarchical-factor: irregular clusters verify and stay within Theorem 1") {
  const std::vector<std::vector<Rank>> clusters = {{1},
                                                   {5},
                                                   {1, 1},
                                                   {1, 1, 1},
                                                   {2, 2},
                                                   {1, 2, 3, 4, 3, 2, 1},
                                                   {8, 1, 8, 1, 8, 1},
                                                   {8, 1, 1, 1, 1, 1, 1, 1},
                                                   {3, 3, 3},
                                                   {6, 5, 4, 3, 2, 1},
                                                   {2, 7}};
  for (const auto& sizes : clusters)
    for (const bool compact : {false, true}) {
      const Schedule s = generate(sizes, compact);
      const Report r = verify_schedule(s);
      CHECK_MESSAGE(r.verdict() == Verdict::pass, describe(s.header.topology)
                                                      << " compact=" << compact << ": "
                                                      << r.broken_claims(true));
    }
}

TEST_CASE("hierarchical-factor: only on clusters, and only its own parameters") {
  Parameters p;
  CHECK_THROWS_WITH_AS(
      schedules::generate(*find_algorithm("hierarchical-factor"), Ring(4), p),
      "hierarchical-factor needs a cluster topology (SMP node sizes), not ring(p=4)", InputError);
  p.set("compact", "yes");
  CHECK_THROWS_WITH_AS(schedules::generate(*find_algorithm("hierarchical-factor"), Cluster({2}), p),
                       "parameter compact=yes: expected true or false", InputError);
}
