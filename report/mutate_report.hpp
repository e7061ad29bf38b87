#pragma once
/// What `mutate` found (properties/mutate.hpp), for a person (text) and for a program (JSON;
/// docs/formats.md). Deterministic.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "properties/mutate.hpp"
#include "report/format.hpp"

namespace phasecheck::reports {

/// A mutation analysis and what it was run on.
struct MutationRun {
  std::string source;     ///< the schedule file, or "<stdin>"
  std::string algorithm;  ///< the schedule's
  std::string topology;   ///< describe() of the model the mutants were judged on
  std::uint64_t seed = 1;
  std::uint32_t per_class = 0;
  properties::MutationReport report;
  /// report.perfect(): nothing missed, nothing over-strict. Passed in, so that report/ does not
  /// link the properties library that defines it.
  bool perfect = false;
};

/// The formats `mutation_text` and `mutation_json` take.
inline constexpr ReportFormat mutation_formats[] = {ReportFormat::text, ReportFormat::json};

/// The heading with what makes a mutant invalid, a row per fault class, the first missed or
/// over-strict example of each, and the verdict line: caught of invalid (with the percentage).
std::string mutation_text(const MutationRun& run);

/// `mutate --report json`: {"command": "mutate", "verdict", "schedule", "algorithm", "topology",
/// "seed", "per_class", "program", "contention_counts", "classes": [{"fault", "mutants",
/// "invalid", "caught", "missed", "over_strict", "claims_only", "example"}], "invalid",
/// "caught"}.
nlohmann::ordered_json mutation_json(const MutationRun& run);

}  // namespace phasecheck::reports
