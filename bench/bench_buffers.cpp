// Buffer checking (format 3) against today's delivery check, on the same data: the shift alltoall
// over 1024 ranks with 10 chunks per message, as a program (every message one send of 10 chunks
// into its final output slots, the self copies in the first phase) and as the phase table its
// sends form. 1024 x 1024 x 10 = 10,485,760 chunk moves. The budget (issue 19): verifying the
// program runs at no less than half the delivery check's blocks per second (issue 41: in every one
// of five interleaved runs, the ratio taken within each run).
// Figures and commands: docs/performance.md, "Buffer programs" and "Issue 41".
//
//   ./build/bench/phasecheck_bench --benchmark_filter=buffers --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include "core/buffer_lowering.hpp"
#include "core/buffer_state.hpp"
#include "verify/delivery.hpp"
#include "verify/placement.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

constexpr Rank kRanks = 1024;
constexpr std::uint32_t kChunks = 10;

const Schedule& shift_program() {
  static const Schedule s = [] {
    Schedule p;
    p.header.algorithm = "shift";
    p.header.topology = FullyConnected(kRanks, 1);
    p.header.parts = kChunks;
    p.header.buffers = natural_layout(Collective::alltoall, kRanks, kChunks);
    for (Rank j = 0; j < kRanks; ++j) {
      Phase phase("shift " + std::to_string(j));
      for (Rank r = 0; r < kRanks; ++r) {
        const Rank d = (r + j) % kRanks;
        const Slot from{Buffer::input, d * kChunks}, to{Buffer::output, r * kChunks};
        phase.add(BufferOp{r, d, from, to, kChunks});  // j == 0: the self copy
      }
      p.phases.push_back(std::move(phase));
    }
    return p;
  }();
  return s;
}

const std::vector<Phase>& shift_table() {
  static const std::vector<Phase> t = [] {
    std::vector<Phase> phases;
    table_of(shift_program(), collect_into(phases));
    return phases;
  }();
  return t;
}

std::uint64_t moves(const Schedule& s) {
  std::uint64_t n = 0;
  for (const Phase& p : s.phases)
    for (const BufferOp& op : p.ops()) n += op.count;
  return n;
}

/// The baseline: today's delivery check on the table (blocks per second).
void buffers_delivery_of_table(benchmark::State& state) {
  const auto& table = shift_table();
  std::uint64_t blocks = 0;
  for (auto _ : state) {
    verify::DeliveryChecker checker(Collective::alltoall, kRanks, kChunks);
    for (std::size_t i = 0; i < table.size(); ++i) {
      checker.consume(i, table[i]);
      for (const Transfer& t : table[i].transfers()) blocks += t.block_count;
    }
    benchmark::DoNotOptimize(checker.finish());
  }
  state.counters["chunks_per_s"] =
      benchmark::Counter(static_cast<double>(blocks), benchmark::Counter::kIsRate);
}

/// The placement check alone: run the program, derive each phase's table, check the layout.
void buffers_placement(benchmark::State& state) {
  const Schedule& s = shift_program();
  for (auto _ : state) {
    verify::PlacementChecker checker(Collective::alltoall, kRanks, *s.header.buffers);
    for (std::size_t i = 0; i < s.phases.size(); ++i) checker.consume(i, s.phases[i]);
    benchmark::DoNotOptimize(checker.finish());
  }
  state.counters["chunks_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * moves(s)), benchmark::Counter::kIsRate);
}

/// Everything `verify` runs on the program: placement, then delivery, contention and bounds on
/// the table it derives.
void buffers_verify_program(benchmark::State& state) {
  const Schedule& s = shift_program();
  for (auto _ : state) benchmark::DoNotOptimize(verify::verify(s, s.header.topology));
  state.counters["chunks_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * moves(s)), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(buffers_delivery_of_table)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(buffers_placement)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(buffers_verify_program)->Unit(benchmark::kMillisecond)->MinTime(2);
