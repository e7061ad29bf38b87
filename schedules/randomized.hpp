#pragma once
/// The randomized Alltoall of "Optimized Alltoall Algorithm for Low-Diameter Network Topologies"
/// (Slim Fly, Section 2): ranks shuffled by a seeded permutation that every rank computes alike
/// (Function 1), Algorithm 1 (randomized scatter) and Algorithm 2 (randomized Sendrecv on the
/// anti-circulant matrix, with the request queue). A phase is what is in flight between two
/// Waitalls. Algorithm 3 (segmented) cuts each message into parts (schedule format version 2).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/claims.hpp"
#include "core/parameter_spec.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

/// Function 1, get_shuffled_ranks(size, seed): 0..size-1 shuffled by Fisher-Yates with
/// std::mt19937_64(seed) and unbiased draws by rejection, so the result is the same on every
/// platform (std::shuffle's is not).
std::vector<Rank> shuffled_ranks(Rank size, std::uint64_t seed);

struct RandomizedOptions {
  Collective collective = Collective::alltoall;
  std::vector<Rank> ranks;  ///< the shuffled array
  std::uint32_t max_queue = 2;
  /// collective; seed (default p, as the paper's get_shuffled_ranks(size, size)) or an explicit
  /// permutation ranks=1,3,2,0; with the queue (sendrecv) max_queue (default 2: one iteration per
  /// Waitall, like MPI_Sendrecv).
  static std::span<const ParameterSpec> parameters(bool queue);
  static RandomizedOptions from(const ScheduleHeader& header, bool queue);
};

/// Algorithm 2 at iteration i: rank r sends to ranks[(i + r) % p] ...
inline Rank send_to(const std::vector<Rank>& ranks, Rank r, Rank i) {
  return ranks[(i + r) % ranks.size()];
}
/// ... and receives from the rank whose row holds r at iteration i: (index_of(r) - i) mod p.
Rank receive_from(const std::vector<Rank>& ranks, const std::vector<Rank>& index_of, Rank r,
                  Rank i);

/// Iterations per phase under the queue: the loop posts 2 requests an iteration and waits when
/// it holds max_queue or more, so ceil(max_queue / 2) iterations (at least 1).
std::uint32_t iterations_per_batch(std::uint32_t max_queue);

/// Algorithm 2: p iterations of the anti-circulant matrix, batched by the queue into phases.
void randomized_sendrecv(const RandomizedOptions& options, const PhaseSink& out);
/// Invariant: after each batch, every rank has received from the row that holds it at each of
/// the batch's iterations. Claims: ceil(p / batch) phases, at most max_queue requests per rank.
Claims randomized_sendrecv_claims(const RandomizedOptions& options);

/// Algorithm 1: all receives, then all sends, in shuffled order, one Waitall: one phase.
void randomized_scatter(const RandomizedOptions& options, const PhaseSink& out);
Claims randomized_scatter_claims(const RandomizedOptions& options);

struct SegmentedOptions {
  RandomizedOptions base;
  std::uint64_t bytes = 4096;       ///< bytes per message
  std::uint64_t block_size = 1024;  ///< bytes per segment
  /// Those of RandomizedOptions with the queue, alltoall only, plus bytes (default 4096) and
  /// block_size (default 1024); at most kMaxParts segments.
  static std::span<const ParameterSpec> parameters();
  static SegmentedOptions from(const ScheduleHeader& header);
  /// ceil(bytes / block_size) of the header's parameters: its parts; the last is partial when
  /// bytes is not a multiple of block_size.
  static std::uint32_t parts_of(const ScheduleHeader& header);
  std::uint64_t full_blocks() const { return bytes / block_size; }
  bool trailing() const { return bytes % block_size != 0; }
};

/// Algorithm 3: for each full block, a randomized Sendrecv round over all p iterations (batched
/// by the queue, which restarts with every block and ends with a Waitall), carrying segment b of
/// every message; then, when bytes is not a multiple of block_size, the trailing Scatter Alltoall
/// of the remaining bytes: segment n_blocks of every message, in one phase (Algorithm 1).
void randomized_segmented(const SegmentedOptions& options, const PhaseSink& out);
/// Invariant: after each block's last Waitall, segment b of every message has been delivered.
/// Claims: n_blocks ceil(p / batch) phases (+1 with a trailing part); at most max_queue requests
/// per rank, or 2p when the trailing scatter (which has no queue) runs.
Claims randomized_segmented_claims(const SegmentedOptions& options);

/// The paper's dynamic selection (Section 2, footnotes 2-4), by bytes per message and processes:
/// below 512 B the standard (ordered) algorithm; 512 B to 16 KiB randomized scatter for few
/// processes, randomized Sendrecv for more; above 16 KiB the segmented Sendrecv. The paper gives no
/// process count for "few": we use 32 or fewer (kFewProcesses), an assumption.
inline constexpr Rank kFewProcesses = 32;
struct Selection {
  std::string algorithm;  ///< a registered algorithm, or a description when none applies
  std::string reason;
};
Selection select_randomized(std::uint64_t bytes, Rank processes);

}  // namespace phasecheck::schedules
