#pragma once
/// A Report collects the checks (core/verdict.hpp) together with the schedule's counts and bounds.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/schedule.hpp"
#include "core/verdict.hpp"

namespace phasecheck::verify {

// The verdict vocabulary lives in core/verdict.hpp; the checkers speak it as verify::Verdict.
using phasecheck::CheckId;
using phasecheck::CheckResult;
using phasecheck::Counterexample;
using phasecheck::OffendingOp;
using phasecheck::OffendingTransfer;
using phasecheck::to_string;
using phasecheck::Verdict;

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

/// An alltoallv's figures in bytes (verify/traffic_bounds.hpp).
struct ByteFigures {
  std::uint64_t cost = 0;        ///< cost_bytes: the sum over phases of the largest transfer's
  std::uint64_t load_bound = 0;  ///< load_bound_bytes: the least cost any valid schedule has
  std::string argument;          ///< why the bound holds: the rank, node or link that sets it
  friend bool operator==(const ByteFigures&, const ByteFigures&) = default;
};

struct Report {
  std::string algorithm;
  Collective collective = Collective::alltoall;
  bool inplace = false;  ///< the collective runs in place (ScheduleHeader::in_place)
  std::string topology;  ///< describe() of the model judged on
  Counts counts;
  std::vector<Bound> bounds;   ///< the bounds that apply to this schedule
  std::uint64_t bound_c1 = 0;  ///< the best of them per metric
  std::uint64_t bound_c2 = 0;
  std::vector<CheckResult> checks;
  /// An alltoallv's (collective_name "alltoallv"); absent for every other collective. Its block
  /// bounds (bounds, bound_c1, bound_c2) are empty: they count equal messages.
  std::optional<ByteFigures> bytes;
  /// "alltoallv" for an alltoallv's report, else the collective's name.
  std::string_view collective_name() const { return bytes ? "alltoallv" : to_string(collective); }
  /// fail if a check failed, else unknown if one could not decide, else pass if one passed (the
  /// rest not evaluated), else not_evaluated.
  Verdict verdict() const;
  /// Whether the check `id` ran and passed.
  bool passed(CheckId id) const;
  /// The failed checks that break what a registered algorithm promises: every check but the
  /// bounds (a gap is information, not a broken promise), and contention only when the algorithm
  /// claims contention-freedom on the model. "name: summary; ..." or empty.
  std::string broken_claims(bool contention_free_claimed) const;
  friend bool operator==(const Report&, const Report&) = default;
};


}  // namespace phasecheck::verify
