#pragma once
/// Verdicts are data, and there is one kind of them. Every check returns a CheckResult; a failing
/// one carries a concrete, minimal counterexample: the phase, the offending transfers with their
/// routes, and the shared link, port or buffer slot. Checkers (verify/), programs' replay,
/// optimal's witness, lint, diff and gate all decide in these terms, and every report (report/)
/// writes them unchanged.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck {

/// pass and fail are proofs; unknown is a check that ran and could not decide (a limit, a
/// timeout); not_evaluated is a check that did not apply to this schedule or model and says why in
/// its summary. Only pass is a pass: a report whose checks are all not evaluated is not evaluated.
enum class Verdict { pass, fail, unknown, not_evaluated };
/// "pass", "fail", "unknown", "not-evaluated" (as JSON reports write it).
std::string_view to_string(Verdict v);

/// The verdict of several: fail if one failed, else unknown if one could not decide, else pass
/// if one passed (the rest not evaluated), else not_evaluated. The one rule every report and
/// every table of reports uses.
Verdict overall(const std::vector<Verdict>& verdicts);

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

/// Every check there is. Reports name a check by to_string(CheckId), so its output is the
/// name it always had.
enum class CheckId {
  execution,        ///< imported programs (MSCCL): the runtime model ran them to the end
  delivery,         ///< every block reaches every rank that needs it, exactly once
  placement,        ///< buffer programs: every output slot holds its chunk
  contention,       ///< every phase is contention-free on the model
  invariants,       ///< the algorithm's loop invariants at the phase boundaries
  claims,           ///< the phase count is what the algorithm claims
  requests,         ///< nonblocking requests outstanding at once, as claimed
  bounds,           ///< C1 and C2 against the model's lower bounds
  replay,           ///< per-rank programs replayed together
  synchronization,  ///< the kept synchronizations order every contending pair
  witness,          ///< a solver's witness passes the verifier
  deadlock,         ///< recorded programs (record/) complete with no message buffered
  lifetime,         ///< recorded programs: no buffer touched while its request is in flight
};
/// "execution", "delivery", ... as reports print it.
std::string_view to_string(CheckId id);

/// A check's outcome. There is no default: a check states its verdict when it is made, so no
/// result can pass by being left unset.
struct CheckResult {
  CheckResult(CheckId check, Verdict outcome, std::string why = {},
              std::optional<Counterexample> witness = std::nullopt)
      : id(check), verdict(outcome), summary(std::move(why)), counterexample(std::move(witness)) {}
  CheckId id;
  Verdict verdict;
  std::string summary;
  std::optional<Counterexample> counterexample;
  /// to_string(id): the name reports print.
  std::string_view name() const { return to_string(id); }
  friend bool operator==(const CheckResult&, const CheckResult&) = default;
};

/// The checks counted by verdict, as every summary line says it: "all 5 checks pass", "2 of 5
/// checks failed", "4 checks pass, 1 not evaluated", "3 checks pass, 1 undecided". A check that
/// did not run is never counted as passed.
std::string tally(const std::vector<CheckResult>& checks);

std::ostream& operator<<(std::ostream& os, Verdict v);
std::ostream& operator<<(std::ostream& os, const Counterexample& c);
std::ostream& operator<<(std::ostream& os, const CheckResult& r);

}  // namespace phasecheck
