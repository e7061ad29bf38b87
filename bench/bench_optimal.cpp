// What each encoding choice of `phasecheck optimal` costs: the direct optimum of small machines
// under every symmetry breaking (clique, first, none) and "at most one" encoding (cardinality,
// pairwise), searched as `phasecheck optimal` does: up from the model's lower bound, then the
// solver shows one phase fewer impossible. Counters: optimum (0 = unknown), sat_s = the SAT call
// at the optimum, unsat_s = the proof one below it (under clique symmetry: the certificate's pair
// checks when the clique is as large as the optimum, else a solver call), unsat_proven = 0 when
// that call timed out.
// Run: ./build/bench/phasecheck_bench_optimal --benchmark_counters_tabular=true
// (docs/optimality.md has the figures).

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "io/json.hpp"
#include "verify/bounds.hpp"
#include "verify/optimal.hpp"

using namespace phasecheck;

namespace {

struct Instance {
  std::string name;
  Topology model;
};

std::vector<Instance> instances() {
  return {
      {"fig1-tree",
       io::read_topology_file(PHASECHECK_SOURCE_DIR "/examples/faraj-yuan-fig1/topology.json")},
      {"cluster-2,2,1", Cluster({2, 2, 1})},
      {"cluster-3,3,1", Cluster({3, 3, 1})},
      {"cluster-2,2,2", Cluster({2, 2, 2})},
      {"cluster-1x7", Cluster(std::vector<Rank>(7, 1))},
      {"fc-7-k1", FullyConnected(7, 1)},
      {"fc-7-k2", FullyConnected(7, 2)},
      {"hypercube-3", Hypercube(3)},
      {"mesh-3x3", Mesh(3, 3, false)},
      {"ring-6", Ring(6)},
  };
}

void solve(benchmark::State& state, const Topology& model, verify::Symmetry symmetry,
           verify::Encoding encoding) {
  verify::OptimalOptions o;
  o.lower = verify::best_bounds(verify::lower_bounds(model, Collective::alltoall), true).first;
  o.symmetry = symmetry;
  o.encoding = encoding;
  o.timeout = 30;
  verify::OptimalResult r;
  for (auto _ : state) r = verify::optimal_phases(model, o);
  double sat = 0, unsat = 0, below = 0;
  for (const auto& step : r.steps) {
    if (step.phases == r.upper && step.answer == "sat") sat = step.seconds;
    if (step.phases + 1 != r.upper) continue;
    unsat = step.seconds;
    below = step.answer.rfind("unsat", 0) == 0 ? 1 : 0;
  }
  state.counters["unsat_proven"] = below;  // 0: the UNSAT call timed out
  state.counters["optimum"] = r.proven ? double(r.upper) : 0;
  state.counters["sat_s"] = sat;
  state.counters["unsat_s"] = unsat;
}

const int registered = [] {
  for (const auto& instance : instances())
    for (const auto symmetry :
         {verify::Symmetry::clique, verify::Symmetry::first, verify::Symmetry::none})
      for (const auto encoding : {verify::Encoding::cardinality, verify::Encoding::pairwise}) {
        const std::string name =
            instance.name + "/" +
            (symmetry == verify::Symmetry::clique  ? "clique"
             : symmetry == verify::Symmetry::first ? "first"
                                                   : "none") +
            "/" + (encoding == verify::Encoding::cardinality ? "cardinality" : "pairwise");
        benchmark::RegisterBenchmark(name.c_str(), solve, instance.model, symmetry, encoding)
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
  return 0;
}();

}  // namespace

BENCHMARK_MAIN();
