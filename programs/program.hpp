#pragma once
/// Per-rank programs: the phase table turned into what each rank executes (Faraj & Yuan,
/// Section 5, the routine generator minus the MPI runtime). For every phase a rank takes part in:
///   1. (pairwise) wait for the synchronization messages its sends of this phase depend on;
///   2. post the receives and the sends of the phase (nonblocking); for a buffer program
///      (format 3) also its local copies, which read now and write at the wait;
///   3. wait for all of them;
///   4. (pairwise) send the synchronization messages that its messages of this phase owe;
///      (barrier) enter the barrier that ends the phase.
/// docs/programs.md has the format and the execution model.

#include <cstdint>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "programs/synchronization.hpp"

namespace phasecheck::programs {

enum class Separation {
  none,      ///< phases run into each other as fast as the data allows
  barrier,   ///< a barrier after every phase
  pairwise,  ///< the reduced pair-wise synchronization of Section 5
};
Separation parse_separation(std::string_view name);  ///< none | barrier | pairwise
const char* to_string(Separation s);

struct Op {
  enum class Kind { send, recv, copy, wait, sync_send, sync_recv, barrier };
  Kind kind = Kind::wait;
  Rank peer = 0;            ///< send/recv/sync: the other rank
  std::uint32_t phase = 0;  ///< the table phase the operation belongs to
  /// send/recv: position in the phase's table; sync: the message it follows; copy (format 3
  /// only): position of its BufferOp in the phase's ops.
  std::uint32_t transfer = 0;
  std::uint32_t blocks = 0;  ///< send/recv: blocks (format 3: chunks) carried; copy: chunks
  friend bool operator==(const Op&, const Op&) = default;
};
const char* to_string(Op::Kind k);

struct RankProgram {
  Rank rank = 0;
  std::vector<Op> ops;
};

/// The operations rank_programs makes, over all ranks, counted without making them:
/// O(transfers + phases) time, O(ranks) memory.
std::uint64_t program_operations(const Schedule& schedule, Separation separation,
                                 const SyncPlan* sync = nullptr);

/// Throws InputError when the programs rank_programs would make pass the memory limit
/// (core/limits.hpp): with barriers every rank has an operation in every phase. Allocates
/// O(ranks), so that a command can refuse before other work.
void check_programs_memory(const Schedule& schedule, Separation separation,
                           const SyncPlan* sync = nullptr);

/// The programs of all ranks. `sync` is required for Separation::pairwise (its kept
/// synchronizations become sync_send / sync_recv pairs); ignored otherwise. For a buffer program
/// (format 3: header.buffers) the sends between one pair in a phase are one message (the
/// transfer of the table they form) and every local copy becomes a `copy` of its rank. Throws
/// check_programs_memory's InputError before building anything. Time O(transfers + operations),
/// not O(ranks x phases) without barriers.
std::vector<RankProgram> rank_programs(const Schedule& schedule, Separation separation,
                                       const SyncPlan* sync = nullptr);

/// What executing a buffer program (format 3) takes, in chunks: the most one rank stages in one
/// phase (what its sends and copies read and what it receives, all held until the phase's end)
/// and the largest message. Throws InputError naming the first op that reaches beyond a buffer:
/// a runner cannot execute it (verify's placement check reports it as the schedule's bug).
/// O(ops).
struct StagingNeeds {
  std::uint64_t staged = 0;
  std::uint64_t message = 0;
  friend bool operator==(const StagingNeeds&, const StagingNeeds&) = default;
};
StagingNeeds staging_needs(const Schedule& program);

/// A readable listing of one program, an operation a line.
std::string listing(const RankProgram& program);

}  // namespace phasecheck::programs
