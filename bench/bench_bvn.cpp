// bvn's planning time and its cost against the load bound on MoE-like matrices (issue 37's
// budget: with at most 3p phases, 256 ranks in <= 1 s, 1,024 in <= 60 s, within 5% of the bound).
// The matrices are tests/schedules/alltoallv/moe_like.hpp's: 4,096 tokens per rank, top-8 of
// 2p experts, Zipf 0 (uniform popularity) and 1.5.

#include <benchmark/benchmark.h>

#include "schedules/registry.hpp"
#include "tests/schedules/alltoallv/moe_like.hpp"
#include "verify/traffic_bounds.hpp"

namespace {

using namespace phasecheck;

void bvn_plan(benchmark::State& state) {
  const Rank p = static_cast<Rank>(state.range(0));
  const double zipf = static_cast<double>(state.range(1)) / 10;
  const Traffic t = testing::moe_like({.ranks = p,
                                       .experts = 2 * p,
                                       .top_k = 8,
                                       .tokens = 4096,
                                       .zipf = zipf,
                                       .element_bytes = 7168,
                                       .seed = 1});
  const SharedTraffic shared(t);
  const auto& bvn = schedules::require_algorithm("bvn");
  std::uint64_t cost = 0, phases = 0;
  for (auto _ : state) {
    const ScheduleHeader h = schedules::make_header(bvn, FullyConnected(p, 1), {}, shared);
    std::vector<std::uint64_t> largest;
    phases = 0;
    cost = 0;
    bvn.generate(h, [&](const Phase& phase) {
      std::uint64_t most = 0;
      for (const Transfer& x : phase.transfers())
        most = std::max(most, verify::transfer_bytes(phase, x, t, h.pieces()));
      cost += most;
      ++phases;
    });
  }
  const std::uint64_t bound = verify::load_bound(FullyConnected(p, 1), t).bytes;
  state.counters["phases"] = static_cast<double>(phases);
  state.counters["phases_per_p"] = static_cast<double>(phases) / p;
  state.counters["cost_over_bound"] = static_cast<double>(cost) / static_cast<double>(bound);
}

BENCHMARK(bvn_plan)->ArgsProduct({{8, 64, 256}, {0, 10, 15}})->Unit(benchmark::kMillisecond);
BENCHMARK(bvn_plan)->Args({1024, 0})->Args({1024, 15})->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
