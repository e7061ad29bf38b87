#pragma once
/// Per-rank programs: the phase table turned into what each rank executes (Faraj & Yuan,
/// Section 5, the routine generator minus the MPI runtime). For every phase a rank takes part in:
///   1. (pairwise) wait for the synchronization messages its sends of this phase depend on;
///   2. post the receives and the sends of the phase (nonblocking);
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
  enum class Kind { send, recv, wait, sync_send, sync_recv, barrier };
  Kind kind = Kind::wait;
  Rank peer = 0;               ///< send/recv/sync: the other rank
  std::uint32_t phase = 0;     ///< the table phase the operation belongs to
  std::uint32_t transfer = 0;  ///< send/recv: position in the phase; sync: the message it follows
  std::uint32_t blocks = 0;    ///< send/recv: blocks carried
  friend bool operator==(const Op&, const Op&) = default;
};
const char* to_string(Op::Kind k);

struct RankProgram {
  Rank rank = 0;
  std::vector<Op> ops;
};

/// The programs of all ranks. `sync` is required for Separation::pairwise (its kept
/// synchronizations become sync_send / sync_recv pairs); ignored otherwise.
std::vector<RankProgram> rank_programs(const Schedule& schedule, Separation separation,
                                       const SyncPlan* sync = nullptr);

/// A readable listing of one program, an operation a line.
std::string listing(const RankProgram& program);

}  // namespace phasecheck::programs
