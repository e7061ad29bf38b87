#pragma once
/// The tables of the table commands (survey, bounds, congestion --phases, whatif), rendered for a
/// person (aligned text), a spreadsheet (CSV, RFC 4180) or a program (JSON rows keyed by column).
/// A cell is typed, so JSON gets numbers as numbers and "nothing" as null. Deterministic.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "verify/report.hpp"

namespace phasecheck::reports {

/// Text, a count, a figure, or nothing: "-" in text, empty in CSV, null in JSON.
using Cell = std::variant<std::monostate, std::string, std::uint64_t, double>;

struct Column {
  std::string key;    ///< the JSON key and the CSV header: "bound_C1"
  std::string title;  ///< the text header: "bound"
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  /// One cell per column.
  void add(std::vector<Cell> row);
  std::size_t size() const { return rows_.size(); }

  /// Aligned columns under their titles, each line starting with `indent`.
  std::string text(std::string_view indent = "") const;
  /// A header line of keys, then the rows; fields with a comma, quote or newline are quoted.
  std::string csv() const;
  /// An array of objects, one per row, keys in column order.
  nlohmann::ordered_json json() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

/// "text", "json" or "csv", as --report takes them (InputError otherwise, naming `command`).
enum class TableFormat { text, json, csv };
TableFormat parse_table_format(std::string_view name, std::string_view command);

/// A table command's whole answer (whatif's questions, optimality tables): a heading for the text,
/// the facts a program wants next to the rows (JSON only), the table, and the notes that explain
/// its columns (text only).
struct TableReport {
  std::string command;                  ///< "whatif bruck-index"
  verify::Verdict verdict = verify::Verdict::not_evaluated;  ///< pass: every row verified
  std::string heading;                  ///< text: the line(s) before the table
  nlohmann::ordered_json facts = nlohmann::ordered_json::object();  ///< JSON: beside "rows"
  Table table;
  std::string notes;                    ///< text: after the table
};
/// Text: heading, blank line, table, notes. JSON: {"command", "verdict", facts..., "rows"}. CSV:
/// the table alone.
std::string render(const TableReport& report, TableFormat format);

/// A figure as the text tables show it: four significant digits ("0.001266", "1.2e-07").
std::string figure(double v);

}  // namespace phasecheck::reports
