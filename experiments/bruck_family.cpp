#include "experiments/bruck_family.hpp"

#include <algorithm>

#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::experiments {

std::vector<BruckPoint> bruck_family(const Topology& model, Collective c) {
  std::vector<BruckPoint> family;
  const auto* f = std::get_if<FullyConnected>(&model);
  if (!f) return family;  // not a k-port machine: optimal_forwarding says so
  const auto add = [&](const char* algorithm, Parameters p, std::string label) {
    const Schedule s = schedules::generate(*schedules::find_algorithm(algorithm), model, p);
    const verify::Report r = verify::verify(s, model);
    if (r.passed(CheckId::delivery) && r.passed(CheckId::contention))
      family.push_back({std::move(label), r.counts.c1, r.counts.c2, s});
  };
  const auto ports = [f] {
    Parameters p;
    p.set("ports", std::to_string(f->ports));
    return p;
  };
  if (c == Collective::allgather) {
    add("bruck-concat", ports(), "bruck-concat");
    return family;
  }
  for (Rank r = 2; r <= f->ranks; ++r) {
    Parameters p = ports();
    p.set("radix", std::to_string(r));
    add("bruck-index", p, "bruck-index r=" + std::to_string(r));
  }
  return family;
}

std::size_t largest_transfer(const Schedule& s) {
  std::size_t largest = 0;
  for (const Phase& phase : s.phases)
    for (const Transfer& t : phase.transfers()) largest = std::max(largest, phase.blocks(t).size());
  return largest;
}

}  // namespace phasecheck::experiments
