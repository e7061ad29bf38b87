// Checker throughput on the foundation's reference case: shift and pairwise-xor on a 1024-machine
// two-level tree (32 leaf switches of 32 machines under one root switch), 1024 phases of 1024
// transfers = 1,048,576 transfers. Figures and the commands that produce them: docs/performance.md.
//
//   ./build/bench/phasecheck_bench --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <sstream>

#include "core/networks.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "schedules/registry.hpp"
#include "verify/congestion.hpp"
#include "verify/contention.hpp"
#include "verify/delivery.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

const Topology& tree1024() {
  static const Topology t = io::read_topology_file(PHASECHECK_SOURCE_DIR "/bench/tree-1024.json");
  return t;
}

const Schedule& table(const std::string& algorithm) {
  static std::map<std::string, Schedule> cache;
  auto it = cache.find(algorithm);
  if (it == cache.end())
    it = cache
             .emplace(algorithm,
                      schedules::generate(*schedules::find_algorithm(algorithm), tree1024()))
             .first;
  return it->second;
}

void contention(benchmark::State& state, const std::string& algorithm) {
  const Schedule& s = table(algorithm);
  std::uint64_t hops = 0;
  for (auto _ : state) {
    verify::ContentionChecker checker(s.header.topology);
    for (std::size_t i = 0; i < s.phases.size(); ++i) checker.consume(i, s.phases[i]);
    benchmark::DoNotOptimize(checker.finish());
    hops += checker.work();
  }
  state.counters["transfer_hops_per_s"] =
      benchmark::Counter(static_cast<double>(hops), benchmark::Counter::kIsRate);
}

void delivery(benchmark::State& state, const std::string& algorithm) {
  const Schedule& s = table(algorithm);
  std::uint64_t blocks = 0;
  for (auto _ : state) {
    verify::DeliveryChecker checker(s.header.collective, s.header.ranks());
    for (std::size_t i = 0; i < s.phases.size(); ++i) {
      checker.consume(i, s.phases[i]);
      blocks += s.phases[i].size();
    }
    benchmark::DoNotOptimize(checker.finish());
  }
  state.counters["blocks_per_s"] =
      benchmark::Counter(static_cast<double>(blocks), benchmark::Counter::kIsRate);
}

/// The whole pipeline as `survey` runs it: phases streamed from the generator into every check
/// (delivery, contention, invariants, claims, bounds), nothing held but the current phase.
void streamed(benchmark::State& state, const std::string& algorithm) {
  const auto& a = *schedules::find_algorithm(algorithm);
  const ScheduleHeader h = schedules::make_header(a, tree1024(), {});
  for (auto _ : state) {
    verify::Verifier v(h, h.topology, a.claims(h));
    a.generate(h, v.sink());
    benchmark::DoNotOptimize(v.finish());
  }
  state.counters["transfers_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 1024 * 1024, benchmark::Counter::kIsRate);
}

/// Reading the schedule file format: the SAX parser with a no-op sink.
void parse(benchmark::State& state, const std::string& algorithm) {
  const std::string text = io::schedule_to_json(table(algorithm));
  for (auto _ : state) {
    std::istringstream in(text);
    std::size_t phases = 0;
    pipeline::read_schedule(
        in, "bench", [](const ScheduleHeader&) {}, [&](const Phase&) { ++phases; });
    benchmark::DoNotOptimize(phases);
  }
  state.counters["bytes_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * text.size()), benchmark::Counter::kIsRate);
}

/// The floor to compare with: the same routing and counting as a bare loop over flat arrays
/// (parent pointers, depths, one stamp per directed link), with no phase objects or reporting.
struct BareTree {
  std::vector<std::uint32_t> parent, depth, stamp;
  std::uint64_t hops = 0, conflicts = 0;

  /// Machines 0 .. leaves x per_leaf - 1, then the leaf switches, then the root.
  BareTree(std::uint32_t leaves, std::uint32_t per_leaf) {
    const std::uint32_t machines = leaves * per_leaf, root = machines + leaves, n = root + 1;
    parent.assign(n, root);
    depth.assign(n, 1);
    for (std::uint32_t i = 0; i < machines; ++i) {
      parent[i] = machines + i / per_leaf;
      depth[i] = 2;
    }
    depth[root] = 0;
    stamp.assign(2 * n, 0);
  }
  /// Routes src -> dst in phase `now`, counting the hops and the links used twice.
  void route(std::uint32_t u, std::uint32_t v, std::uint32_t now) {
    const auto use = [&](std::uint32_t l) {
      ++hops;
      conflicts += stamp[l] == now;
      stamp[l] = now;
    };
    if (u == v) return;
    while (depth[u] > depth[v]) {
      use(2 * u);
      u = parent[u];
    }
    while (depth[v] > depth[u]) {
      use(2 * v + 1);
      v = parent[v];
    }
    while (u != v) {
      use(2 * u);
      use(2 * v + 1);
      u = parent[u];
      v = parent[v];
    }
  }
};

/// The bare loop over shift's table on 32 x 32 (the phases held in memory).
void bare_loop(benchmark::State& state) {
  const Schedule& s = table("shift");
  BareTree tree(32, 32);
  std::uint32_t now = 0;
  for (auto _ : state) {
    for (const Phase& p : s.phases) {
      ++now;
      for (const Transfer& t : p.transfers()) tree.route(t.src, t.dst, now);
    }
    benchmark::DoNotOptimize(tree.conflicts);
  }
  state.counters["transfer_hops_per_s"] =
      benchmark::Counter(static_cast<double>(tree.hops), benchmark::Counter::kIsRate);
}

/// The bare loop at the size of a `check`: every message of an all-to-all on leaves x per_leaf
/// machines (shift's order, src -> src + k in phase k, made as it goes), so the same hops as any
/// all-to-all on that tree, Faraj-Yuan's included. Its rate, twice over, is the two-core limit a
/// check of that machine is compared with (docs/performance.md, issue 41).
void bare_loop_two_level(benchmark::State& state) {
  const auto leaves = static_cast<std::uint32_t>(state.range(0));
  const auto per_leaf = static_cast<std::uint32_t>(state.range(1));
  BareTree tree(leaves, per_leaf);
  const std::uint32_t p = leaves * per_leaf;
  for (auto _ : state) {
    for (std::uint32_t k = 1; k < p; ++k)
      for (std::uint32_t src = 0, dst = k; src < p; ++src, dst = dst + 1 == p ? 0 : dst + 1)
        tree.route(src, dst, k);
    benchmark::DoNotOptimize(tree.conflicts);
  }
  state.counters["hops"] = benchmark::Counter(static_cast<double>(tree.hops / state.iterations()),
                                              benchmark::Counter::kAvgThreads);
  state.counters["transfer_hops_per_s"] =
      benchmark::Counter(static_cast<double>(tree.hops), benchmark::Counter::kIsRate);
}

/// Issue 3's case: hierarchical-factor on 64 SMP nodes of sizes 1..16 (four times over: 544
/// ranks, 295,392 messages), generated and streamed through every check, invariant included.
void hierarchical_factor_64_nodes(benchmark::State& state) {
  std::vector<Rank> sizes;
  for (int round = 0; round < 4; ++round)
    for (Rank s = 1; s <= 16; ++s) sizes.push_back(s);
  const auto& a = *schedules::find_algorithm("hierarchical-factor");
  Parameters params;
  if (state.range(0)) params.set("compact", "true");
  const ScheduleHeader h = schedules::make_header(a, Cluster(sizes), params);
  std::size_t steps = 0;
  for (auto _ : state) {
    verify::Verifier v(h, h.topology, a.claims(h));
    a.generate(h, v.sink());
    const verify::Report r = v.finish();
    if (r.verdict() != verify::Verdict::pass) state.SkipWithError("the schedule does not verify");
    steps = r.counts.phases;
  }
  state.counters["steps"] = static_cast<double>(steps);
  state.counters["messages_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 544 * 543, benchmark::Counter::kIsRate);
}

/// Issue 4's case: a Grama et al. algorithm on a d-cube (or the given model), generated and
/// streamed through every check. hypercube-pairwise at d = 12: 4096 ranks, 16,773,120 messages,
/// each routed along its e-cube path (up to 12 hops) by the contention check.
void grama_on_hypercube(benchmark::State& state, const std::string& algorithm) {
  const auto d = static_cast<unsigned>(state.range(0));
  const auto& a = *schedules::find_algorithm(algorithm);
  const ScheduleHeader h = schedules::make_header(a, Hypercube(d), {});
  std::uint64_t hops = 0, blocks = 0;
  for (auto _ : state) {
    verify::Verifier v(h, h.topology, a.claims(h));
    a.generate(h, v.sink());
    const verify::Report r = v.finish();
    if (r.verdict() != verify::Verdict::pass) state.SkipWithError("the schedule does not verify");
    hops += v.contention_work();
    blocks += r.counts.blocks;
  }
  state.counters["transfer_hops_per_s"] =
      benchmark::Counter(static_cast<double>(hops), benchmark::Counter::kIsRate);
  state.counters["blocks_per_s"] =
      benchmark::Counter(static_cast<double>(blocks), benchmark::Counter::kIsRate);
}

/// Issue 5's cases: faraj-yuan on two-level trees (a root switch over `leaves` switches of
/// `per_leaf` machines), generated and streamed through every check.
/// Faraj-Yuan's header on a two-level tree: `leaves` switches of `per_leaf` machines under a root.
ScheduleHeader faraj_yuan_on_two_levels(std::uint32_t leaves, std::uint32_t per_leaf) {
  std::vector<std::string> machines, switches{"root"};
  std::vector<Tree::NamedLink> links;
  for (std::uint32_t s = 0; s < leaves; ++s) {
    switches.push_back("s" + std::to_string(s));
    links.push_back({switches.back(), "root"});
    for (std::uint32_t m = 0; m < per_leaf; ++m) {
      machines.push_back("n" + std::to_string(machines.size()));
      links.push_back({machines.back(), switches.back()});
    }
  }
  return schedules::make_header(*schedules::find_algorithm("faraj-yuan"),
                                Tree(machines, switches, links), {});
}

void faraj_yuan_two_level(benchmark::State& state) {
  const auto leaves = static_cast<std::uint32_t>(state.range(0));
  const auto per_leaf = static_cast<std::uint32_t>(state.range(1));
  const auto& a = *schedules::find_algorithm("faraj-yuan");
  const ScheduleHeader h = faraj_yuan_on_two_levels(leaves, per_leaf);
  std::size_t phases = 0;
  for (auto _ : state) {
    verify::Verifier v(h, h.topology, a.claims(h));
    a.generate_direct(h, [&v](const DirectPhase& p) { v.consume(p); }, {});  // as `check` does
    const verify::Report r = v.finish();
    if (r.verdict() != verify::Verdict::pass) state.SkipWithError("the schedule does not verify");
    phases = r.counts.phases;
  }
  const double p = double(h.ranks());
  state.counters["phases"] = double(phases);
  state.counters["messages_per_s"] =
      benchmark::Counter(double(state.iterations()) * p * (p - 1), benchmark::Counter::kIsRate);
}

/// The parts of faraj_yuan_two_level one at a time, on the same tree, as `check` makes them (direct
/// phases, core/schedule.hpp): generation alone (a sink that counts), generation with the
/// validation the verifier begins with, and generation with the stateful share only (delivery,
/// invariants, counts) or the phase-local share only (contention). The whole check is
/// faraj_yuan_two_level.
void faraj_yuan_parts(benchmark::State& state) {
  const auto leaves = static_cast<std::uint32_t>(state.range(0));
  const auto per_leaf = static_cast<std::uint32_t>(state.range(1));
  const auto part = state.range(2);  // 0 generate, 1 + validate, 2 stateful, 3 phase-local
  const auto& a = *schedules::find_algorithm("faraj-yuan");
  const ScheduleHeader h = faraj_yuan_on_two_levels(leaves, per_leaf);
  std::uint64_t transfers = 0;
  for (auto _ : state) {
    transfers = 0;
    if (part <= 1) {
      verify::Verifier v(h, h.topology, a.claims(h));
      std::size_t index = 0;
      a.generate_direct(h,
                        [&](const DirectPhase& p) {
                          if (part == 1) v.validate(index++, p);
                          transfers += p.size();
                        },
                        {});
    } else {
      const verify::Share share =
          part == 2 ? verify::Share{true, 0, 0} : verify::Share{false, 0, 1};
      verify::Verifier v(h, h.topology, a.claims(h), share);
      a.generate_direct(h,
                        [&](const DirectPhase& p) {
                          v.consume(p);
                          transfers += p.size();
                        },
                        {});
      if (part == 2 && v.finish().verdict() != verify::Verdict::pass)
        state.SkipWithError("the schedule does not verify");
    }
  }
  state.counters["transfers_per_s"] = benchmark::Counter(
      double(state.iterations()) * double(transfers), benchmark::Counter::kIsRate);
}

/// Issue 6's case: bruck-index with r = 2 on fully-connected(n, 1), generated and streamed
/// through every check (each transfer carries about n/2 blocks: 24M block moves at n = 4096).
void bruck_index_r2(benchmark::State& state) {
  const auto n = static_cast<Rank>(state.range(0));
  const auto& a = *schedules::find_algorithm("bruck-index");
  Parameters params;
  params.set("radix", "2");
  const ScheduleHeader h = schedules::make_header(a, FullyConnected(n, 1), params);
  std::uint64_t blocks = 0;
  for (auto _ : state) {
    verify::Verifier v(h, h.topology, a.claims(h));
    a.generate(h, v.sink());
    const verify::Report r = v.finish();
    if (r.verdict() != verify::Verdict::pass) state.SkipWithError("the schedule does not verify");
    blocks += r.counts.blocks;
  }
  state.counters["blocks_per_s"] =
      benchmark::Counter(static_cast<double>(blocks), benchmark::Counter::kIsRate);
}

/// Issue 7's case: on Slim Fly q = 13 with 3 hosts per router (1014 ranks), shift once and
/// randomized-sendrecv for 20 seeds, each generated, verified and measured for congestion.
void randomized_on_slim_fly(benchmark::State& state) {
  const Topology model = slim_fly(13, 3);
  std::uint64_t schedules = 0;
  for (auto _ : state) {
    for (int seed = 0; seed <= 20; ++seed) {
      const auto& a = *schedules::find_algorithm(seed == 0 ? "shift" : "randomized-sendrecv");
      Parameters params;
      if (seed > 0) params.set("seed", std::to_string(seed));
      const ScheduleHeader h = schedules::make_header(a, model, params);
      verify::Verifier v(h, h.topology, a.claims(h));
      verify::CongestionMeter meter(h.topology);
      a.generate(h, [&](const Phase& p) {
        v.consume(p);
        meter.consume(p);
      });
      if (!v.finish().passed(CheckId::delivery)) state.SkipWithError("delivery fails");
      benchmark::DoNotOptimize(meter.sum_of_max());
      ++schedules;
    }
  }
  state.counters["schedules"] = double(schedules);
}

}  // namespace

BENCHMARK(randomized_on_slim_fly)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(bruck_index_r2)
    ->Arg(1024)
    ->Arg(4096)
    ->ArgName("n")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(faraj_yuan_two_level)
    ->Args({32, 32})
    ->Args({64, 64})
    ->ArgNames({"leaves", "per_leaf"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(faraj_yuan_parts)
    ->ArgsProduct({{64}, {64}, {0, 1, 2, 3}})
    ->ArgNames({"leaves", "per_leaf", "part"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(grama_on_hypercube, hypercube_pairwise, std::string("hypercube-pairwise"))
    ->Arg(10)
    ->Arg(12)
    ->ArgName("d")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(grama_on_hypercube, hypercube_exchange, std::string("hypercube-exchange"))
    ->Arg(10)
    ->Arg(12)
    ->ArgName("d")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(hierarchical_factor_64_nodes)
    ->Arg(0)
    ->Arg(1)
    ->ArgName("compact")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(contention, shift_tree1024, std::string("shift"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(contention, pairwise_xor_tree1024, std::string("pairwise-xor"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(delivery, shift_tree1024, std::string("shift"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(delivery, pairwise_xor_tree1024, std::string("pairwise-xor"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(streamed, shift_tree1024, std::string("shift"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(streamed, pairwise_xor_tree1024, std::string("pairwise-xor"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(parse, shift_tree1024, std::string("shift"))->Unit(benchmark::kMillisecond);
BENCHMARK(bare_loop)->Unit(benchmark::kMillisecond);
// threads:2 runs the loop on both cores at once, each on its own tree: the two-core limit as
// measured (transfer_hops_per_s adds both threads' hops over the wall time), not twice the one.
BENCHMARK(bare_loop_two_level)
    ->Args({64, 64})
    ->Args({128, 128})
    ->Args({256, 256})
    ->ArgNames({"leaves", "per_leaf"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();

BENCHMARK_MAIN();
