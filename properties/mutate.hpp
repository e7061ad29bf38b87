#pragma once
/// `phasecheck mutate`: a checker that checks itself. Single faults are planted in a schedule
/// (six classes), each mutant is judged by the checkers, and a second, independent method, a
/// naive re-simulation from scratch written from docs/models.md (sets of holdings, a counter per
/// link or port), decides whether the mutant is in fact valid. Every invalid mutant must be
/// rejected, and no valid one.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::properties {

struct MutationClass {
  std::string name;
  std::uint64_t mutants = 0;
  std::uint64_t invalid = 0;      ///< by the naive re-simulation
  std::uint64_t caught = 0;       ///< invalid and rejected by the checkers
  std::uint64_t missed = 0;       ///< invalid but accepted: a checker defect
  std::uint64_t over_strict = 0;  ///< valid but rejected: a checker defect too
  std::uint64_t claims_only = 0;  ///< valid, rejected only by the algorithm's own claims
};

struct MutationReport {
  bool contention_counts = true;  ///< the original is contention-free, so contention is a fault
  std::vector<MutationClass> classes;
  bool perfect() const;  ///< nothing missed, nothing over-strict
};

/// The largest inputs `mutate` takes: every mutant is re-simulated with sets of holdings
/// (ranks^2 blocks), once per mutant.
inline constexpr Rank kMaxMutateRanks = 512;
inline constexpr std::uint32_t kMaxMutantsPerClass = 100000;

/// Plants up to `per_class` faults of each class (deterministic for `seed`) in `schedule` and
/// judges them on `model`. Validity: every block delivered exactly once, and, when the original
/// is contention-free on the model, no contention.
MutationReport mutate(const Schedule& schedule, const Topology& model, std::uint32_t per_class,
                      std::uint64_t seed);

/// Naive validity of a schedule (the second method): delivery by sets of holdings, and
/// contention by counting link, port or node uses. Exposed for tests.
struct NaiveVerdict {
  bool delivered = false;
  bool contention_free = false;
};
NaiveVerdict naive_verdict(const Schedule& schedule, const Topology& model);

}  // namespace phasecheck::properties
