#pragma once
/// Lower bounds on C1 (phases with communication) and C2 (sum over phases of the largest
/// transfer, in blocks) per machine model and collective. Each bound carries its one-line
/// argument; docs/bounds.md has the proofs. A bound marked direct_only holds for schedules in
/// which every transfer carries exactly its own message; the others hold with forwarding too.

#include <vector>

#include "core/schedule.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

/// Every bound the model gives for the collective. O(links + nodes).
std::vector<Bound> lower_bounds(const Topology& model, Collective collective);

/// The compound bounds of Bruck et al., Section 2.3, for alltoall (index) on k-port machines: they
/// apply only to schedules that meet one metric's bound exactly. Theorem 2.5: if n = (k + 1)^d
/// and C1 = d, then C2 >= n d / (k + 1). Theorem 2.6: if (n - 1) / k is an integer and
/// C2 = (n - 1) / k, then C1 >= (n - 1) / k. (Blocks are the unit: b = 1.)
std::vector<Bound> compound_bounds(const Topology& model, Collective collective,
                                   const Counts& counts);

/// The strongest bound per metric that applies to a schedule with these counts. For a direct
/// schedule C1 == C2, so each metric gets the larger of the two.
std::pair<std::uint64_t, std::uint64_t> best_bounds(const std::vector<Bound>& bounds, bool direct);

/// Compares the counts with the bounds: optimal, a gap, or below a bound (which no valid
/// schedule can be: it fails).
CheckResult check_bounds(const Counts& counts, std::uint64_t bound_c1, std::uint64_t bound_c2);

}  // namespace phasecheck::verify
