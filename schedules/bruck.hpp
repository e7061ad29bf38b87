#pragma once
/// Bruck, Ho, Kipnis, Upfal and Weathersby, "Efficient Algorithms for All-to-All Communications in
/// Multiport Message-Passing Systems" (IEEE TPDS 8(11), 1997): the index operation (alltoall) with
/// a radix r (Section 3) and the concatenation operation (allgather) on circulant graphs
/// (Section 4), both in the k-port fully connected model. One file each: bruck_index.cpp,
/// bruck_concat.cpp. Blocks are the unit of data (the paper's b is the cost model's block size).

#include <cstdint>

#include "core/claims.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

/// Digits of a block-id j in radix r: w = ceil(log_r n) of them (w = 0 for n = 1).
unsigned radix_digits(Rank n, Rank r);
/// How many block-ids j < n have digit x (weight dist = r^x) equal to z: the blocks that step z of
/// subphase x moves. Closed form, independent of the generator's enumeration.
std::uint64_t blocks_with_digit(Rank n, Rank r, std::uint64_t dist, Rank z);

struct BruckIndexOptions {
  Rank n = 1;      ///< processors
  Rank radix = 2;  ///< r, 2 <= r <= n
  Rank ports = 1;  ///< k: steps of a subphase run k at a time
  /// Parameters radix (default 2) and ports (default the fully connected model's k, else 1);
  /// alltoall only.
  static BruckIndexOptions from(const ScheduleHeader& header);
};

/// Section 3, Phase 2 with the local rotations of Phases 1 and 3 folded into the block names:
/// after Phase 1, processor i's block-id j is the block [i, (i + j) mod n]. In step z of subphase
/// x (0 <= x < w) every block whose digit x is z moves z r^x processors to the right, so processor
/// i sends to (i + z r^x) mod n. The last subphase has ceil(n / r^(w-1)) - 1 steps (Appendix A);
/// the steps of a subphase, being independent, are grouped k to a round (Section 3.4).
void bruck_index(const BruckIndexOptions& options, const PhaseSink& out);
/// Invariant: after subphase x every block [o, d] sits at o + ((d - o) mod r^(x+1)). Claims: the
/// exact rounds sum_x ceil(steps_x / k) and C2 sum over rounds of the largest step's block count.
Claims bruck_index_claims(const BruckIndexOptions& options);

struct BruckConcatOptions {
  Rank n = 1;
  Rank ports = 1;  ///< k
  /// Parameter ports (default the fully connected model's k, else 1); allgather only.
  static BruckConcatOptions from(const ScheduleHeader& header);
};

/// Section 4: d = ceil(log_{k+1} n) rounds. Rounds i < d - 1 use the circulant offsets
/// S_i = {(k+1)^i, 2 (k+1)^i, ..., k (k+1)^i} (every node forwards all it has); the last round
/// spans the remaining n2 = n - n1 nodes (n1 = (k+1)^(d-1)) by partitioning the table of n2
/// columns into k areas of at most ceil(n2 / k) columns (Proposition 4.2 with b = 1).
void bruck_concat(const BruckConcatOptions& options, const PhaseSink& out);
/// Invariant (Theorem 4.1): after round i < d - 1 every node x holds B[x - j] for j < (k+1)^(i+1).
/// Claims: exactly d rounds and C2 = ceil((n - 1) / k), the optimum of Theorem 4.3.
Claims bruck_concat_claims(const BruckConcatOptions& options);

}  // namespace phasecheck::schedules
