#pragma once
/// Link congestion on a routed model (graph, tree, hypercube, mesh, ring), for schedules that are
/// not contention-free by design (the randomized Alltoall of the Slim Fly paper): per phase, the
/// largest and the mean number of blocks a directed link carries; over the schedule, the sum of
/// the per-phase maxima, the phase time under a link-sharing model in which a phase lasts as long
/// as its busiest link needs. Streams phases: one counter per directed link.

#include <cstdint>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::verify {

struct PhaseLoad {
  std::uint64_t max = 0;  ///< blocks on the busiest directed link
  double mean = 0;        ///< blocks per directed link, over all of them
  LinkId busiest = 0;
};

class CongestionMeter {
 public:
  /// Throws InputError for a model that does not route. `model` must outlive the meter.
  explicit CongestionMeter(const Topology& model, bool keep_phases = false);
  void consume(const Phase& phase);
  PhaseSink sink() {
    return [this](const Phase& p) { consume(p); };
  }

  std::uint64_t sum_of_max() const { return sum_of_max_; }
  std::uint64_t peak() const { return peak_; }
  double mean_of_max() const { return phases_ ? double(sum_of_max_) / double(phases_) : 0; }
  std::size_t phase_count() const { return phases_; }
  /// Per phase, when kept.
  const std::vector<PhaseLoad>& loads() const { return loads_; }

 private:
  const Topology& model_;
  bool keep_;
  std::vector<std::uint64_t> load_;
  std::vector<LinkId> touched_;
  std::uint64_t sum_of_max_ = 0, peak_ = 0;
  std::size_t phases_ = 0;
  std::vector<PhaseLoad> loads_;
};

}  // namespace phasecheck::verify
