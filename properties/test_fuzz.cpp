// The fuzzing machinery checked: the generators make valid machines of the promised shapes, and
// a planted bug is found and shrunk to a small machine a person can read.

#include <rapidcheck/detail/Configuration.h>

#include <optional>

#include "doctest_rapidcheck.hpp"
#include "generators.hpp"
#include "mutate.hpp"
#include "schedules/faraj_yuan.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

TEST_CASE("generators: trees have machines at the leaves, clusters and meshes stay in range") {
  properties::check("generated machines are valid", [] {
    const Topology t = *properties::topology();
    RC_ASSERT(ranks(t) >= 1u);
    RC_ASSERT(ranks(t) <= kMaxRanks);
    if (const auto* tree = std::get_if<Tree>(&t)) {
      // Every machine is a leaf: exactly one link, unless it is alone.
      std::vector<int> degree(tree->node_count(), 0);
      for (const Tree::Cut& c : tree->cuts()) {
        ++degree[c.a];
        ++degree[c.b];
      }
      for (Rank m = 0; m < tree->ranks(); ++m)
        RC_ASSERT(degree[m] == (tree->node_count() == 1 ? 0 : 1));
    }
    if (const auto* c = std::get_if<Cluster>(&t))
      for (Rank n : c->node_sizes()) RC_ASSERT(n >= 1u && n <= 12u);
    if (const auto* m = std::get_if<Mesh>(&t)) RC_ASSERT(m->rows <= 4u && m->cols <= 4u);
  });
}

TEST_CASE("shrinking: a bug planted for subtrees of exactly 3 machines shrinks to a small tree") {
  // A broken faraj-yuan: whenever some subtree of the root has exactly 3 machines, its last
  // phase is dropped. The property must fail, and the machine it reports must be small.
  const auto& a = *schedules::find_algorithm("faraj-yuan");
  std::optional<Topology> last_failure;
  const auto property = [&](const Topology& t) {
    const auto* tree = std::get_if<Tree>(&t);
    RC_PRE(tree != nullptr);
    const auto plan = schedules::faraj_yuan_plan(*tree);
    const ScheduleHeader h = schedules::make_header(a, t, {});
    std::vector<Phase> phases;
    a.generate(h, collect_into(phases));
    const bool planted =
        std::any_of(plan.t.begin(), plan.t.end(), [](const auto& sub) { return sub.size() == 3; });
    if (planted && !phases.empty()) phases.pop_back();
    const verify::Report r = verify::verify(Schedule{h, phases}, t, a.claims(h));
    if (!r.passed("delivery")) last_failure = t;
    RC_ASSERT(r.passed("delivery"));
  };
  rc::detail::TestParams params;
  params.seed = 20261122;
  params.maxSuccess = 2000;
  params.maxSize = 60;
  params.maxDiscardRatio = 50;
  const auto result = rc::detail::checkTestable([&] { property(*properties::tree()); },
                                                rc::detail::TestMetadata{}, params);
  REQUIRE(result.is<rc::detail::FailureResult>());
  REQUIRE(last_failure);
  INFO(describe(*last_failure));
  // Lemma 1 keeps every subtree of the root at most half the machines, so a subtree of 3 needs at
  // least 6: shrinking must find that smallest case.
  CHECK(ranks(*last_failure) == 6u);
}

TEST_CASE("mutate: the naive re-simulation itself tells valid from invalid") {
  const auto& shift = *schedules::find_algorithm("shift");
  const Schedule s = schedules::generate(shift, Ring(5));
  const Topology ring = Ring(5);
  auto verdict = properties::naive_verdict(s, ring);
  CHECK(verdict.delivered);
  CHECK_FALSE(verdict.contention_free);  // shift on a ring: offsets 2 and 3 share links
  const Topology ports = FullyConnected(5, 1);
  CHECK(properties::naive_verdict(s, ports).contention_free);
  Schedule dup = s;
  dup.phases[1].add(0, 1, Block{0, 1});  // [0,1] arrives twice
  CHECK_FALSE(properties::naive_verdict(dup, ports).delivered);
  Schedule early = s;
  early.phases[0].add(1, 2, Block{0, 2});  // forwarded before 1 holds it
  CHECK_FALSE(properties::naive_verdict(early, ports).delivered);
}

TEST_CASE("mutate: every invalid mutant of the shipped kinds of schedule is caught") {
  for (const char* name : {"faraj-yuan", "hypercube-exchange", "bruck-index", "ring"}) {
    const auto& a = *schedules::find_algorithm(name);
    const Topology t =
        std::string(name) == "faraj-yuan"
            ? Topology(
                  Tree({"a", "b", "c", "d", "e"}, {"s", "t"},
                       {{"a", "s"}, {"b", "s"}, {"c", "t"}, {"d", "t"}, {"e", "t"}, {"s", "t"}}))
            : Topology(FullyConnected(8, 1));
    const auto report = properties::mutate(schedules::generate(a, t), t, 40, 7);
    INFO(name);
    CHECK(report.perfect());
    std::uint64_t invalid = 0;
    for (const auto& c : report.classes) invalid += c.invalid;
    CHECK(invalid > 100);  // the faults are real
  }
}
