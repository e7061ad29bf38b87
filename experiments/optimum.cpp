#include "experiments/optimum.hpp"

#include <map>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "experiments/bruck_family.hpp"
#include "schedules/registry.hpp"
#include "verify/bounds.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::experiments {

std::pair<std::uint64_t, std::string> best_direct_algorithm(const Topology& model, Collective c) {
  std::uint64_t best = 0;
  std::string name;
  for (const auto& a : schedules::algorithms()) {
    Parameters params;
    params.set("collective", std::string(to_string(c)));  // every algorithm declares it
    try {
      const Schedule s = schedules::generate(a, model, params);
      if (s.header.parts != 1) continue;
      const verify::Report r = verify::verify(s, model);
      if (!r.counts.direct || !r.passed(CheckId::delivery) || !r.passed(CheckId::contention)) continue;
      if (best == 0 || r.counts.c1 < best) {
        best = r.counts.c1;
        name = std::string(a.name);
      }
    } catch (const InputError&) {
      // not applicable to this machine, or not an algorithm for this collective
    }
  }
  return {best, name};
}

DirectOptimum direct_optimum(const Topology& model, verify::OptimalOptions o) {
  // Before the bounds and the algorithms, which take long on a large machine.
  check_ranks(ranks(model), verify::kMaxOptimalRanks, "optimal", verify::kLargerMachines);
  DirectOptimum d;
  d.collective = o.collective;
  d.lower_bound = verify::best_bounds(verify::lower_bounds(model, o.collective), true).first;
  std::tie(d.best_phases, d.best) = best_direct_algorithm(model, o.collective);
  o.lower = d.lower_bound;
  o.upper = d.best_phases;
  d.solver = verify::optimal_phases(model, o);
  const verify::OptimalResult& r = d.solver;
  d.met_by_algorithm = !r.proven && !d.best.empty() && d.best_phases == d.lower_bound;
  d.verdict = d.met_by_algorithm && r.verdict() == Verdict::unknown ? Verdict::pass : r.verdict();
  d.known_lower = d.met_by_algorithm ? d.best_phases : r.lower;
  d.known_upper = d.met_by_algorithm ? d.best_phases : r.upper;
  d.proof = d.met_by_algorithm ? "the lower bound, met by " + d.best + "'s schedule" : r.why;
  return d;
}

ForwardingOptimum forwarding_optimum(const Topology& model, verify::ForwardingOptions o) {
  check_ranks(ranks(model), verify::kMaxForwardingRanks, "optimal --mode forwarding",
              verify::kLargerMachines);
  ForwardingOptimum f;
  f.collective = o.collective;
  f.max_transfer = o.max_transfer;
  const std::vector<BruckPoint> family = bruck_family(model, o.collective);
  const auto fits = [&](const BruckPoint& b) {
    return !o.max_transfer || largest_transfer(b.schedule) <= o.max_transfer;
  };
  for (const auto& b : family)
    if (fits(b)) o.known.push_back({b.name, b.schedule});
  f.solver = verify::optimal_forwarding(model, o);  // k-port only: throws otherwise
  const auto& machine = std::get<FullyConnected>(model);
  f.ranks = machine.ranks;
  f.ports = machine.ports;

  std::map<std::uint64_t, std::uint64_t> least;  // C1 -> least C2, where proven
  std::uint64_t previous = 0;
  for (const auto& point : f.solver.frontier) {
    if (point.proven) least[point.c1] = point.c2_upper;
    f.pareto.push_back(previous == 0 || point.c2_upper < previous);
    previous = point.c2_upper;
  }
  for (const auto& b : family) {
    BruckAgainstFrontier row{b.name, b.c1, b.c2, fits(b), std::nullopt};
    if (const auto it = least.find(b.c1); row.fits && it != least.end()) row.least_c2 = it->second;
    f.bruck_optimal += row.least_c2 == b.c2;
    f.bruck.push_back(std::move(row));
  }
  for (const auto& step : f.solver.steps) f.solver_seconds += step.seconds;
  return f;
}

}  // namespace phasecheck::experiments
