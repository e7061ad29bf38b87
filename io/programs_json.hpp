#pragma once
/// Per-rank programs as JSON (docs/programs.md): {"format": "phasecheck.programs/1", "schedule",
/// "algorithm", "ranks", "separation", "programs": [{"rank", "ops": [{"op", "phase", "peer",
/// "transfer", "blocks"}]}]}. Deterministic: the same programs give the same bytes.

#include <string>
#include <vector>

#include "programs/program.hpp"

namespace phasecheck::io {

inline constexpr const char* kProgramsFormat = "phasecheck.programs/1";

std::string programs_to_json(const std::vector<programs::RankProgram>& programs,
                             const ScheduleHeader& header, std::string_view source,
                             programs::Separation separation);

}  // namespace phasecheck::io
