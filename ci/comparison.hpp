#pragma once
/// What a change to a schedule did, measured against the last accepted version: the policy of
/// `phasecheck diff` and `phasecheck gate` (docs/ci.md). Which differences are regressions,
/// which of them `--allow` may lift, and which are improvements. Renderers live in
/// report/comparison_report.hpp; this file decides, it never prints.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/claims.hpp"
#include "core/schedule.hpp"
#include "io/gate_manifest.hpp"
#include "verify/gap.hpp"
#include "verify/report.hpp"

namespace phasecheck::ci {

/// The regressions a comparison checks, by the key --allow takes (docs/ci.md). check-failed, a
/// check that passed and fails now, is never allowed; check-dropped, a check that passed and is
/// now not evaluated (or gone), may be.
inline constexpr const char* kRegressions[] = {"check-failed", "check-dropped", "more-phases",
                                               "larger-c1",    "larger-c2",     "larger-gap"};
/// The keys --allow accepts: every regression but check-failed.
std::vector<std::string> allowable_regressions();

/// One side of a comparison: a verified schedule, or a baseline given only by its figures.
struct Side {
  std::string source;
  std::optional<Schedule> table;  ///< absent for a baseline given by its figures
  std::optional<verify::Report> report;
  io::Figures figures;
  std::uint64_t bound_c1 = 0, bound_c2 = 0;  ///< as reports print them: 0 when none applies
  verify::KnownBounds known;                 ///< the bounds that apply
  verify::Gap gap;                           ///< verify::gap of the side's figures
};

/// `table` verified on `model` (its own when null) with `claims`; errors name `source`.
Side judge(Schedule table, const std::string& source, const Topology* model, const Claims& claims);

/// A baseline known by its figures only, judged against the bounds of `after`'s model.
Side baseline_figures(const io::Figures& figures, const Side& after);

struct Finding {
  std::string key;   ///< a kRegressions key
  std::string text;  ///< "phases 9 -> 10"
  bool allowed = false;
};

struct Comparison {
  Side before, after;
  std::vector<Finding> regressions;
  std::vector<std::string> improvements;
  std::optional<std::size_t> first_difference;  ///< phase index where the tables differ
  std::vector<verify::CheckResult> new_failures;
  std::set<std::string> allow;
  bool passed() const;
  /// pass when every regression is allowed, else fail.
  verify::Verdict verdict() const;
  Collective collective() const;
};

/// Figures against a baseline that passed its checks (one that failed is no standard to hold the
/// change to), checks against the baseline's, and the first phase where the tables differ.
Comparison compare(Side before, Side after, const std::set<std::string>& allow);

/// The verdict of `check` on side `s` as reports write it; "-" when the side has none.
std::string verdict_of(const Side& s, verify::CheckId check);
/// Every check of either side, in the order they first appear.
std::vector<verify::CheckId> check_ids(const Comparison& c);

}  // namespace phasecheck::ci
