#pragma once
/// Per-rank programs as JSON (docs/programs.md): {"format": "phasecheck.programs/2", "schedule",
/// "algorithm", "collective", "ranks", "parts", "separation", "programs": [{"rank", "ops": [{"op",
/// "phase", "peer", "transfer", "blocks", "contents"}]}]}, where "contents" lists the blocks a
/// send or receive carries as [origin, dest, part] (dest -1: every rank, allgather). Everything a
/// runner needs (runner/runner.cpp). Deterministic: the same programs give the same bytes.

#include <string>
#include <vector>

#include "programs/program.hpp"

namespace phasecheck::io {

inline constexpr const char* kProgramsFormat = "phasecheck.programs/2";

/// `schedule` is the table the programs were made from (its blocks fill "contents").
std::string programs_to_json(const std::vector<programs::RankProgram>& programs,
                             const Schedule& schedule, std::string_view source,
                             programs::Separation separation);

}  // namespace phasecheck::io
