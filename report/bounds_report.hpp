#pragma once
/// What `bounds` found (experiments/machine_bounds.hpp), for a person (text), a spreadsheet (CSV:
/// the bounds table) or a program (JSON; docs/formats.md). Deterministic.

#include <span>
#include <string>

#include "experiments/machine_bounds.hpp"
#include "report/table.hpp"

namespace phasecheck::reports {

/// One row per bound: metric, value, applies_to ("direct" or "any"), argument; on a graph with
/// bandwidths also "T/m" (seconds per byte of block) and, for a given m, "T" (seconds).
Table bounds_table(const experiments::MachineBounds& bounds);

/// The formats `render_bounds` takes: a table's.
inline constexpr std::span<const ReportFormat> bounds_formats = table_formats;

/// Text: the heading, the table, the best bounds, a tree's bottleneck, throughput bound and
/// Faraj-Yuan plan, and a graph's bound in seconds. JSON: {"topology", "kind", "ranks",
/// "collective", "bounds", "direct_phases", "forwarding": {"C1", "C2"}, "tree": null |
/// {"bottleneck", "peak_throughput_factor", "peak_throughput", "faraj_yuan"}} and, on a graph with
/// bandwidths only, "seconds" (docs/formats.md). CSV: the table alone (with the rows "T/m" and
/// "T" on a graph with bandwidths).
std::string render_bounds(const experiments::MachineBounds& bounds, ReportFormat format);

}  // namespace phasecheck::reports
