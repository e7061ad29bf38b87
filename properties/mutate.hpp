#pragma once
/// `phasecheck mutate`: a checker that checks itself. Single faults are planted in a schedule,
/// each mutant is judged by the checkers, and a second, independent method, a naive
/// re-simulation from scratch, decides whether the mutant is in fact valid. Every invalid mutant
/// must be rejected, and no valid one.
///
/// A phase table (formats 1 and 2) gets six classes of faults in its transfers; the naive method
/// follows docs/models.md (sets of holdings, a counter per link or port). A buffer program
/// (format 3, header.buffers) gets six placement faults in its ops (two destinations swapped, a
/// rotation shifted by one, the self copy dropped, a receive redirected to scratch, a wrong slot
/// read, a slot written twice in a phase) and the six table faults done on ops; the naive method
/// is a second simulation of the slots, written from the semantics of core/buffers.hpp alone
/// (a map of slots per rank), not from core/buffer_state (both in properties/naive.hpp). The
/// classes are the rows of one table in mutate.cpp: a name, the schedules it applies to (tables
/// or programs) and the function that plants it.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "properties/naive.hpp"

namespace phasecheck::properties {

struct MutationClass {
  std::string name;
  std::uint64_t mutants = 0;
  std::uint64_t invalid = 0;      ///< by the naive re-simulation
  std::uint64_t caught = 0;       ///< invalid and rejected by the checkers
  std::uint64_t missed = 0;       ///< invalid but accepted: a checker defect
  std::uint64_t over_strict = 0;  ///< valid but rejected: a checker defect too
  std::uint64_t claims_only = 0;  ///< valid, rejected only by the algorithm's own claims
  /// The first missed or over-strict mutant: the fault planted, what the naive method found and
  /// what the checkers said. Empty when there is none.
  std::string example;
  friend bool operator==(const MutationClass&, const MutationClass&) = default;
};

struct MutationReport {
  bool program = false;           ///< a buffer program: the placement classes were planted
  bool contention_counts = true;  ///< the original is contention-free, so contention is a fault
  std::vector<MutationClass> classes;
  bool perfect() const;  ///< nothing missed, nothing over-strict
  friend bool operator==(const MutationReport&, const MutationReport&) = default;
};

/// The largest inputs `mutate` takes: every mutant is re-simulated with sets of holdings
/// (ranks^2 blocks), once per mutant. The command refuses a larger machine from the schedule's
/// header, before its phases are read.
inline constexpr Rank kMaxMutateRanks = 64;
inline constexpr std::uint32_t kMaxMutantsPerClass = 100000;

/// Plants up to `per_class` faults of each class (deterministic for `seed`) in `schedule` and
/// judges them on `model`. Validity: every block delivered exactly once (for a program also: no
/// op fault, and every output slot holds its chunk at the end), and, when the original is
/// contention-free on the model, no contention. A class that does not apply to the schedule (no
/// forwarded block, a single phase, no self copy) has 0 mutants. Throws InputError for more than
/// 64 ranks or a schedule without a transfer (op) to mutate. The checkers judge with the claims
/// the verifier would use (schedules::claims_for: none for an imported program).
MutationReport mutate(const Schedule& schedule, const Topology& model, std::uint32_t per_class,
                      std::uint64_t seed);

}  // namespace phasecheck::properties
