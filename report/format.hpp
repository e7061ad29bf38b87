#pragma once
/// The formats a command's --report takes, one enum for every renderer. Each renderer declares
/// the formats it supports as a constant next to its render function (`verify_formats` beside
/// `render`, ...); the command table (cli/command_table.cpp) refuses any other before the command
/// does any work, so a renderer is only ever handed one of its own.

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace phasecheck::reports {

/// text for a person, json for a program, junit for a CI test tab, markdown for a pull-request
/// comment, csv for a spreadsheet (a table command's rows alone).
enum class ReportFormat { text, json, junit, markdown, csv };

/// The name --report takes: "text", "json", "junit", "markdown", "csv". (A std::string, as CLI11
/// expects of a to_string it finds for an option's type.)
std::string to_string(ReportFormat format);

/// The format `name` names, or nullopt.
std::optional<ReportFormat> report_format_named(std::string_view name);

/// Whether `formats` holds `format`.
bool supports(std::span<const ReportFormat> formats, ReportFormat format);

/// A renderer handed a format it does not declare: a bug of the caller (the command table refuses
/// such a format before any work), so std::logic_error, exit 3.
[[noreturn]] void unsupported(ReportFormat format, std::string_view renderer);

}  // namespace phasecheck::reports
