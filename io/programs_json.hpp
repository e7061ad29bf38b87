#pragma once
/// Per-rank programs as JSON (docs/programs.md). Everything a runner needs (runner/runner.cpp);
/// deterministic: the same programs give the same bytes. The writer picks the smallest version
/// that holds the schedule, as the schedule writer does:
///   version 2, for a phase table: {"format": "phasecheck.programs/2", "schedule", "algorithm",
///     "collective", "ranks", "parts", "separation", "programs": [{"rank", "ops": [{"op",
///     "phase", "peer", "transfer", "blocks", "contents"}]}]}, where "contents" lists the blocks
///     a send or receive carries as [origin, dest, part] (dest -1: every rank, allgather);
///   version 3, for a buffer program (format 3): the header has "chunks", "inplace" and
///     "buffers" {"input", "output", "scratch"} (slots per rank) instead of "parts"; a send lists
///     the slots it reads ("from"), a receive the slots it writes ("to"), both as
///     [[buffer, index, count], ...] in message order; a "copy" has both.

#include <iosfwd>
#include <string>
#include <vector>

#include "core/rank_program.hpp"
#include "core/schedule.hpp"

namespace phasecheck::io {

inline constexpr const char* kProgramsFormat = "phasecheck.programs/2";
inline constexpr const char* kBufferProgramsFormat = "phasecheck.programs/3";

/// `schedule` is the table the programs were made from (its blocks fill "contents"; for a buffer
/// program its ops fill "from" and "to"). Written one program at a time: the memory is one
/// rank's program as JSON, not every rank's.
void write_programs_json(std::ostream& os, const std::vector<RankProgram>& programs,
                         const Schedule& schedule, std::string_view source, Separation separation);
/// The same text as a string.
std::string programs_to_json(const std::vector<RankProgram>& programs, const Schedule& schedule,
                             std::string_view source, Separation separation);

}  // namespace phasecheck::io
