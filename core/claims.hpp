#pragma once
/// What an algorithm claims about its own schedules, beyond correctness: the number of phases,
/// exactly or within a range (a theorem's upper bound, say). The verifier checks the claim.

#include <cstddef>
#include <cstdint>
#include <string>

namespace phasecheck {

struct PhaseClaim {
  std::size_t at_least = 0;
  std::size_t at_most = 0;
  std::string source;  ///< where the claim comes from: "p rounds (Lemma 1)", "Theorem 1"

  static PhaseClaim exactly(std::size_t n, std::string source) { return {n, n, std::move(source)}; }
  bool holds(std::size_t phases) const { return at_least <= phases && phases <= at_most; }
  friend bool operator==(const PhaseClaim&, const PhaseClaim&) = default;
};

}  // namespace phasecheck

#include <functional>
#include <optional>
#include <vector>

#include "core/invariant.hpp"

namespace phasecheck {

struct CostFormula {
  enum class Kind {
    equation,     ///< the paper's time for this algorithm's schedule: the table must match it
    lower_bound,  ///< the paper's bound for any schedule: the table must not beat it
  };
  std::string name;  ///< "Eq. 4.7: (t_s + t_w m p/2)(p - 1)"
  std::function<double(double ts, double tw, double m)> time;
  Kind kind = Kind::equation;
};

/// Everything an algorithm asks the verifier to hold it to, beyond delivery and contention.
struct Claims {
  /// Predicates over the data-flow state, evaluated after every phase.
  std::vector<Invariant> invariants;
  /// The phase count the algorithm claims for this instance.
  std::optional<PhaseClaim> phases;
  /// The paper's closed forms for the time of this instance under the linear cost model
  /// T = sum over phases of (t_s + t_w m x largest transfer in blocks), shown next to the
  /// schedule's own figure by `phasecheck cost`.
  std::vector<CostFormula> cost;
  /// The C2 it claims (the sum over phases of the largest transfer, in blocks), exactly or as a
  /// range: Bruck et al.'s C2 <= ceil((r - 1)/k) ceil(n/r) ceil(log_r n), say.
  std::optional<PhaseClaim> c2;
  /// Requests a rank may have outstanding in a phase (what is in flight between two Waitalls):
  /// its sends plus its receives, a local copy counting as both. Checked as "requests".
  struct RequestLimit {
    std::uint32_t at_most = 0;
    std::string source;  ///< "max_queue = 8"
  };
  std::optional<RequestLimit> max_requests;
  /// An alltoallv's cost in bytes it claims (verify/traffic_bounds.hpp: the sum over phases of
  /// the largest transfer's bytes), exactly or as a range: at most its proven bound, say.
  std::optional<PhaseClaim> cost_bytes;
};

}  // namespace phasecheck
