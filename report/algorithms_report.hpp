#pragma once
/// `phasecheck algorithms`: the registry's algorithms for a person (text), a spreadsheet (CSV) or
/// a program (JSON with every declared parameter; docs/formats.md). Deterministic.

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/parameter_spec.hpp"
#include "report/table.hpp"

namespace phasecheck::reports {

/// One registered algorithm as the listing shows it (schedules/registry.hpp's Algorithm).
struct AlgorithmListing {
  std::string name, summary, reference;
  std::string library;  ///< the library that ships it; empty for the papers' algorithms
  bool in_place = false;  ///< it runs in place (format 4)
  std::string parameters;                          ///< schedules::parameter_summary()
  std::span<const ParameterSpec> parameter_specs;  ///< the registry's, which outlives the listing
};

/// One declared parameter: {"name", "type", "min"/"max" ("p" for the rank count) | "values" |
/// "form", "default" | "default_in_words", "help"}.
nlohmann::ordered_json parameter_json(const ParameterSpec& spec);

/// The formats `render_algorithms` takes: a table's.
inline constexpr std::span<const ReportFormat> algorithms_formats = table_formats;

/// Text and CSV: a row per algorithm (algorithm, parameters, summary, reference). JSON:
/// {"command": "algorithms", "algorithms": [{"name", "summary", "reference", "parameters"}]}.
std::string render_algorithms(const std::vector<AlgorithmListing>& algorithms, ReportFormat format);

}  // namespace phasecheck::reports
