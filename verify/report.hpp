#pragma once
/// Verdicts are data. Every check returns a CheckResult; a failing one carries a concrete,
/// minimal counterexample: the phase, the offending transfers with their routes, and the shared
/// link or port. A Report collects the checks together with the schedule's counts and bounds.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::verify {

/// pass and fail are proofs; unknown is a check that ran and could not decide (a limit, a
/// timeout); not_evaluated is a check that did not apply to this schedule or model and says why in
/// its summary. Only pass is a pass: a report whose checks are all not evaluated is not evaluated.
enum class Verdict { pass, fail, unknown, not_evaluated };
/// "pass", "fail", "unknown", "not-evaluated" (as JSON reports write it).
std::string_view to_string(Verdict v);

struct OffendingTransfer {
  Rank src = 0;
  Rank dst = 0;
  std::vector<Block> blocks;
  /// Names of the nodes on the routed path (src first, dst last); {src, dst} in port models.
  std::vector<std::string> route;
  /// Imported programs (MSCCL): the source steps of the sends it merges, "gpu 0 tb 2 step 1 ->
  /// gpu 3 tb 1 step 0"; empty otherwise.
  std::string origin;
  friend bool operator==(const OffendingTransfer&, const OffendingTransfer&) = default;
};

/// Format 3: an op of a buffer program, with the phase it belongs to and its position there.
struct OffendingOp {
  std::size_t phase = 0;
  std::size_t index = 0;  ///< in the phase's ops
  BufferOp op;
  std::string origin;  ///< imported programs: the source steps that execute it
  friend bool operator==(const OffendingOp&, const OffendingOp&) = default;
};

struct Counterexample {
  /// The offending phase (0-based); absent when the problem is at the end (a block never arrives).
  std::optional<std::size_t> phase;
  std::string label;
  std::size_t phase_size = 0;                ///< transfers (ops, for a placement fault) in it
  std::vector<OffendingTransfer> transfers;  ///< only the ones that conflict
  std::string resource;                      ///< "link s0 -> s1", "node 1 (ranks 1-2)", ...
  std::string explanation;                   ///< one sentence a person reads first
  std::vector<OffendingOp> ops;              ///< format 3: the ops involved
  std::vector<StepRef> steps;                ///< imported programs: the source steps involved
  friend bool operator==(const Counterexample&, const Counterexample&) = default;
};

struct CheckResult {
  std::string name;
  Verdict verdict = Verdict::pass;
  std::string summary;
  std::optional<Counterexample> counterexample;
  friend bool operator==(const CheckResult&, const CheckResult&) = default;
};

/// C1 = phases with communication (the start-up count); C2 = sum over phases of the largest
/// transfer in blocks (the data count). For a direct schedule both equal the communication phases.
enum class Metric { c1, c2 };
std::string_view to_string(Metric m);

struct Bound {
  Metric metric = Metric::c1;
  std::uint64_t value = 0;
  std::string argument;      ///< why it holds, one line; docs/bounds.md has the proofs
  bool direct_only = false;  ///< holds only for schedules without forwarding
  friend bool operator==(const Bound&, const Bound&) = default;
};

struct Counts {
  std::size_t phases = 0;
  std::size_t c1 = 0;
  std::uint64_t c2 = 0;
  std::uint64_t transfers = 0;
  std::uint64_t blocks = 0;
  bool direct = true;  ///< every transfer carries exactly its own message
  friend bool operator==(const Counts&, const Counts&) = default;
};

struct Report {
  std::string algorithm;
  Collective collective = Collective::alltoall;
  std::string topology;  ///< describe() of the model judged on
  Counts counts;
  std::vector<Bound> bounds;   ///< the bounds that apply to this schedule
  std::uint64_t bound_c1 = 0;  ///< the best of them per metric
  std::uint64_t bound_c2 = 0;
  std::vector<CheckResult> checks;
  /// fail if a check failed, else unknown if one could not decide, else pass if one passed (the
  /// rest not evaluated), else not_evaluated.
  Verdict verdict() const;
  /// Whether the check called `name` ran and passed ("delivery", "contention", ...).
  bool passed(std::string_view name) const;
  /// The failed checks that break what a registered algorithm promises: every check but the
  /// bounds (a gap is information, not a broken promise), and contention only when the algorithm
  /// claims contention-freedom on the model. "name: summary; ..." or empty.
  std::string broken_claims(bool contention_free_claimed) const;
  friend bool operator==(const Report&, const Report&) = default;
};

std::ostream& operator<<(std::ostream& os, Verdict v);
std::ostream& operator<<(std::ostream& os, const Counterexample& c);
std::ostream& operator<<(std::ostream& os, const CheckResult& r);

}  // namespace phasecheck::verify
