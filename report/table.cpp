#include "report/table.hpp"

#include "report/verify_report.hpp"

namespace phasecheck::reports {

std::string render(const TableReport& r, ReportFormat format) {
  switch (format) {
    case ReportFormat::csv:
      return r.table.csv();
    case ReportFormat::json: {
      nlohmann::ordered_json j;
      j["command"] = r.command;
      j["verdict"] = verify::to_string(r.verdict);
      for (const auto& [key, value] : r.facts.items()) j[key] = value;
      j["rows"] = r.table.json();
      return json_text(j);
    }
    case ReportFormat::text:
      return r.heading + "\n\n" + r.table.text() + r.notes;
    case ReportFormat::junit:
    case ReportFormat::markdown:
      break;
  }
  unsupported(format, "render(TableReport)");
}

}  // namespace phasecheck::reports
