#pragma once
/// The result tables of the table commands (survey, bounds, congestion --phases, whatif,
/// optimality): typed cells under named columns, and a table command's whole answer
/// (TableReport). A table has three forms of its own: aligned text for a person, CSV (RFC 4180)
/// for a spreadsheet and JSON rows keyed by column for a program; report/table.hpp puts a
/// TableReport together in the format a command asks for. Deterministic.

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/verdict.hpp"

namespace phasecheck {

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

  /// Aligned columns under their titles, each line starting with `indent`; text cells through
  /// text_escape() (one line each).
  std::string text(std::string_view indent = "") const;
  /// A header line of keys, then the rows, each field through csv_cell() (core/escape.hpp): quoted
  /// when it holds a comma, quote or line break, and a text that would be a formula made text.
  std::string csv() const;
  /// An array of objects, one per row, keys in column order.
  nlohmann::ordered_json json() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

/// A table command's whole answer (whatif's questions, optimality tables): a heading for the text,
/// the facts a program wants next to the rows (JSON only), the table, and the notes that explain
/// its columns (text only).
struct TableReport {
  std::string command;                       ///< "whatif bruck-index"
  Verdict verdict = Verdict::not_evaluated;  ///< pass: every row verified
  std::string heading;                       ///< text: the line(s) before the table
  nlohmann::ordered_json facts = nlohmann::ordered_json::object();  ///< JSON: beside "rows"
  Table table;
  std::string notes;  ///< text: after the table
};

/// A figure as the text tables show it: four significant digits ("0.001266", "1.2e-07").
std::string figure(double v);

/// A message size as the experiment's columns and plots show it: "8K" for whole KiB, "1000B".
std::string size_label(std::uint64_t bytes);

}  // namespace phasecheck
