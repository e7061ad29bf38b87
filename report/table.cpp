#include "report/table.hpp"

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

std::string render(const TableReport& r, TableFormat format) {
  switch (format) {
    case TableFormat::csv:
      return r.table.csv();
    case TableFormat::json: {
      nlohmann::ordered_json j;
      j["command"] = r.command;
      j["verdict"] = verify::to_string(r.verdict);
      for (const auto& [key, value] : r.facts.items()) j[key] = value;
      j["rows"] = r.table.json();
      return json_text(j);
    }
    case TableFormat::text:
      return r.heading + "\n\n" + r.table.text() + r.notes;
  }
  return {};  // unreachable: every format is handled above
}

TableFormat parse_table_format(std::string_view name, std::string_view command) {
  if (name == "text") return TableFormat::text;
  if (name == "json") return TableFormat::json;
  if (name == "csv") return TableFormat::csv;
  throw InputError(std::string(command) + ": " +
                   unknown_name("report format", name, {"text", "json", "csv"}));
}

}  // namespace phasecheck::reports
