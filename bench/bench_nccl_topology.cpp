// NCCL/RCCL topology import (issue 38): the largest fixture, tests/topologies/nccl/xgmi-8.xml (8
// MI300X-like gpus, 56 xGMI elements), read and built into a graph as every --topology FILE.xml
// does, against the baseline of reading the graph it builds back from its JSON; and the same
// machine as 128 nodes behind a network (`--nodes 128`, 1,153 routers), where the graph's routing
// tables dominate. The budget: any of RCCL's shipped files in under 50 ms.
// With PHASECHECK_NCCL_TOPOLOGIES=DIR, one more benchmark per DIR/*.xml (scripts/rccl-topologies
// runs it on RCCL's own files, locally). Figures: docs/performance.md.
//
//   ./build/bench/phasecheck_bench --benchmark_filter=nccl

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/json.hpp"
#include "io/nccl_topology.hpp"

using namespace phasecheck;

namespace {

std::string read(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void import(benchmark::State& state, const std::string& text, std::uint32_t nodes) {
  for (auto _ : state) {
    const Graph g = io::import_nccl_topology(text, "bench.xml", {.nodes = nodes});
    benchmark::DoNotOptimize(g.ranks());
    state.counters["routers"] = g.router_count();
  }
}

void nccl_import_xgmi8(benchmark::State& state) {
  static const std::string text =
      read(std::string(PHASECHECK_SOURCE_DIR) + "/tests/topologies/nccl/xgmi-8.xml");
  import(state, text, static_cast<std::uint32_t>(state.range(0)));
}
BENCHMARK(nccl_import_xgmi8)->Arg(1)->Unit(benchmark::kMillisecond);

/// The baseline of the same run: the machine nccl_import_xgmi8 builds, read back from the
/// topology file `topology import nccl` writes (JSON, format 2): what importing adds to reading.
void nccl_baseline_json_xgmi8(benchmark::State& state) {
  static const std::string json = io::topology_to_json(io::import_nccl_topology(
      read(std::string(PHASECHECK_SOURCE_DIR) + "/tests/topologies/nccl/xgmi-8.xml"), "bench.xml",
      {}));
  for (auto _ : state) {
    const Topology t = io::parse_topology(json, "bench.json");
    benchmark::DoNotOptimize(ranks(t));
  }
}
BENCHMARK(nccl_baseline_json_xgmi8)->Unit(benchmark::kMillisecond);

void nccl_import_two_nic_nodes(benchmark::State& state) {
  static const std::string text =
      read(std::string(PHASECHECK_SOURCE_DIR) + "/tests/topologies/nccl/two-nic-4.xml");
  import(state, text, static_cast<std::uint32_t>(state.range(0)));
}
BENCHMARK(nccl_import_two_nic_nodes)->Arg(128)->Unit(benchmark::kMillisecond);

/// One benchmark per file of $PHASECHECK_NCCL_TOPOLOGIES.
const int registered = [] {
  const char* dir = std::getenv("PHASECHECK_NCCL_TOPOLOGIES");
  if (!dir) return 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".xml") continue;
    const std::string text = read(entry.path());
    benchmark::RegisterBenchmark(("nccl_import/" + entry.path().filename().string()).c_str(),
                                 [text](benchmark::State& state) { import(state, text, 1); })
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}();

}  // namespace
