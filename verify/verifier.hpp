#pragma once
/// Runs every check over a stream of phases: delivery (data-flow simulation, exactly once),
/// contention on the machine model, the algorithm's invariants at every phase boundary, its
/// claimed phase count, and the model's lower bounds. A format-3 schedule (header.buffers) is
/// also checked for placement (verify/placement.hpp); the sends of each of its phases form the
/// table the other checks judge (a phase of local copies only is an empty phase of it). Memory: the
/// delivery state, one slot per link or rank, and the phase being checked; never the whole table.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/claims.hpp"
#include "core/schedule.hpp"
#include "verify/contention.hpp"
#include "verify/delivery.hpp"
#include "verify/phase_ranges.hpp"
#include "verify/placement.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

/// Which part of one verification a verifier does, when the work is spread over threads or
/// processes that all see every phase. The stateful checks (delivery, placement, invariants,
/// counts, claims, bounds) need every phase in order, so exactly one verifier holds them; the
/// phase-local checks (contention, requests) judge each phase alone, so they are dealt out by
/// phase number: phase i to the verifier with slice == i % slices. The default does everything.
///
/// A verifier may also judge one range of phases of a schedule of direct phases apart from the
/// others (`ranged`, from phase `first` on; verify/phase_ranges.hpp): every check, its stateful
/// ones on the range's own arrivals, for the ranges' findings to make the report of the whole.
struct Share {
  bool stateful = true;
  std::uint32_t slice = 0;
  std::uint32_t slices = 1;  ///< 0: no phase-local checks here
  std::uint64_t first = 0;   ///< the index of the first phase this verifier is given
  bool ranged = false;       ///< judges phases from `first` on apart from the ones before
  bool local(std::size_t index) const { return slices != 0 && index % slices == slice; }
  /// Deals this share's phases out again: part k of n.
  Share split(std::uint32_t k, std::uint32_t n) const {
    return {false, slice + slices * k, slices * n, first, false};
  }
};

class Verifier {
 public:
  /// Judges a schedule described by `header` on `model` (by default header.topology; another
  /// model is a what-if). Throws InputError when the model's rank count differs. `model` must
  /// outlive the verifier. A format-3 schedule is judged by one verifier with the default share
  /// (its phase-local checks judge the table placement derives): any other share is refused.
  Verifier(const ScheduleHeader& header, const Topology& model, Claims claims = {},
           Share share = {});
  // A range's view (EarlierView) refers to the verifier's own delivery state: never copied or
  // moved.
  Verifier(const Verifier&) = delete;
  Verifier& operator=(const Verifier&) = delete;

  /// Checks the next phase. Throws InputError if a transfer names a rank or block that does not
  /// exist, or carries no block, or (format 3) an op is malformed (op_problem).
  void consume(const Phase& phase);
  /// The validation consume() begins with, for a caller that hands phases on to other threads.
  void validate(std::size_t index, const Phase& phase) const;
  /// consume() of phase `index` (the next one) that validate() has passed.
  void consume_valid(const Phase& phase);
  /// The same, judging the phase-local checks of this phase when `local` says so, whatever the
  /// share says: for a caller that deals phases out as it goes (verify/parallel.hpp). Each phase
  /// judged by exactly one verifier keeps the merged findings those of one verifier.
  void consume_valid(const Phase& phase, bool local);
  /// The same for a direct phase (core/schedule.hpp, DirectPhase): judged from its pairs, with
  /// the findings, counts and report of consume(P) for the Phase P it stands for, which is built
  /// only to draw a counterexample, or whole when the schedule is one the pairs do not settle (a
  /// format-3 program, an alltoallv, another collective, or a table observer).
  void consume(const DirectPhase& phase);
  void validate(std::size_t index, const DirectPhase& phase) const;
  void consume_valid(const DirectPhase& phase);
  void consume_valid(const DirectPhase& phase, bool local);
  /// A sink that forwards to consume(); valid while the verifier lives.
  PhaseSink sink() {
    return [this](const Phase& p) { consume(p); };
  }

  /// Hands every phase of the table to `observe` as it is checked (a format-3 program's: the
  /// table its sends form), after validation, on the thread that checks it; the stateful share
  /// only. For measures that route the table again (verify/machine_time.hpp): one call per phase.
  void observe_tables(PhaseSink observe) { table_observer_ = std::move(observe); }

  /// The phase-local checks' findings so far, to merge with other shares'.
  struct Partial {
    ContentionChecker::Tally contention;
    std::uint32_t most_requests = 0;
    std::uint64_t request_failures = 0;
    std::optional<Counterexample> request_first;
    /// Adds `other`'s phases; the earlier counterexample wins.
    void merge(const Partial& other);
    friend bool operator==(const Partial&, const Partial&) = default;
  };
  Partial partial() const;

  /// What the verifier of one range of phases found (Share::ranged), for the report of the whole
  /// (finish_ranges). `clean`: nothing in the range stops its findings from making that report.
  /// `fits` is the caller's: whether the destinations it merged fit together (verify::fit).
  struct RangeFindings {
    Partial partial;
    Counts counts;
    std::vector<std::uint64_t> invariant_evaluated;  ///< per invariant: boundaries where it applied
    bool clean = false;
    bool fits = false;
    friend bool operator==(const RangeFindings&, const RangeFindings&) = default;
  };
  /// This range's findings, with the partials of the other shares of its phases merged in.
  RangeFindings range_findings(std::span<const Partial> others = {}) const;
  /// This range's arrivals and assumptions at destinations [lo, hi), appended to `out`
  /// (verify/phase_ranges.hpp, range_words). Once the range's last phase is in.
  void range_words(Rank lo, Rank hi, std::vector<std::uint32_t>& out);

  /// The report, from the stateful share with every other share's partial (the default share
  /// needs none).
  Report finish(std::span<const Partial> others = {}) const;
  /// The report of a schedule checked in ranges, from every range's findings in range order:
  /// the one a single verifier gives. Empty when they cannot make it (a range not clean, or
  /// arrivals that do not fit): then the caller checks the schedule whole.
  std::optional<Report> finish_ranges(std::span<const RangeFindings> ranges) const;
  /// Transfer-hops routed by the contention check (for benchmarks).
  std::uint64_t contention_work() const { return contention_.work(); }

 private:
  /// The "invariants" check: fail on a violation; not evaluated when the algorithm declares none
  /// or none applied at any boundary; pass when one applied somewhere and none was broken.
  /// `evaluated`: per invariant, the boundaries where it applied.
  CheckResult invariants_check(const std::vector<std::uint64_t>& evaluated) const;
  /// The report from the findings of every phase: the phase-local ones merged in `local`, the
  /// counts and the delivery check.
  Report report(const Partial& local, const Counts& counts,
                const std::vector<std::uint64_t>& evaluated, CheckResult delivery) const;
  /// The table checks on phase `index` of the table (a Phase, or a direct phase judged_direct
  /// accepts); the phase-local ones when `local`.
  template <class P>
  void consume_table(const P& phase, std::size_t index, bool local);
  /// Whether a direct phase is judged from its pairs (consume(const DirectPhase&)).
  bool judged_direct(const DirectPhase& phase) const;
  /// A phase's part of the counts (`direct`: whether every transfer so far is direct).
  void count(std::uint64_t transfers, std::uint64_t blocks, std::uint32_t largest,
             std::uint64_t heaviest, bool direct);
  /// The invariants at the boundary after phase `index`, its label and size for a violation.
  void check_invariants(std::size_t index, std::string_view label, std::size_t size);

  const ScheduleHeader& header_;
  const Topology& model_;
  Claims claims_;
  Share share_;
  std::size_t next_ = 0;                       // the index of the next phase
  std::optional<PlacementChecker> placement_;  // format 3
  DeliveryChecker delivery_;
  std::optional<EarlierView> earlier_;  // a range after phase 0: what its invariants see
  bool apart_ = true;  // a range: every phase so far could be judged apart from the others
  ContentionChecker contention_;
  Counts counts_;
  PhaseSink table_observer_;
  std::uint64_t cost_bytes_ = 0;  // an alltoallv's: the sum of each phase's largest transfer
  std::uint64_t invariant_failures_ = 0;
  std::optional<Counterexample> invariant_first_;
  std::vector<std::uint64_t> invariant_evaluated_;  // per invariant: boundaries where it applied
  // The request bound: per rank, sends + receives in the current phase.
  template <class T>
  void count_requests(std::size_t index, std::span<const T> transfers, std::string_view label);
  std::vector<std::uint32_t> requests_;  // per rank, zero between phases
  std::vector<Rank> touched_;            // the ranks with requests in this phase
  std::uint32_t most_requests_ = 0;
  std::uint64_t request_failures_ = 0;
  std::optional<Counterexample> request_first_;
};

/// Convenience for whole tables held in memory.
Report verify(const Schedule& schedule, const Topology& model, Claims claims = {});

}  // namespace phasecheck::verify
