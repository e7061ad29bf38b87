#pragma once
/// Link congestion on a routed model (graph, tree, hypercube, mesh, ring), for schedules that are
/// not contention-free by design (the randomized Alltoall of the Slim Fly paper): per phase, the
/// largest and the mean number of blocks a directed link carries; over the schedule, the sum of
/// the per-phase maxima, the phase time under a link-sharing model in which a phase lasts as long
/// as its busiest link needs. Streams phases: one counter per directed link.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::verify {

/// Loads count blocks per unit of capacity: a directed link of capacity c (a graph's parallel
/// links or host ports) carrying b blocks has load ceil(b / c); 1 everywhere else.
struct PhaseLoad {
  std::uint64_t max = 0;  ///< load of the busiest directed link
  double mean = 0;        ///< blocks per unit of link capacity, over all directed links
  LinkId busiest = 0;
};

class CongestionMeter {
 public:
  /// Throws InputError for a model that does not route. `model` must outlive the meter.
  explicit CongestionMeter(const Topology& model, bool keep_phases = false);
  void consume(const Phase& phase);
  /// Calls visit(link, load) for every directed link the phase loads (load >= 1, per unit of
  /// capacity as above), in no particular order; `phasecheck draw --links` keeps them per phase.
  using LinkVisit = std::function<void(LinkId, std::uint64_t)>;
  void consume(const Phase& phase, const LinkVisit& visit);
  PhaseSink sink() {
    return [this](const Phase& p) { consume(p); };
  }

  std::uint64_t sum_of_max() const { return sum_of_max_; }
  std::uint64_t peak() const { return peak_; }
  double mean_of_max() const { return phases_ ? double(sum_of_max_) / double(phases_) : 0; }
  std::size_t phase_count() const { return phases_; }
  /// The model's directed links (ids 0 .. links() - 1).
  LinkId links() const { return static_cast<LinkId>(load_.size()); }
  /// Per phase, when kept.
  const std::vector<PhaseLoad>& loads() const { return loads_; }

 private:
  const Topology& model_;
  bool keep_;
  std::vector<std::uint64_t> load_;
  std::vector<std::uint32_t> capacity_;
  std::uint64_t total_capacity_ = 0;
  std::vector<LinkId> touched_;
  std::uint64_t sum_of_max_ = 0, peak_ = 0;
  std::size_t phases_ = 0;
  std::vector<PhaseLoad> loads_;
};

}  // namespace phasecheck::verify
