#pragma once
/// Runs every check over a stream of phases: delivery (data-flow simulation, exactly once),
/// contention on the machine model, the algorithm's invariants at every phase boundary, its
/// claimed phase count, and the model's lower bounds. A format-3 schedule (header.buffers) is
/// also checked for placement (verify/placement.hpp); the sends of each of its phases form the
/// table the other checks judge (a phase of local copies only is an empty phase of it). Memory: the
/// delivery state, one slot per link or rank, and the phase being checked; never the whole table.

#include <optional>
#include <string>
#include <vector>

#include "core/claims.hpp"
#include "core/schedule.hpp"
#include "verify/contention.hpp"
#include "verify/delivery.hpp"
#include "verify/placement.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

class Verifier {
 public:
  /// Judges a schedule described by `header` on `model` (by default header.topology; another
  /// model is a what-if). Throws InputError when the model's rank count differs. `model` must
  /// outlive the verifier.
  Verifier(const ScheduleHeader& header, const Topology& model, Claims claims = {});

  /// Checks the next phase. Throws InputError if a transfer names a rank or block that does not
  /// exist, or carries no block, or (format 3) an op is malformed (op_problem).
  void consume(const Phase& phase);
  /// A sink that forwards to consume(); valid while the verifier lives.
  PhaseSink sink() {
    return [this](const Phase& p) { consume(p); };
  }

  Report finish() const;
  /// Transfer-hops routed by the contention check (for benchmarks).
  std::uint64_t contention_work() const { return contention_.work(); }

 private:
  void validate(const Phase& phase) const;
  /// The "invariants" check: fail on a violation; not evaluated when the algorithm declares none
  /// or none applied at any boundary; pass when one applied somewhere and none was broken.
  CheckResult invariants_check() const;
  /// The table checks on phase `index` of the table.
  void consume_table(const Phase& phase, std::size_t index);

  const ScheduleHeader& header_;
  const Topology& model_;
  Claims claims_;
  std::optional<PlacementChecker> placement_;  // format 3
  DeliveryChecker delivery_;
  ContentionChecker contention_;
  Counts counts_;
  std::uint64_t invariant_failures_ = 0;
  std::optional<Counterexample> invariant_first_;
  std::vector<std::uint64_t> invariant_evaluated_;  // per invariant: boundaries where it applied
  // The request bound: per rank, sends + receives in the current phase.
  void count_requests(std::size_t index, const Phase& phase);
  std::vector<std::uint32_t> requests_;
  std::uint32_t most_requests_ = 0;
  std::uint64_t request_failures_ = 0;
  std::optional<Counterexample> request_first_;
};

/// Convenience for whole tables held in memory.
Report verify(const Schedule& schedule, const Topology& model, Claims claims = {});

}  // namespace phasecheck::verify
