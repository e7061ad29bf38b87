#pragma once
/// A check split by phase range (pipeline/check.hpp, `mpirun -np N phasecheck check`): each
/// process makes and judges phases [first, last) of a schedule of direct phases alone, with every
/// check, and the ranges' findings make the report of the whole when they fit together. What
/// makes that report the one a single verifier gives:
///  - delivery: a direct phase's senders hold what they send from the start, so the phase a block
///    arrives in changes only where a duplicate is drawn. Each range keeps its own arrivals; over
///    all ranges, every destination's must be disjoint and complete (fit).
///  - invariants: a range's invariants are asked about the state after each of its phases, which
///    holds the arrivals of the ranges before it too. The view they are given (EarlierView)
///    answers from the range's own arrivals and, where those lack a block, answers that it arrived
///    before the range and writes that down; fit requires every such assumption to hold in the
///    earlier ranges' arrivals. When all hold, every answer was the true one, so each invariant
///    found at each boundary what it finds in the whole check.
///  - the counts add up, and the phase-local checks merge as a spread check's do.
/// Anything else leaves a range not clean (a duplicate within it, a broken invariant, a question
/// the view cannot answer so, a phase that is not judged from its pairs), and then the schedule
/// is checked whole: a split check never reports what the whole check would not.
///
/// Words: what a range sends the process that holds destinations [lo, hi) (range_words): per
/// destination in order, the count of runs of origins that arrived there in the range and the
/// runs (lo, hi), then the same for the origins assumed to have arrived before the range.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/invariant.hpp"
#include "verify/delivery.hpp"

namespace phasecheck::verify {

/// The data view a range's invariants see (the range starts after phase 0): its own arrivals, and
/// for a block they lack, the assumption that it arrived before the range. Only for a schedule of
/// one part a message, no traffic matrix, whose phases are all direct.
class EarlierView final : public DataView {
 public:
  EarlierView(const DeliveryChecker& local, Collective collective, Rank ranks)
      : local_(local), collective_(collective), ranks_(ranks) {}

  bool holds(Rank r, Block b) const override;
  bool delivered(Rank origin, Rank dest) const override;
  bool delivered_all(Rank first, Rank last, Rank dest) const override;
  /// Not answerable from a range (how many arrived before it is not known here): the view is no
  /// longer exact, and the schedule is checked whole.
  Rank delivered_count(Rank dest) const override;

  /// Whether every answer so far was the local one or a written-down assumption.
  bool exact() const { return exact_; }
  /// The assumptions at destinations [lo, hi) as words: per destination, the count of runs and
  /// the runs (sorted, disjoint). `sorted()` first.
  void assumed_words(Rank lo, Rank hi, std::vector<std::uint32_t>& out) const;
  /// Sorts and merges the assumptions by destination (after the range's last phase; again only
  /// when one was added since).
  void sort();

  /// Assumptions kept before the view gives up (exact() false): beyond this, checking the
  /// schedule whole is cheaper than sending them. The view gives up too where their memory would
  /// pass the memory limit (12 bytes each).
  static constexpr std::size_t kMostAssumed = std::size_t{1} << 22;

 private:
  struct Assumed {
    Rank dest, lo, hi;  // origins [lo, hi) arrived at dest before the range
    auto operator<=>(const Assumed&) const = default;
  };
  /// Origins [first, last) at `dest`, outside the local arrivals, are assumed.
  void assume(Rank dest, Rank first, Rank last) const;

  const DeliveryChecker& local_;
  Collective collective_;
  Rank ranks_;
  mutable std::vector<Assumed> assumed_;
  mutable std::vector<std::pair<std::uint32_t, std::uint32_t>> runs_;  // scratch
  mutable bool exact_ = true;
  mutable bool sorted_ = true;  // none yet
};

/// The arrivals of a range at destinations [lo, hi) (DeliveryChecker::arrived_runs), then the
/// view's assumptions (none when `earlier` is null: a range that starts at phase 0), as words.
void range_words(const DeliveryChecker& local, const EarlierView* earlier, Rank lo, Rank hi,
                 std::vector<std::uint32_t>& out);

/// Whether the ranges' words for destinations [lo, hi), in range order, fit together: at every
/// destination d, the arrivals of all ranges are disjoint and are every origin but d, and every
/// origin a range assumed arrived in a range before it. Throws std::runtime_error for words
/// range_words cannot have written.
bool fit(Rank ranks, Rank lo, Rank hi, std::span<const std::span<const std::uint32_t>> ranges);

}  // namespace phasecheck::verify
