#pragma once
/// Bruck, Ho, Kipnis, Upfal and Weathersby, "Efficient Algorithms for All-to-All Communications in
/// Multiport Message-Passing Systems" (IEEE TPDS 8(11), 1997): the index operation (alltoall) with
/// a radix r (Section 3) and the concatenation operation (allgather) on circulant graphs
/// (Section 4), both in the k-port fully connected model. One file each: bruck_index.cpp,
/// bruck_concat.cpp, and two radix-2 implementations of the index operation: Open MPI's
/// (ompi_bruck.cpp) and one without local rotations (modified_bruck.cpp). Blocks are the unit of
/// data (the paper's b is the cost model's block size).
///
/// Each comes as a phase table and as a buffer program (format 3) with the local rotations,
/// packing and temporary arrays of the code it models; the program's local phases are phases of
/// its table too (empty ones), so the claims depend on the form.

#include <cstdint>
#include <span>
#include <vector>

#include "core/claims.hpp"
#include "core/parameter_spec.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

/// k, the ports of the k-port model (Section 2), a parameter of both operations. More than n - 1
/// ports act as n - 1.
inline constexpr ParameterSpec kPorts{"ports", UInt{1, kMaxRanks},
                                      InWords{"the machine's k, else 1"},
                                      "k: a round sends and receives up to k messages per node"};
/// The parameter ports of `header`: as given, else the fully connected machine's k, else 1.
inline Rank ports_of(const ScheduleHeader& header) {
  const auto* fc = std::get_if<FullyConnected>(&header.topology);
  return static_cast<Rank>(
      read_uint(header.parameters, kPorts, header.ranks(), fc ? fc->ports : 1));
}

/// Digits of a block-id j in radix r: w = ceil(log_r n) of them (w = 0 for n = 1).
unsigned radix_digits(Rank n, Rank r);
/// How many block-ids j < n have digit x (weight dist = r^x) equal to z: the blocks that step z of
/// subphase x moves. Closed form, independent of the generator's enumeration.
std::uint64_t blocks_with_digit(Rank n, Rank r, std::uint64_t dist, Rank z);

/// Which form a claim is about: the phase table of the communication rounds, or the buffer
/// program, whose local phases (rotations, pack, unpack, copy back) are phases too.
enum class Form { table, program };

/// Section 3.2's invariant of radix-r rotation: after subphase x every block [o, d] sits at
/// o + ((d - o) mod r^(x+1)), checked after phase subphase_end[x].
Invariant rotation_invariant(Rank n, Rank r, std::vector<std::size_t> subphase_end);

struct BruckIndexOptions {
  Rank n = 1;      ///< processors
  Rank radix = 2;  ///< r, 2 <= r <= n
  Rank ports = 1;  ///< k: steps of a subphase run k at a time
  /// collective=alltoall, radix (2..p, default 2) and ports.
  static std::span<const ParameterSpec> parameters();
  static BruckIndexOptions from(const ScheduleHeader& header);
};

/// Section 3, Phase 2 with the local rotations of Phases 1 and 3 folded into the block names:
/// after Phase 1, processor i's block-id j is the block [i, (i + j) mod n]. In step z of subphase
/// x (0 <= x < w) every block whose digit x is z moves z r^x processors to the right, so processor
/// i sends to (i + z r^x) mod n. The last subphase has ceil(n / r^(w-1)) - 1 steps (Appendix A);
/// the steps of a subphase, being independent, are grouped k to a round (Section 3.4).
void bruck_index(const BruckIndexOptions& options, const PhaseSink& out);
/// Section 3 as Appendix A runs it, with header.buffers set. Scratch holds tmp, the rotated array
/// (slots 0..n-1), and packed_msg (from slot n: one region per step of a round, the round's
/// selected blocks in block-id order; sent and received in place, as send_and_recv does).
///   Phase 1: tmp[j] = input[(i + j) mod n] (lines 3-4, two copies).
///   Phase 2, per subphase x of m rounds: pack round 1; then per round t its sends (the table's
///     round t), then unpack round t together with packing round t + 1 (the two touch disjoint
///     block-ids, those with digit x equal to different values); unpack round m alone (the next
///     subphase packs blocks it may just have received).
///   Phase 3: output[s] = tmp[(i - s) mod n] (lines 21-23).
/// So 2 + sum_x (2 m_x + 1) phases, of which the sum_x m_x rounds communicate.
Schedule bruck_index_program(const ScheduleHeader& header);
/// Invariant: after subphase x every block [o, d] sits at o + ((d - o) mod r^(x+1)). Claims: the
/// exact rounds sum_x ceil(steps_x / k) (plus, for the program, its local phases) and C2 sum over
/// rounds of the largest step's block count.
Claims bruck_index_claims(const BruckIndexOptions& options, Form form = Form::table);

struct BruckConcatOptions {
  Rank n = 1;
  Rank ports = 1;  ///< k
  /// collective=allgather and ports.
  static std::span<const ParameterSpec> parameters();
  static BruckConcatOptions from(const ScheduleHeader& header);
};

/// Section 4: d = ceil(log_{k+1} n) rounds. Rounds i < d - 1 use the circulant offsets
/// S_i = {(k+1)^i, 2 (k+1)^i, ..., k (k+1)^i} (every node forwards all it has); the last round
/// spans the remaining n2 = n - n1 nodes (n1 = (k+1)^(d-1)) by partitioning the table of n2
/// columns into k areas of at most ceil(n2 / k) columns (Proposition 4.2 with b = 1).
void bruck_concat(const BruckConcatOptions& options, const PhaseSink& out);
/// Section 4 as Appendix B runs it (mirrored: positive offsets), with header.buffers set. Scratch
/// is temp, n slots, where node x accumulates temp[j] = B[x - j]:
///   copy B[x] into temp[0] (line 3);
///   round i < d - 1: send temp[0 .. (k+1)^i) to x + m (k+1)^i, received into temp[m (k+1)^i ..);
///   last round: send temp[0 .. width) per area, received into temp[n1 + L ..);
///   output[s] = temp[(x - s) mod n]: the final rotation (lines 17-18; mirrored, it also reverses
///   the order, so it is n one-slot copies rather than two contiguous ones).
/// So d + 2 phases, of which d communicate.
Schedule bruck_concat_program(const ScheduleHeader& header);
/// Invariant (Theorem 4.1): after round i < d - 1 every node x holds B[x - j] for j < (k+1)^(i+1).
/// Claims: exactly d rounds (the program: d + 2 phases) and C2 = ceil((n - 1) / k), the optimum of
/// Theorem 4.3.
Claims bruck_concat_claims(const BruckConcatOptions& options, Form form = Form::table);

/// Open MPI's ompi_coll_base_alltoall_intra_bruck (coll_base_alltoall.c): the index operation
/// with r = 2 and one port, alltoall only, as a buffer program (header.buffers set; scratch is
/// tmpbuf, p slots):
///   Step 1: tmpbuf[i] = input[(rank + i) mod p] (two copies);
///   per distance = 1, 2, 4, ... < p: send the runs tmpbuf[i .. i + min(distance, p - i)),
///     i = distance, 3 distance, 5 distance, ... (one derived datatype) to rank + distance,
///     received from rank - distance into output at the same indices; then copy them back from
///     output into tmpbuf ("Copy back new data from recvbuf to tmpbuf");
///   Step 3: output[(rank - i) mod p] = tmpbuf[i].
/// Throws InputError on parameters other than ompi_bruck_parameters().
Schedule ompi_bruck_program(const ScheduleHeader& header);
/// collective=alltoall, and nothing else: r = 2 and one port are the code's.
std::span<const ParameterSpec> ompi_bruck_parameters();
/// Claims: 2 + 2 ceil(log2 p) phases (two rotations, a sendrecv and a copy back per distance), of
/// which the ceil(log2 p) sendrecvs communicate; C2 and the invariant of Section 3 with r = 2.
Claims ompi_bruck_claims(const ScheduleHeader& header);

/// Bruck's index operation with r = 2 and one port, without Phases 1 and 3: the rotations are
/// folded into the addressing. Round x (distance d = 2^x) sends to rank + d the block-ids j with
/// bit x set, reading block-id j at its origin straight from input[(rank + j) mod p] and elsewhere
/// from scratch[j]; the receiver writes it into its final output slot, (rank - j) mod p, when
/// this is its last hop (j < 2d), else into scratch[j]. The self copy shares round 0. So
/// ceil(log2 p) phases (1 for p = 1) and scratch[j] for the block-ids with two or more bits set.
/// Throws InputError on parameters other than modified_bruck_parameters().
Schedule modified_bruck_program(const ScheduleHeader& header);
/// collective=alltoall, and nothing else: r = 2 and one port.
std::span<const ParameterSpec> modified_bruck_parameters();
/// Claims: ceil(log2 p) phases (1 for p = 1, the self copy), C2 and the invariant of Section 3
/// with r = 2.
Claims modified_bruck_claims(const ScheduleHeader& header);

}  // namespace phasecheck::schedules
