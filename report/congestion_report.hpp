#pragma once
/// What `congestion` measured (verify/congestion_check.hpp), for a person (text), a spreadsheet
/// (CSV: the per-phase table) or a program (JSON; docs/formats.md). Deterministic.

#include <span>
#include <string>
#include <string_view>

#include "core/topology.hpp"
#include "report/table.hpp"
#include "verify/congestion_check.hpp"

namespace phasecheck::reports {

/// The per-phase loads on `model` (the model measured on, for the links' names): columns phase,
/// max_load, mean_load, busiest_link (none for a phase without load).
Table congestion_table(const verify::CongestionSummary& summary, const Topology& model);

/// The formats `render_congestion` takes: a table's.
inline constexpr std::span<const ReportFormat> congestion_formats = table_formats;

/// Text: the heading ("INVALID  " first when delivery fails), the sum of maxima against the
/// bound, the bound's argument, delivery, and with `phases` the table. JSON: {"schedule",
/// "algorithm", "collective", "topology", "delivered", "phases", "sum_of_max": {"value",
/// "lower_bound", "argument"}, "mean_of_max", "peak", "per_phase": rows with `phases`, else null}.
/// CSV: the table alone.
std::string render_congestion(const verify::CongestionSummary& summary, const Topology& model,
                              std::string_view source, bool phases, ReportFormat format);

}  // namespace phasecheck::reports
