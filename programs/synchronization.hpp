#pragma once
/// Pair-wise synchronization (Faraj & Yuan, Section 5): phases are kept apart without barriers.
/// When messages a -> b in phase p and c -> d in phase q > p have contention (share a directed
/// link of a routed model), a synchronization message a -> c is sent after a -> b, and c starts
/// c -> d only once it has arrived. Synchronizations implied by others are redundant: the kept
/// ones are the transitive reduction (Boost.Graph) of the dependence graph, in which each rank's
/// own program order (it finishes phase p before it starts phase q) is an ordering that costs no
/// message.
///
/// Execution model (docs/programs.md): a message occupies its links from the moment both its
/// send and its receive are posted until both complete (rendezvous, as MPI does for the large
/// messages AAPC is about); a rank completes all its operations of a phase before it starts the
/// next.

#include <cstdint>
#include <utility>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::programs {

/// A data message of the table: the non-local transfers, numbered in (phase, position) order.
struct Message {
  std::uint32_t phase = 0;
  Rank src = 0, dst = 0;
  std::uint32_t transfer = 0;  ///< position in its phase
  friend bool operator==(const Message&, const Message&) = default;
};

/// For each rank, its messages grouped by phase: program order. Edges m1 -> m2 between every
/// message of rank r in one phase and every message of r in r's next phase with messages.
std::vector<std::pair<std::uint32_t, std::uint32_t>> program_order(
    const std::vector<Message>& messages, Rank ranks);

struct SyncPlan {
  std::vector<Message> messages;
  /// Distinct pairs (m1, m2) in different phases that share a directed link: what naive pair-wise
  /// synchronization would send (the count the paper reduces).
  std::uint64_t contending_pairs = 0;
  /// The dependence graph: per link, each message to the messages of the next later phase that
  /// use it (their closure is all the contending pairs).
  std::uint64_t dependence_edges = 0;
  /// Edges of the transitive reduction that are program order anyway (no message needed).
  std::uint64_t by_program_order = 0;
  /// The synchronization messages: after messages[first] completes, its sender sends to the
  /// sender of messages[second], which waits for it before starting messages[second].
  std::vector<std::pair<std::uint32_t, std::uint32_t>> kept;
};

/// The largest rank count for which the dependence graph is built (it has p(p-1) messages and the
/// reduction takes a bit per pair of them: 128 ranks, 16,256 messages, 33 MB).
inline constexpr Rank kMaxSyncRanks = 128;
/// The largest message count, whatever the ranks: a table that cuts messages into segments, or
/// sends a pair more than once, has more than p(p-1) (randomized-segmented: parts times as many).
inline constexpr std::uint32_t kMaxSyncMessages = kMaxSyncRanks * (kMaxSyncRanks - 1);

/// Builds and reduces the dependence graph of `schedule` on `model`, which must be routed (tree,
/// hypercube, mesh, ring). Throws InputError for other models, more than kMaxSyncRanks ranks or
/// more than kMaxSyncMessages messages.
SyncPlan pairwise_synchronization(const Schedule& schedule, const Topology& model);

}  // namespace phasecheck::programs
