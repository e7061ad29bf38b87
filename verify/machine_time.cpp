#include "verify/machine_time.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "verify/cost.hpp"
#include "verify/traffic_bounds.hpp"

namespace phasecheck::verify {

MachineTimer::MachineTimer(const Topology& model, std::vector<double> bandwidths, double ts,
                           double block_bytes, const Traffic* traffic, Pieces pieces)
    : model_(model),
      bandwidth_(std::move(bandwidths)),
      ts_(ts),
      block_bytes_(block_bytes),
      traffic_(traffic),
      pieces_(pieces),
      load_(bandwidth_.size(), 0),
      uncounted_seen_(bandwidth_.size(), 0) {
  if (bandwidth_.empty())
    throw InputError("the time on a machine is measured on routed models with links, not " +
                     describe(model));
}

void MachineTimer::consume(const Phase& phase) {
  bool communicates = false;
  for (const Transfer& t : phase.transfers()) {
    if (t.local()) continue;
    communicates = true;
    const double bytes = traffic_ ? double(transfer_bytes(phase, t, *traffic_, pieces_))
                                  : double(t.block_count) * block_bytes_;
    for_each_link(model_, t.src, t.dst, [&](LinkId l) {
      if (load_[l] == 0) touched_.push_back(l);
      load_[l] += bytes;
    });
  }
  double busiest = 0;
  for (const LinkId l : touched_) {
    if (bandwidth_[l] > 0) {
      busiest = std::max(busiest, load_[l] / bandwidth_[l]);
    } else if (load_[l] > 0 && !uncounted_seen_[l]) {
      uncounted_seen_[l] = 1;
      ++uncounted_;
    }
    load_[l] = 0;
  }
  touched_.clear();
  if (communicates) ++phases_;
  transfer_seconds_ += busiest;
}

MachineCost machine_cost(const Report& report, const MachineTimer& timer, double block_bytes,
                         double ts, TimeBound bound) {
  MachineCost c;
  c.ts = ts;
  c.block_bytes = block_bytes;
  c.seconds = timer.seconds();
  c.transfer_seconds = timer.transfer_seconds();
  c.phases = timer.phases();
  c.uncounted_links = timer.uncounted_links();
  c.bound = std::move(bound);
  const double b = c.bound.seconds;
  const bool close = std::abs(c.seconds - b) <= kCostTolerance * std::max(c.seconds, b);
  if (!report.passed(CheckId::delivery) || b <= 0)
    c.verdict = Verdict::not_evaluated;
  else
    c.verdict = c.seconds >= b || close ? Verdict::pass : Verdict::fail;
  return c;
}

PhaseSink OnMachine::start(const ScheduleHeader& header, const Topology& model, double ts,
                           double block_bytes) {
  const Graph* graph = std::get_if<Graph>(&model);
  if (!graph || !has_bandwidths(*graph)) return {};
  traffic_ = header.traffic;
  const Traffic* traffic = traffic_ ? &*traffic_ : nullptr;
  ts_ = ts;
  block_bytes_ = traffic ? 0 : block_bytes;
  std::vector<double> bandwidths = directed_bandwidths(*graph);
  bound_ = time_lower_bound(*graph, bandwidths, header.collective, block_bytes, traffic);
  // A message of m bytes cut into `parts` segments moves m / parts bytes per block (a segmented
  // table, an MSCCL program of several chunks per message); an alltoallv's pieces have their own
  // sizes (traffic).
  const double segment = traffic ? block_bytes : block_bytes / double(std::max(header.parts, 1u));
  timer_.emplace(model, std::move(bandwidths), ts, segment, traffic, header.pieces());
  return [this](const Phase& phase) { timer_->consume(phase); };
}

MachineCost OnMachine::finish(const Report& report) const {
  return machine_cost(report, *timer_, block_bytes_, ts_, bound_);
}

}  // namespace phasecheck::verify
