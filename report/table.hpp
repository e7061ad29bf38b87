#pragma once
/// A table command's answer (core/table.hpp) in the format it was asked for: text, JSON or CSV.

#include <string>
#include <string_view>

#include "core/table.hpp"

namespace phasecheck::reports {

/// "text", "json" or "csv", as --report takes them (InputError otherwise, naming `command`).
enum class TableFormat { text, json, csv };
TableFormat parse_table_format(std::string_view name, std::string_view command);

/// Text: heading, blank line, table, notes. JSON: {"command", "verdict", facts..., "rows"}. CSV:
/// the table alone.
std::string render(const TableReport& report, TableFormat format);

}  // namespace phasecheck::reports
