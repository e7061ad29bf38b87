// The fuzzing machinery checked: the generators make valid machines of the promised shapes, and
// a planted bug is found and shrunk to a small machine a person can read.

#include <rapidcheck/detail/Configuration.h>

#include <optional>

#include "doctest_rapidcheck.hpp"
#include "fuzz.hpp"
#include "generators.hpp"
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
    if (!r.passed(CheckId::delivery)) last_failure = t;
    RC_ASSERT(r.passed(CheckId::delivery));
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

TEST_CASE("fuzz: a buffer program that loses the self copy is reported, its table still passes") {
  const auto& ring = *schedules::find_algorithm("ring");
  const Topology t = FullyConnected(4, 1);
  const Schedule table = schedules::generate(ring, t);
  const verify::Report table_report = verify::verify(table, t, ring.claims(table.header));
  REQUIRE(table_report.verdict() == verify::Verdict::pass);
  CHECK(properties::broken_program(ring, table, table_report, t) == "");

  // The same algorithm whose program forgets rank 1's own chunk.
  schedules::Algorithm broken = ring;
  broken.program = [&ring](const ScheduleHeader& h) {
    Schedule s = schedules::generate_program(ring, h);
    Phase first(s.phases[0].label());
    for (const BufferOp& op : s.phases[0].ops())
      if (!(op.local() && op.src == 1)) first.add(op);
    s.phases[0] = first;
    return s;
  };
  Schedule program;
  CHECK(properties::broken_program(broken, table, table_report, t, &program) ==
        "placement: 1 of 16 output slots holds the wrong chunk / rank 1: output[1] holds "
        "nothing, expected (1,1,0); no op ever writes it. (1,1,0) is left in rank 1 input[1]; ");
  CHECK(program.header.buffers);
}
