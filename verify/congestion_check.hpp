#pragma once
/// `phasecheck congestion`'s measurement: a schedule streamed through the verifier and the
/// congestion meter (verify/congestion.hpp) together, on one routed model. Every block crosses its
/// route's links, so the sum over phases of the busiest link's load (per unit of capacity) is at
/// least the busiest link's total, hence at least any bound on C2: the model's, for this kind of
/// schedule (docs/bounds.md). The summary sets the two side by side, with the bound's argument.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/claims.hpp"
#include "core/schedule.hpp"
#include "verify/congestion.hpp"
#include "verify/report.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::verify {

struct CongestionSummary {
  Report report;           ///< the verifier's, on the same model
  bool delivered = false;  ///< report.passed(CheckId::delivery): loads of an invalid schedule mean little
  std::size_t phases = 0;
  std::uint64_t sum_of_max = 0;   ///< over phases, the busiest link's load
  std::uint64_t lower_bound = 0;  ///< report.bound_c2: sum_of_max is at least this
  std::string argument;           ///< why lower_bound holds; empty when no bound gives it
  double mean_of_max = 0;
  std::uint64_t peak = 0;
  std::vector<PhaseLoad> loads;  ///< per phase, when kept
};

/// The C2 bound of `report` (report.bound_c2) with the argument of the first bound that gives it;
/// "" when none does (a bound of 0).
std::string c2_bound_argument(const Report& report);

class CongestionCheck {
 public:
  /// Throws InputError as Verifier does (rank counts differ) and as CongestionMeter does (a model
  /// that does not route). `model` must outlive the check.
  CongestionCheck(const ScheduleHeader& header, const Topology& model, Claims claims,
                  bool keep_phases);
  /// Throws InputError as Verifier::consume does.
  void consume(const Phase& phase);
  CongestionSummary finish() const;

 private:
  Verifier verifier_;
  CongestionMeter meter_;
};

}  // namespace phasecheck::verify
