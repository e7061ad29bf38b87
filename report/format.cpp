#include "report/format.hpp"

#include <algorithm>
#include <stdexcept>

namespace phasecheck::reports {

namespace {

constexpr ReportFormat every_format[] = {ReportFormat::text, ReportFormat::json,
                                         ReportFormat::junit, ReportFormat::markdown,
                                         ReportFormat::csv};

}  // namespace

std::string to_string(ReportFormat format) {
  switch (format) {
    case ReportFormat::text:
      return "text";
    case ReportFormat::json:
      return "json";
    case ReportFormat::junit:
      return "junit";
    case ReportFormat::markdown:
      return "markdown";
    case ReportFormat::csv:
      return "csv";
  }
  return "?";  // unreachable: every format is named above
}

std::optional<ReportFormat> report_format_named(std::string_view name) {
  for (const ReportFormat format : every_format)
    if (to_string(format) == name) return format;
  return std::nullopt;
}

bool supports(std::span<const ReportFormat> formats, ReportFormat format) {
  return std::find(formats.begin(), formats.end(), format) != formats.end();
}

void unsupported(ReportFormat format, std::string_view renderer) {
  throw std::logic_error(std::string(renderer) + " does not render --report " + to_string(format));
}

}  // namespace phasecheck::reports
