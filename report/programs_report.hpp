#pragma once
/// What `sync` and `program` found (programs/checked_plan.hpp, programs/checked_programs.hpp),
/// for a person (text) and for a program (JSON; shapes in docs/formats.md, "Command reports").
/// Deterministic: the same answer gives the same bytes.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "programs/checked_plan.hpp"
#include "programs/checked_programs.hpp"
#include "report/format.hpp"

namespace phasecheck::reports {

/// The formats `sync_text` and `sync_json` take.
inline constexpr ReportFormat sync_formats[] = {ReportFormat::text, ReportFormat::json};

/// The verdict line, the counts before and after the reduction, the table's and the plan's
/// checks, a failed check's counterexample; with `list`, every synchronization message.
std::string sync_text(const programs::CheckedPlan& c, std::string_view source, bool list);

/// `sync --report json`: {"command": "sync", "verdict", "schedule", "algorithm", "collective",
/// "topology", "messages", "phases", "contending_pairs", "dependence_edges", "synchronizations",
/// "ordered_by_program_order", "table", "check"}, and "list" with `list`.
nlohmann::ordered_json sync_json(const programs::CheckedPlan& c, std::string_view source,
                                 bool list);

/// The formats `program_text` and `program_json` take.
inline constexpr ReportFormat program_formats[] = {ReportFormat::text, ReportFormat::json};

/// The verdict line, the programs' size, the table's and the replay's checks, a failed replay's
/// counterexample, then the listings asked for.
std::string program_text(const programs::CheckedPrograms& c, std::string_view source);

/// `program --report json`: {"command": "program", "verdict", "schedule", "algorithm",
/// "collective", "topology", "sync", "programs", "operations", "synchronizations", "table",
/// "replay", "listings": {rank: listing}}.
nlohmann::ordered_json program_json(const programs::CheckedPrograms& c, std::string_view source);

}  // namespace phasecheck::reports
