// The decode and judgement of a recorded run (record/): a 64-rank pairwise alltoall with 1,024
// elements a block (tests/record/synthetic_recording.hpp: the files the driver writes, 4 MB a
// rank), read and judged on the fully connected machine. Issue 35's budget: under 1 s. The
// baseline is verify::verify of the same phase table built by hand, with the same claims: the
// work the checkers do on any table of that size, so that the figure is a ratio.
//
//   ./build/bench/phasecheck_bench --benchmark_filter=record --benchmark_repetitions=3

#include <benchmark/benchmark.h>

#include <memory>

#include "core/topology.hpp"
#include "record/judge.hpp"
#include "record/recording.hpp"
#include "schedules/registry.hpp"
#include "tests/record/synthetic_recording.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

constexpr Rank kRanks = 64;
constexpr std::uint32_t kCount = 1024;

/// The recording, written once for the whole run (removed at exit).
const testing::ScratchDirectory& recording() {
  static const auto dir = [] {
    auto d = std::make_unique<testing::ScratchDirectory>();
    testing::write_recording(d->path(),
                             testing::render(testing::pairwise_alltoall(kRanks, kCount)));
    return d;
  }();
  return *dir;
}

const Topology& model() {
  static const Topology t = FullyConnected(kRanks, kRanks - 1);
  return t;
}

/// The table the recording is, by hand: phase 0 the self copies (no message), then in step j
/// every rank i sends its block for i + j, element by element.
Schedule shift_table() {
  Schedule s;
  s.header.algorithm = "shift";
  s.header.collective = Collective::alltoall;
  s.header.topology = model();
  s.header.parts = kCount;
  s.phases.resize(kRanks);
  std::vector<Block> blocks(kCount);
  for (Rank j = 0; j < kRanks; ++j) {
    s.phases[j].set_label("step " + std::to_string(j));
    if (j == 0) continue;
    for (Rank i = 0; i < kRanks; ++i) {
      const Rank to = static_cast<Rank>((i + j) % kRanks);
      for (std::uint32_t k = 0; k < kCount; ++k) blocks[k] = {i, to, k};
      s.phases[j].add(i, to, blocks);
    }
  }
  return s;
}

void record_read_and_judge(benchmark::State& state) {
  const std::string dir = recording().path().string();
  for (auto _ : state) {
    const record::Recording rec = record::read_recording(dir);
    const record::Judgement j = record::judge(rec, model(), "pairwise");
    if (j.report.verdict() != Verdict::pass || j.identified != std::optional<std::string>("shift"))
      state.SkipWithError("the synthetic recording did not pass as shift");
    benchmark::DoNotOptimize(j);
  }
  state.counters["elements_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kRanks * (kRanks - 1) * kCount,
                         benchmark::Counter::kIsRate);
}

/// The baseline: verify::verify of the table record_read_and_judge judges, with the claims
/// judge() gives it (the registry's, C2 counted in elements).
void record_baseline_verify(benchmark::State& state) {
  const Schedule table = shift_table();
  {  // The same table as the judge's, so that the ratio compares like with like.
    const record::Judgement j =
        record::judge(record::read_recording(recording().path().string()), model(), "pairwise");
    // Labels aside: the judge's aligned table keeps the recorded steps' own labels.
    std::vector<Phase> judged = j.schedule ? j.schedule->phases : std::vector<Phase>{};
    for (std::size_t t = 0; t < judged.size() && t < table.phases.size(); ++t)
      judged[t].set_label(table.phases[t].label());
    if (judged != table.phases || j.schedule->header.parts != kCount) {
      state.SkipWithError("the hand-made table is not the one the recording judges");
      return;
    }
  }
  Claims claims = schedules::claims_for(table.header);
  if (claims.c2) {
    claims.c2->at_least *= kCount;
    claims.c2->at_most *= kCount;
  }
  for (auto _ : state) {
    const verify::Report r = verify::verify(table, model(), claims);
    if (r.verdict() != Verdict::pass)
      state.SkipWithError("the hand-made shift table does not pass");
    benchmark::DoNotOptimize(r);
  }
  state.counters["elements_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * kRanks * (kRanks - 1) * kCount,
                         benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(record_read_and_judge)->Unit(benchmark::kMillisecond);
BENCHMARK(record_baseline_verify)->Unit(benchmark::kMillisecond);
