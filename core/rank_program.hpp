#pragma once
/// Per-rank programs as data: what each rank executes, operation by operation. programs/ makes
/// them from a schedule (programs/program.hpp has the execution model), io/ writes them
/// (io/programs_json.hpp), runners execute them; the types live here so that none of those
/// rooms depends on another for them. docs/programs.md has the format.

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck {

/// How the phases of a program are kept apart.
enum class Separation {
  none,      ///< phases run into each other as fast as the data allows
  barrier,   ///< a barrier after every phase
  pairwise,  ///< the reduced pair-wise synchronization of Section 5
};
Separation parse_separation(std::string_view name);  ///< none | barrier | pairwise
const char* to_string(Separation s);

/// One operation of a rank's program.
struct ProgramOp {
  enum class Kind { send, recv, copy, wait, sync_send, sync_recv, barrier };
  Kind kind = Kind::wait;
  Rank peer = 0;            ///< send/recv/sync: the other rank
  std::uint32_t phase = 0;  ///< the table phase the operation belongs to
  /// send/recv: position in the phase's table; sync: the message it follows; copy (format 3
  /// only): position of its BufferOp in the phase's ops.
  std::uint32_t transfer = 0;
  std::uint32_t blocks = 0;  ///< send/recv: blocks (format 3: chunks) carried; copy: chunks
  friend bool operator==(const ProgramOp&, const ProgramOp&) = default;
};
const char* to_string(ProgramOp::Kind k);

struct RankProgram {
  Rank rank = 0;
  std::vector<ProgramOp> ops;
};

}  // namespace phasecheck
