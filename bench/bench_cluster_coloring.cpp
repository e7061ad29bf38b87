// cluster-coloring on 1,000 ranks (issue 24: "1,000 ranks in well under a second"): the colouring
// search alone (plan), and the search with every phase made (generate, into a counting sink).
// And the plan of two clusters of many equal nodes, where every greedy pass fails and the
// matching pass (maximum-weight matchings, minimum odd cuts) makes the schedule.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "schedules/cluster_coloring.hpp"
#include "schedules/registry.hpp"

using namespace phasecheck;

namespace {

/// Node sizes adding up to 1,000: nodes of one processor (K_1000), of 1 to 4 (drawn), of 1 to
/// 125 (drawn), ten of 100; then 45 nodes of 2 and 4 of 1 (94 ranks), 101 of 4 and 2 of 3 (410).
std::vector<Rank> shape(int which) {
  std::vector<Rank> sizes;
  if (which == 0) return std::vector<Rank>(1000, 1);
  if (which == 3) return std::vector<Rank>(10, 100);
  if (which >= 4) {
    const bool small = which == 4;
    sizes.assign(small ? 45 : 101, small ? 2 : 4);
    sizes.insert(sizes.end(), small ? 4 : 2, small ? 1 : 3);
    return sizes;
  }
  std::mt19937_64 random(static_cast<std::uint64_t>(which));
  const Rank most = which == 1 ? 4 : 125;
  for (Rank left = 1000; left > 0;) {
    const auto n = static_cast<Rank>(1 + random() % std::min(most, left));
    sizes.push_back(n);
    left -= n;
  }
  return sizes;
}

void set_label(benchmark::State& state, const std::vector<Rank>& sizes) {
  static const char* const names[] = {"1000x1", "sizes 1-4",  "sizes 1-125",
                                      "10x100", "45x2 + 4x1", "101x4 + 2x3"};
  state.SetLabel(std::string(names[state.range(0)]) + ", " + std::to_string(sizes.size()) +
                 " nodes");
}

void cluster_coloring_plan(benchmark::State& state) {
  const std::vector<Rank> sizes = shape(static_cast<int>(state.range(0)));
  schedules::ColoringPlan plan;
  for (auto _ : state) {
    plan = schedules::plan_cluster_coloring(sizes);
    benchmark::DoNotOptimize(plan);
  }
  set_label(state, sizes);
  state.counters["phases"] = static_cast<double>(plan.phases);
  state.counters["over_bound"] = static_cast<double>(plan.phases - plan.bound);
  state.counters["passes"] = plan.attempts;
}

void cluster_coloring_generate(benchmark::State& state) {
  const std::vector<Rank> sizes = shape(static_cast<int>(state.range(0)));
  const auto& algorithm = *schedules::find_algorithm("cluster-coloring");
  const ScheduleHeader header = schedules::make_header(algorithm, Cluster(sizes), {});
  std::uint64_t transfers = 0;
  for (auto _ : state) {
    transfers = 0;
    algorithm.generate(header, [&](const Phase& p) { transfers += p.size(); });
  }
  set_label(state, sizes);
  state.counters["transfers"] = static_cast<double>(transfers);
}

}  // namespace

BENCHMARK(cluster_coloring_plan)->DenseRange(0, 5)->ArgName("shape")->Unit(benchmark::kMillisecond);
BENCHMARK(cluster_coloring_generate)
    ->DenseRange(0, 3)
    ->ArgName("shape")
    ->Unit(benchmark::kMillisecond);
