#pragma once
/// A table command's answer (core/table.hpp) in the format it was asked for: text, JSON or CSV.

#include <string>

#include "core/table.hpp"
#include "report/format.hpp"

namespace phasecheck::reports {

/// The formats `render` takes.
inline constexpr ReportFormat table_formats[] = {ReportFormat::text, ReportFormat::json,
                                                 ReportFormat::csv};

/// Text: heading, blank line, table, notes. JSON: {"command", "verdict", facts..., "rows"}. CSV:
/// the table alone.
std::string render(const TableReport& report, ReportFormat format);

}  // namespace phasecheck::reports
