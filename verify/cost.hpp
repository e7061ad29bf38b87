#pragma once
/// The linear cost model of Grama et al. (Section 4.1 and 4.5): a phase costs t_s + t_w m x, where
/// x is the largest transfer of the phase in blocks of m bytes, so a table costs
/// T = t_s C1 + t_w m C2 (C1: phases with communication, C2: the sum of those largest transfers).
/// The rows put T next to the algorithm's closed forms (an equation it must equal, a bound it must
/// not beat) and next to the model's own lower bound t_s C1* + t_w m C2*.

#include <string>
#include <vector>

#include "core/claims.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

struct LinearCost {
  double ts = 0;  ///< start-up time per message (seconds)
  double tw = 0;  ///< time per byte (seconds)
  double m = 1;   ///< bytes per block (the message size)
  /// Throws InputError unless all three are finite and non-negative.
  void validate() const;
  double time(std::uint64_t c1, std::uint64_t c2) const {
    return ts * double(c1) + tw * m * double(c2);
  }
};

struct CostRow {
  enum class Kind { schedule, equation, lower_bound, model_bound };
  Kind kind;
  std::string name;
  double seconds = 0;
  /// pass: an equation the table's T equals, a bound it is at least, or the schedule's own row.
  /// fail: an equation it differs from, a bound it beats. not_evaluated: the model's bound of a
  /// schedule that does not deliver without contention (the bound is for valid schedules).
  Verdict verdict;
  /// Not failed (JSON's "holds": a bound not evaluated is not broken).
  bool holds() const { return verdict != Verdict::fail; }
};

struct CostReport {
  LinearCost model;
  double seconds = 0;  ///< the table's T
  std::vector<CostRow> rows;
  /// Every equation matches and no bound is beaten (no row failed).
  bool consistent() const;
};

/// Relative tolerance for comparing T with a closed form (both are sums of the same terms).
inline constexpr double kCostTolerance = 1e-9;

/// `report` must come from verifying the schedule (its counts and the model's bounds); `claims`
/// are the algorithm's, whose `cost` formulas become rows. An alltoallv (report.bytes) costs
/// T = t_s C1 + t_w cost_bytes (t_w per byte; m is not used), next to the load bound
/// t_w load_bound_bytes.
CostReport cost(const Report& report, const Claims& claims, const LinearCost& model);

const char* to_string(CostRow::Kind kind);

}  // namespace phasecheck::verify
