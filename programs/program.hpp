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

#include "core/rank_program.hpp"
#include "core/schedule.hpp"
#include "programs/synchronization.hpp"

namespace phasecheck::programs {

// The programs' types are plain data in core/ (core/rank_program.hpp), so that io/ writes them
// without depending on this room; here under the names this room has always used.
using phasecheck::parse_separation;
using phasecheck::RankProgram;
using phasecheck::Separation;
using phasecheck::to_string;
using Op = ProgramOp;

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
