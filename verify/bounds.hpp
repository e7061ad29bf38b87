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
/// C2 = (n - 1) / k, then C1 >= (n - 1) / k. (Blocks are the unit: b = 1.) Also the reach
/// bound below, which extends Theorem 2.5 to every n and C1.
std::vector<Bound> compound_bounds(const Topology& model, Collective collective,
                                   const Counts& counts);

/// C2 of an index (alltoall) schedule on n ranks with k ports in d rounds, with forwarding, is at
/// least ceil(S / k) with S = sum_{j=0}^{d-1} max(0, n - 1 - sum_{i=1}^{j} C(d, i) k^i): from one
/// origin, at most C(d, i) k^i ranks are reached by paths of exactly i transfers in d rounds, so
/// at least n - 1 - (those within j hops) of its blocks take more than j hops; summing over j
/// counts every block's receptions, and a round receives at most k c_t blocks per rank.
/// For n = (k + 1)^d it equals Theorem 2.5's n d / (k + 1). Returns 0 when d rounds cannot reach
/// every rank (no schedule exists). docs/bounds.md has the proof.
std::uint64_t reach_c2_bound(std::uint64_t n, std::uint64_t k, std::uint64_t d);

/// The strongest bound per metric that applies to a schedule with these counts. For a direct
/// schedule C1 == C2, so each metric gets the larger of the two.
std::pair<std::uint64_t, std::uint64_t> best_bounds(const std::vector<Bound>& bounds, bool direct);

/// Compares the counts with the bounds: optimal, a gap, or below a bound (which no valid
/// schedule can be: it fails).
CheckResult check_bounds(const Counts& counts, std::uint64_t bound_c1, std::uint64_t bound_c2);

}  // namespace phasecheck::verify
