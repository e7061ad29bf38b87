// two-stage-v (schedules/alltoallv/two_stage_v.cpp): across nodes through the same local index,
// then inside the node; verified with its claims on the families and node shapes, its
// forwarding visible, its mutants caught.

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "schedules/alltoallv/v_fixtures.hpp"

using namespace phasecheck;
using namespace phasecheck::testing;

namespace {

Schedule two_stage(const Traffic& traffic, Rank gpus) {
  Parameters params;
  params.set("gpus_per_node", std::to_string(gpus));
  return schedules::generate(schedules::require_algorithm("two-stage-v"),
                             FullyConnected(traffic.ranks, 1), std::move(params),
                             SharedTraffic(traffic));
}

}  // namespace

TEST_CASE("two-stage-v: verifies with its claims on every family and node size - p = 1..64") {
  int runs = 0;
  for (VFamily family : kVFamilies)
    for (Rank p = 1; p <= 64; p += (p < 12 ? 1 : 13))
      for (Rank g : {Rank{1}, Rank{2}, Rank{3}, Rank{4}, p})
        if (p % g == 0) {
          CAPTURE(p);
          CAPTURE(g);
          CAPTURE(static_cast<int>(family));
          const Schedule s = two_stage(v_matrix(family, p, p + g), g);
          CHECK(s.phases.size() == (p / g - 1) + (g - 1));
          const verify::Report r = v_verified(s);
          CHECK(v_verdict(r, CheckId::delivery) == Verdict::pass);
          CHECK(v_verdict(r, CheckId::contention) == Verdict::pass);
          CHECK(v_verdict(r, CheckId::claims) == Verdict::pass);
          CHECK(v_verdict(r, CheckId::bounds) == Verdict::pass);
          ++runs;
        }
  CHECK(runs > 5 * 30);
}

TEST_CASE("two-stage-v: stage 1 aggregates a node's blocks through the same local index") {
  const Traffic t = v_matrix(VFamily::uniform, 8, 1);  // 2 nodes of 4
  const Schedule s = two_stage(t, 4);
  REQUIRE(s.phases.size() == 1 + 3);
  const Phase& across = s.phases[0];
  CHECK(across.size() == 8);
  for (const Transfer& x : across.transfers()) {
    CHECK(x.dst == (x.src + 4) % 8);
    CHECK(across.blocks(x).size() == 4);  // one block for each rank of the other node
  }
  // Inside the node, rank 0 forwards rank 4's block for rank 1 with its own.
  const Phase& inside = s.phases[1];
  const Transfer& first = inside[0];
  CHECK(first.src == 0);
  CHECK(first.dst == 1);
  REQUIRE(inside.blocks(first).size() == 2);
  CHECK(inside.blocks(first)[1] == Block{4, 1, 0});
}

TEST_CASE("two-stage-v: gpus_per_node must divide p") {
  CHECK_THROWS_WITH_AS(two_stage(v_matrix(VFamily::uniform, 6, 1), 4),
                       "two-stage-v: gpus_per_node = 4 does not divide the 6 ranks", InputError);
}

TEST_CASE("two-stage-v: a forwarded block dropped or sent twice is caught") {
  const Schedule s = two_stage(v_matrix(VFamily::random, 12, 2), 3);
  const Phase& inside = s.phases.back();
  REQUIRE(!inside.empty());
  const Transfer victim = inside[0];
  const auto blocks = inside.blocks(victim);
  // Dropped: the inside transfer without its last block.
  Schedule dropped = s;
  Phase fewer(inside.label());
  for (const Transfer& x : inside.transfers()) {
    const auto b = inside.blocks(x);
    if (!(x == victim))
      fewer.add(x.src, x.dst, b);
    else if (b.size() > 1)
      fewer.add(x.src, x.dst, b.first(b.size() - 1));
  }
  dropped.phases.back() = fewer;
  const verify::Report lost = v_verified(dropped);
  CHECK(v_verdict(lost, CheckId::delivery) == Verdict::fail);
  CHECK(v_explanation(lost, CheckId::delivery)
            .find("never reaches rank " + std::to_string(victim.dst)) != std::string::npos);
  // Twice: the last phase again.
  Schedule doubled = s;
  doubled.phases.push_back(inside);
  CHECK(v_verdict(v_verified(doubled), CheckId::delivery) == Verdict::fail);
}
