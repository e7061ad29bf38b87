#include "verify/congestion.hpp"

#include "core/error.hpp"
#include "core/overloaded.hpp"

namespace phasecheck::verify {

CongestionMeter::CongestionMeter(const Topology& model, bool keep_phases)
    : model_(model), keep_(keep_phases) {
  // Port models have no links; every other kind has link ids (one without them does not compile).
  const LinkId links = std::visit(Overloaded{[](const Cluster&) -> LinkId { return 0; },
                                             [](const FullyConnected&) -> LinkId { return 0; },
                                             [](const auto& routed) -> LinkId {
                                               return routed.link_id_count();
                                             }},
                                  model);
  if (links == 0)
    throw InputError(
        "congestion is measured on routed models (graph, tree, hypercube, mesh, "
        "ring), not " +
        describe(model));
  load_.assign(links, 0);
  capacity_.resize(links);
  for (LinkId l = 0; l < links; ++l) {
    capacity_[l] = link_capacity(model, l);
    total_capacity_ += capacity_[l];
  }
}

void CongestionMeter::consume(const Phase& phase) { consume(phase, {}); }

void CongestionMeter::consume(const Phase& phase, const LinkVisit& visit) {
  std::uint64_t total = 0;
  for (const Transfer& t : phase.transfers()) {
    if (t.local()) continue;
    for_each_link(model_, t.src, t.dst, [&](LinkId l) {
      if (load_[l] == 0) touched_.push_back(l);
      load_[l] += t.block_count;
      total += t.block_count;
    });
  }
  PhaseLoad p;
  for (LinkId l : touched_) {
    // A link of capacity c moves c blocks at a time: its load counts ceil(blocks / c).
    const std::uint64_t need = (load_[l] + capacity_[l] - 1) / capacity_[l];
    if (visit) visit(l, need);
    if (need > p.max) {
      p.max = need;
      p.busiest = l;
    }
    load_[l] = 0;
  }
  touched_.clear();
  p.mean = double(total) / double(total_capacity_);
  sum_of_max_ += p.max;
  peak_ = std::max(peak_, p.max);
  ++phases_;
  if (keep_) loads_.push_back(p);
}

}  // namespace phasecheck::verify
