// MSCCL import (issue 20): a 32-gpu program with more than 2,500 steps read from XML text, lowered
// by the execution model and verified, as `phasecheck verify FILE.xml` does. The program is
// bruck-index over 32 gpus exported by phasecheck itself (programs/msccl_export.hpp): 3,551 steps,
// relays through scratch, nops for the waits on several threadblocks; so the figure depends on no
// third-party file. The budget: import and verify in under a second.
// Figures and commands: docs/performance.md, "MSCCL import (issue 20)".
//
//   ./build/bench/phasecheck_bench --benchmark_filter=msccl --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include "io/msccl_xml.hpp"
#include "programs/msccl_export.hpp"
#include "schedules/registry.hpp"
#include "verify/msccl_execution.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

constexpr Rank kGpus = 32;

const std::string& xml() {
  static const std::string text = [] {
    const schedules::Algorithm& bruck = *schedules::find_algorithm("bruck-index");
    const ScheduleHeader header = schedules::make_header(bruck, FullyConnected(kGpus, 1), {});
    const Schedule program = schedules::generate_program(bruck, header);
    return io::msccl_to_xml(programs::to_msccl(program, {}));
  }();
  return text;
}

std::uint64_t steps(const msccl::Program& p) {
  std::uint64_t n = 0;
  for (const msccl::Gpu& g : p.gpus)
    for (const msccl::Threadblock& t : g.threadblocks) n += t.steps.size();
  return n;
}

void set_counters(benchmark::State& state, const msccl::Program& p) {
  state.counters["gpus"] = p.ngpus;
  state.counters["steps"] = static_cast<double>(steps(p));
  state.counters["kB"] = static_cast<double>(xml().size()) / 1000.0;
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(steps(p)) * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
}

void msccl_parse(benchmark::State& state) {
  msccl::Program p;
  for (auto _ : state) {
    p = io::parse_msccl(xml(), "bench.xml");
    benchmark::DoNotOptimize(p);
  }
  set_counters(state, p);
}
BENCHMARK(msccl_parse)->Unit(benchmark::kMillisecond);

void msccl_lower(benchmark::State& state) {
  const msccl::Program p = io::parse_msccl(xml(), "bench.xml");
  for (auto _ : state) {
    Schedule s = msccl::lower(p, "bench.xml");
    benchmark::DoNotOptimize(s);
  }
  set_counters(state, p);
}
BENCHMARK(msccl_lower)->Unit(benchmark::kMillisecond);

/// What `phasecheck verify FILE.xml` does after reading the file: parse, lower, every check.
void msccl_import_and_verify(benchmark::State& state) {
  msccl::Program p;
  for (auto _ : state) {
    p = io::parse_msccl(xml(), "bench.xml");
    const Schedule s = msccl::lower(p, "bench.xml");
    const verify::Report r = verify::verify(s, s.header.topology);
    if (r.verdict() != verify::Verdict::pass) state.SkipWithError("the program does not verify");
  }
  set_counters(state, p);
}
BENCHMARK(msccl_import_and_verify)->Unit(benchmark::kMillisecond);

}  // namespace
