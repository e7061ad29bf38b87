#include <doctest/doctest.h>

#include "core/error.hpp"
#include "helpers.hpp"
#include "traffic_samples.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;

namespace {

Report verify_registered(const schedules::Algorithm& a, const Topology& model,
                         Parameters params = {}) {
  const ScheduleHeader h = schedules::make_header(a, model, std::move(params),
                                                  testing::sample_traffic(a, ranks(model)));
  Verifier v(h, h.topology, a.claims(h));
  a.generate(h, v.sink());
  return v.finish();
}

std::string failed_checks(const Report& r) {
  std::string s;
  for (const auto& c : r.checks)
    if (c.verdict != Verdict::pass) s += std::string(c.name()) + ": " + c.summary + "; ";
  return s;
}

const schedules::Algorithm& algorithm(std::string_view name) {
  const auto* a = schedules::find_algorithm(name);
  REQUIRE(a != nullptr);
  return *a;
}

}  // namespace

TEST_CASE("every registered algorithm keeps its claims, for awkward sizes") {
  // p in {1, 2, 3, 4, 7, 8, 16, 31} on one- and p-port machines, single-processor nodes and one
  // switch.
  for (const auto& a : schedules::algorithms()) {
    if (a.only_machine) {  // it refuses every machine but its own: checked there
      const Topology model = a.only_machine();
      const Report r = verify_registered(a, model);
      INFO(a.name << " on its one machine " << describe(model));
      CHECK(r.counts.phases > 0);
      CHECK(r.broken_claims(a.contention_free_on(schedules::make_header(a, model, {}), model)) ==
            "");
      continue;
    }
    std::size_t applied = 0;
    for (Rank p : {1u, 2u, 3u, 4u, 7u, 8u, 16u, 31u}) {
      std::vector<std::string> names;
      std::vector<Tree::NamedLink> links;
      for (Rank r = 0; r < p; ++r) {
        names.push_back("n" + std::to_string(r));
        links.push_back({names.back(), "s"});
      }
      const std::vector<Topology> models = {FullyConnected(p, 1), FullyConnected(p, p),
                                            Cluster(std::vector<Rank>(p, 1)),
                                            Tree(names, {"s"}, links)};  // a single switch
      for (const Topology& model : models) {
        for (const std::string& collective : testing::collectives_of(a)) {
          Parameters params;
          params.set("collective", collective);
          ScheduleHeader h;
          try {
            h = schedules::make_header(a, model, params, testing::sample_traffic(a, p));
            a.generate(h, [](const Phase&) {});
          } catch (const InputError&) {
            continue;  // the algorithm does not apply to this machine (e.g. p not a power of two)
          }
          ++applied;
          const Report r = verify_registered(a, model, params);
          INFO(a.name << " on " << describe(model) << " " << collective);
          CHECK(r.broken_claims(a.contention_free_on(h, model)) == "");
          if (a.contention_free_on(h, model))
            CHECK_MESSAGE(r.verdict() == Verdict::pass, failed_checks(r));
        }
      }
    }
    // Open MPI's two-process algorithms run at p = 2 only: 4 machines x 2 collectives; an
    // alltoallv row has one collective.
    const std::size_t at_least = a.name == "ompi-two-procs" ? 8
                                 : schedules::is_alltoallv(a) ? 8
                                                              : 16;
    CHECK_MESSAGE(applied >= at_least, a.name << " applies to only " << applied << " cases");
  }
}

TEST_CASE("pairwise-xor needs a power-of-two number of ranks") {
  CHECK_THROWS_WITH_AS(verify_registered(algorithm("pairwise-xor"), FullyConnected(6, 1)),
                       "pairwise-xor needs a power-of-two number of ranks, not 6", InputError);
}

TEST_CASE("pairwise-xor is contention-free on hypercubes with e-cube routing, d <= 6") {
  for (unsigned d = 0; d <= 6; ++d) {
    const Report r = verify_registered(algorithm("pairwise-xor"), Hypercube(d));
    CHECK_MESSAGE(r.verdict() == Verdict::pass, "d = " << d << ": " << failed_checks(r));
  }
}

TEST_CASE("shift meets the k-port bound p - 1 exactly, factor misses it by one for odd p") {
  const Report shift = verify_registered(algorithm("shift"), FullyConnected(7, 1));
  CHECK(shift.counts.c1 == 6);
  CHECK(shift.bound_c1 == 6);
  const Report factor = verify_registered(algorithm("factor"), FullyConnected(7, 1));
  CHECK(factor.counts.c1 == 7);
  SUBCASE("but on single-processor nodes factor is optimal: p phases for odd p") {
    const Report f = verify_registered(algorithm("factor"), Cluster({1, 1, 1, 1, 1, 1, 1}));
    CHECK(f.verdict() == Verdict::pass);
    CHECK(f.counts.c1 == 7);
    CHECK(f.bound_c1 == 7);
  }
}

TEST_CASE("linear is rejected on the Faraj-Yuan example tree with a counterexample") {
  const Report r = verify_registered(algorithm("linear"), testing::fig1_tree());
  CHECK(r.verdict() == Verdict::fail);
  const auto& contention = r.checks[1];
  REQUIRE(contention.id == CheckId::contention);
  REQUIRE(contention.counterexample);
  CHECK(contention.counterexample->phase == 0);
  CHECK(contention.counterexample->resource == "link n0 -> s0");
  CHECK(contention.counterexample->transfers.size() == 2);
}

TEST_CASE("factor: a round skipped is caught by the invariant at that round") {
  // A broken variant of factor: round 2 is left out. The invariant names round 2's first pair.
  const auto& a = algorithm("factor");
  const ScheduleHeader h = schedules::make_header(a, FullyConnected(5, 1), {});
  Verifier v(h, h.topology, a.claims(h));
  std::size_t round = 0;
  a.generate(h, [&](const Phase& p) {
    if (round++ == 2)
      v.consume(Phase("round 2 (skipped)"));
    else
      v.consume(p);
  });
  const Report r = v.finish();
  const auto it = std::find_if(r.checks.begin(), r.checks.end(),
                               [](const CheckResult& c) { return c.id == CheckId::invariants; });
  REQUIRE(it != r.checks.end());
  REQUIRE(it->counterexample);
  CHECK(it->counterexample->phase == 2);
  CHECK(it->counterexample->explanation ==
        "Lemma 1: after round i every pair of the 1-factor G_i has exchanged fails after phase 2: "
        "the message from rank 0 to rank 2 has not been delivered");
  CHECK(r.checks[0].summary == "4 of 20 deliveries never happen");
}

TEST_CASE("factor: round i pairs u with (i - u) mod p, self-loops included (Lemma 1)") {
  const Schedule s = schedules::generate(algorithm("factor"), FullyConnected(5, 1));
  REQUIRE(s.phases.size() == 5);
  // Every ordered pair, self-loops included, exactly once over the rounds, in round (u + v) mod p.
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(s.phases[i].label() == "round " + std::to_string(i));
    for (const Transfer& t : s.phases[i].transfers()) CHECK((t.src + t.dst) % 5 == i);
  }
}

TEST_CASE("algorithms reject parameters they do not take") {
  Parameters p;
  p.set("radix", "4");
  CHECK_THROWS_WITH_AS(schedules::make_header(algorithm("shift"), FullyConnected(4, 1), p),
                       "shift has no parameter 'radix' (it takes: collective)", InputError);
}
