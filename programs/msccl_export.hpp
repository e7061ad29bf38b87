#pragma once
/// A buffer program (format 3) compiled to an MSCCL program (core/msccl.hpp) that msccl-tools,
/// RCCL and NCCL's MSCCL runtime load (docs/msccl.md, "Export").
///
/// Every gpu gets a threadblock for its local copies, and per peer and channel one threadblock
/// that sends to it and one that receives from it; steps follow the program's phases. The j-th
/// op between two gpus in a phase goes on channel j mod `channels`, on both sides, so the k-th
/// send of a connection meets its k-th receive. Within a phase a gpu's sends come first, then
/// its copies, then its receives, so that every step that writes a slot can wait for the steps
/// that read it (the program reads at a phase's start). A step waits, through depid/deps, for
/// the last step of every other threadblock of its gpu that wrote a slot it reads, or read or
/// wrote a slot it writes; a step that waits for several threadblocks is preceded by nops, one
/// wait each, as msccl-tools does. Ops of more than kMaxCount chunks are split.
///
/// The result is checked by the caller by lowering it again (core/msccl.hpp) and verifying it.

#include <cstdint>
#include <optional>
#include <string>

#include "core/msccl.hpp"
#include "core/schedule.hpp"

namespace phasecheck::programs {

struct MscclExportOptions {
  std::string name;                 ///< the algo's name; empty: the schedule's algorithm
  std::string protocol = "Simple";  ///< Simple, LL or LL128
  std::uint32_t channels = 1;       ///< 1 to msccl::kMaxChannels
  std::int64_t min_bytes = 0;
  std::int64_t max_bytes = 0;  ///< 0: no upper limit (as RCCL reads it)
};

/// The MSCCL program of the format-3 `program` (header.buffers set, every op well-formed).
/// Throws InputError when the options are invalid, when a phase's local copies on one gpu read
/// each other's destinations in a cycle (a swap: MSCCL runs a threadblock's copies one after the
/// other), or when the result passes the runtime's limits (steps per threadblock,
/// threadblocks per gpu).
msccl::Program to_msccl(const Schedule& program, const MscclExportOptions& options);

/// What to_msccl would refuse whatever the channels, found from the schedule (a phase table or a
/// program) before it is verified or lowered: a gpu has at least one threadblock per peer it
/// sends to and one per peer it receives from, so a rank with more than msccl::kMaxThreadblocks
/// of them in all is an InputError naming it. O(transfers log transfers).
void check_threadblock_room(const Schedule& schedule);

}  // namespace phasecheck::programs
