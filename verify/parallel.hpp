#pragma once
/// One verification spread over threads: the thread that reads or generates the phases validates
/// each one and copies it into a batch for the workers; one worker thread holds the stateful
/// checks (delivery, placement, invariants, counts); the phase-local checks (contention,
/// requests) are dealt out by phase number (Share, verifier.hpp) between the reading thread and
/// the `threads - 2` other workers. When reading is the heavier half (a parsed file:
/// `Reader::parses`), the reading thread only reads and validates, and the workers share every
/// check. Every worker sees every batch, in order, through a bounded queue, so memory is the
/// checkers' state plus a few batches. The report is the one a single Verifier gives: the
/// phase-local tallies merge exactly (tests compare them).
///
/// threads == 1 checks in the calling thread, with no copies. A format-3 schedule is always
/// checked that way (its phase-local checks judge the table placement derives, phase by phase).
/// Inside an MPI process the same holds for the process's share (`share`): its phase-local part is
/// dealt out again among its threads.

#include <memory>
#include <optional>
#include <vector>

#include "core/claims.hpp"
#include "core/schedule.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::verify {

/// What the thread that hands the phases over does besides: makes them (a generator, cheap
/// next to the checks) or parses them (a file, as costly as the stateful checks).
enum class Reader { generates, parses };

class ParallelVerifier {
 public:
  /// `threads` >= 1. Throws what Verifier's constructor throws.
  ParallelVerifier(const ScheduleHeader& header, const Topology& model, Claims claims,
                   unsigned threads, Share share = {}, Reader reader = Reader::generates);
  ~ParallelVerifier();
  ParallelVerifier(const ParallelVerifier&) = delete;
  ParallelVerifier& operator=(const ParallelVerifier&) = delete;

  /// Validates the phase here (InputError names the phase and transfer) and hands it on. An
  /// error a worker met (the memory limit, say) is thrown from the next call after it. `here`:
  /// whether this process judges the phase's phase-local checks at all (false when another
  /// process claimed them, pipeline::Spread::claim); its threads deal them out by the share.
  void consume(const Phase& phase, bool here = true);
  /// The same for a direct phase, which the workers are handed as pairs (8 bytes a transfer).
  void consume(const DirectPhase& phase, bool here = true);
  PhaseSink sink() {
    return [this](const Phase& p) { consume(p); };
  }
  /// Verifier::observe_tables. Only with one checking thread (threads() == 1): a worker thread
  /// would call `observe` behind the caller's back; throws std::logic_error otherwise.
  void observe_tables(PhaseSink observe);
  /// Waits for the workers. The findings of the phase-local checks of this share.
  Verifier::Partial partial();
  /// Waits for the workers; the report (share.stateful only), merging `others` (other
  /// processes' partials) in.
  Report finish(std::span<const Verifier::Partial> others = {});
  /// A range of phases (Share::ranged): Verifier::range_findings, with the phase-local findings
  /// of every thread; Verifier::range_words; Verifier::finish_ranges. Each waits for the workers.
  Verifier::RangeFindings range_findings();
  void range_words(Rank lo, Rank hi, std::vector<std::uint32_t>& out);
  std::optional<Report> finish_ranges(std::span<const Verifier::RangeFindings> ranges);
  /// The threads that actually check (1 when the schedule or the share keeps it to one).
  unsigned threads() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The machine's cores (at least 1): the default of --threads.
unsigned default_threads();

}  // namespace phasecheck::verify
