#pragma once
/// A schedule's time on a machine whose links have bandwidths (`cost` on an imported NCCL/RCCL
/// machine): phase by phase, t_s when the phase communicates plus the time its busiest directed
/// link needs, max over links of (the bytes the link carries in the phase / its bandwidth). Links
/// share their bandwidth within a phase (a fluid model, as verify/congestion.hpp counts blocks);
/// a link of unknown bandwidth is not counted, and the report says how many carried bytes. A
/// transfer carries block_count x m bytes, an alltoallv's its pieces' bytes
/// (verify/traffic_bounds.hpp, transfer_bytes). Streams phases: one counter per directed link.
///
/// Next to it the machine's lower bound in seconds (verify/time_bounds.hpp): every schedule that
/// delivers meets it, so a schedule below it fails.

#include <cstdint>
#include <optional>
#include <vector>

#include "core/schedule.hpp"
#include "core/topology.hpp"
#include "core/traffic.hpp"
#include "verify/report.hpp"
#include "verify/time_bounds.hpp"

namespace phasecheck::verify {

class MachineTimer {
 public:
  /// `bandwidths` per directed link of `model` (directed_bandwidths()); `ts` seconds per phase
  /// with communication; `block_bytes` bytes per block (unused with `traffic`). `model` and
  /// `traffic` must outlive the calls to consume(). Throws InputError for a model that does not
  /// route.
  MachineTimer(const Topology& model, std::vector<double> bandwidths, double ts, double block_bytes,
               const Traffic* traffic = nullptr, Pieces pieces = {});
  /// Adds a validated phase of the table. O(transfers x route length).
  void consume(const Phase& phase);

  double seconds() const { return ts_ * double(phases_) + transfer_seconds_; }
  /// The sum over phases of the busiest link's time.
  double transfer_seconds() const { return transfer_seconds_; }
  /// Phases with communication (C1).
  std::uint64_t phases() const { return phases_; }
  /// Directed links of unknown bandwidth that carried bytes: their time is not counted.
  std::uint64_t uncounted_links() const { return uncounted_; }

 private:
  const Topology& model_;
  std::vector<double> bandwidth_;
  double ts_, block_bytes_;
  const Traffic* traffic_;
  Pieces pieces_;
  std::vector<double> load_;  // bytes per directed link in the current phase
  std::vector<LinkId> touched_;
  std::vector<char> uncounted_seen_;
  std::uint64_t uncounted_ = 0, phases_ = 0;
  double transfer_seconds_ = 0;
};

/// The schedule's time on the machine next to the machine's lower bound.
struct MachineCost {
  double ts = 0;           ///< seconds per phase with communication
  double block_bytes = 0;  ///< m (0 for an alltoallv: its messages have the matrix's sizes)
  double seconds = 0;      ///< the schedule's time on the machine
  double transfer_seconds = 0;
  std::uint64_t phases = 0;           ///< phases with communication
  std::uint64_t uncounted_links = 0;  ///< links of unknown bandwidth that carried bytes
  TimeBound bound;                    ///< for these m
  /// pass: seconds >= the bound; fail: below it (no schedule that delivers can be); not_evaluated:
  /// the schedule does not deliver (the bound is for those that do), or no cut has bandwidths.
  Verdict verdict = Verdict::not_evaluated;
  /// seconds / bound.seconds; 0 without a bound.
  double gap_ratio() const { return bound.seconds > 0 ? seconds / bound.seconds : 0; }
  friend bool operator==(const MachineCost&, const MachineCost&) = default;
};

/// Judges `timer`'s time against `bound` for the schedule `report` verified. Link sharing is in
/// the time model, so the bound needs delivery only, not contention-freedom.
MachineCost machine_cost(const Report& report, const MachineTimer& timer, double block_bytes,
                         double ts, TimeBound bound);

/// `cost` on the machine a schedule is judged on, in the verifier's one pass over the phases:
/// start() at the header (pipeline::TableObserver), the sink it returns fed every phase of the
/// table, finish() with the report.
class OnMachine {
 public:
  /// The sink for the table's phases; empty (and nothing is measured) when no link of `model`
  /// has a bandwidth. `model` must outlive the phases; the header's traffic is kept.
  PhaseSink start(const ScheduleHeader& header, const Topology& model, double ts,
                  double block_bytes);
  bool measured() const { return timer_.has_value(); }
  /// Precondition: measured().
  MachineCost finish(const Report& report) const;

 private:
  SharedTraffic traffic_;
  std::optional<MachineTimer> timer_;
  TimeBound bound_;
  double ts_ = 0, block_bytes_ = 0;
};

}  // namespace phasecheck::verify
