// A schedule's time on a machine with bandwidths (verify/machine_time.hpp), hand-computed on the
// two-node machine of test_time_bounds.cpp, and its verdict against the bound.
#include <doctest/doctest.h>

#include "core/error.hpp"
#include "tests/verify/two_nodes.hpp"
#include "verify/machine_time.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;

namespace {

/// Step k of the shift all-to-all on 4 ranks: i -> i + k.
Phase shift_step(Rank k) {
  Phase p;
  for (Rank i = 0; i < 4; ++i) p.add(i, (i + k) % 4, Block{i, (i + k) % 4});
  return p;
}

double time_of(const Topology& t, double ts, double m, std::uint64_t* uncounted = nullptr) {
  MachineTimer timer(t, directed_bandwidths(std::get<Graph>(t)), ts, m);
  for (Rank k = 0; k < 4; ++k) timer.consume(shift_step(k));
  if (uncounted) *uncounted = timer.uncounted_links();
  CHECK(timer.phases() == 3);  // step 0 is the local copy: no communication
  return timer.seconds();
}

Report delivered(Verdict delivery) {
  Report r;
  r.checks = {{CheckId::delivery, delivery}, {CheckId::contention, Verdict::fail}};
  return r;
}

}  // namespace

TEST_CASE("machine time: shift on two nodes, phase by phase the busiest link") {
  const double m = 12.5e6, ts = 1e-6;
  // Step 1: 1 -> 2 and 3 -> 0 cross the network link, one block each way: m / 12.5e9. Step 2:
  // 0 -> 2 and 1 -> 3 both cross nic0 -> nic1: 2 m / 12.5e9. Step 3: one each way again. The
  // GPU and host links are faster (m / 25e9 at most). So 4 m / 12.5e9 + 3 t_s: the bound.
  CHECK(time_of(Topology(testing::two_nodes(12.5e9)), ts, m) ==
        doctest::Approx(4 * m / 12.5e9 + 3 * ts).scale(0));
  // Unknown network bandwidth: that link does not count (both directions carried bytes); the
  // busiest known links are then the PCIe links into and out of the NICs: step 1 m / 25e9, step
  // 2 (0 -> 2 on gpu0 -> nic0, 1 -> 3 on gpu1 -> nic0; nic1 -> gpu2 and nic1 -> gpu3) m / 25e9,
  // step 3 m / 25e9.
  std::uint64_t uncounted = 0;
  CHECK(time_of(Topology(testing::two_nodes(0)), 0, m, &uncounted) ==
        doctest::Approx(3 * m / 25e9).scale(0));
  CHECK(uncounted == 2);
}

TEST_CASE("machine time: below the machine's bound fails, not evaluated when it does not deliver") {
  const Topology t = Topology(testing::two_nodes(12.5e9));
  const Graph& g = std::get<Graph>(t);
  const double m = 1e6;
  const TimeBound bound = time_lower_bound(g, directed_bandwidths(g), Collective::alltoall, m);
  REQUIRE(bound.seconds > 0);
  // Only step 2 of the shift: half of what crosses the network, less than the bound.
  MachineTimer short_one(t, directed_bandwidths(g), 0, m);
  short_one.consume(shift_step(2));
  REQUIRE(short_one.seconds() < bound.seconds);
  const MachineCost claimed = machine_cost(delivered(Verdict::pass), short_one, m, 0, bound);
  CHECK(claimed.verdict == Verdict::fail);
  CHECK(claimed.gap_ratio() == doctest::Approx(0.5).scale(0));
  // The same time for a schedule that does not deliver says nothing: not evaluated, not a pass.
  CHECK(machine_cost(delivered(Verdict::fail), short_one, m, 0, bound).verdict ==
        Verdict::not_evaluated);
  // The whole shift meets it exactly (contention does not matter: links are shared in the model).
  MachineTimer whole(t, directed_bandwidths(g), 0, m);
  for (Rank k = 0; k < 4; ++k) whole.consume(shift_step(k));
  const MachineCost kept = machine_cost(delivered(Verdict::pass), whole, m, 0, bound);
  CHECK(kept.verdict == Verdict::pass);
  CHECK(kept.gap_ratio() == doctest::Approx(1).scale(0));
  // No usable cut: not evaluated.
  CHECK(machine_cost(delivered(Verdict::pass), whole, m, 0, TimeBound{}).verdict ==
        Verdict::not_evaluated);
}

TEST_CASE("machine time: refuses a model without links") {
  CHECK_THROWS_AS(MachineTimer(FullyConnected(4, 1), {}, 0, 1), InputError);
}
