#include "core/table.hpp"

#include <algorithm>
#include <cstdio>

#include "core/escape.hpp"

namespace phasecheck {
namespace {

std::string as_text(const Cell& c) {
  if (const auto* s = std::get_if<std::string>(&c)) return *s;
  if (const auto* n = std::get_if<std::uint64_t>(&c)) return std::to_string(*n);
  if (const auto* d = std::get_if<double>(&c)) return figure(*d);
  return "-";
}

}  // namespace

std::string size_label(std::uint64_t bytes) {
  return bytes % 1024 == 0 ? std::to_string(bytes / 1024) + "K" : std::to_string(bytes) + "B";
}

std::string figure(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void Table::add(std::vector<Cell> row) {
  row.resize(columns_.size());
  rows_.push_back(std::move(row));
}

std::string Table::text(std::string_view indent) const {
  std::vector<std::vector<std::string>> lines;
  lines.emplace_back();
  for (const Column& c : columns_) lines.back().push_back(c.title);
  for (const auto& row : rows_) {
    lines.emplace_back();
    // A text cell may be a name from a file: one line, no controls (core/escape.hpp).
    for (const Cell& c : row)
      lines.back().push_back(std::holds_alternative<std::string>(c) ? text_escape(as_text(c))
                                                                    : as_text(c));
  }
  std::vector<std::size_t> width(columns_.size(), 0);
  for (const auto& line : lines)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  std::string out;
  for (const auto& line : lines) {
    out += indent;
    for (std::size_t i = 0; i < line.size(); ++i)
      out += line[i] + (i + 1 < line.size() ? std::string(width[i] - line[i].size() + 2, ' ') : "");
    out += "\n";
  }
  return out;
}

std::string Table::csv() const {
  std::string out;
  for (std::size_t i = 0; i < columns_.size(); ++i)
    out += (i ? "," : "") + csv_cell(columns_[i].key);
  out += "\r\n";
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.size(); ++i)
      out += (i ? "," : "") +
             (std::holds_alternative<std::monostate>(row[i]) ? "" : csv_cell(as_text(row[i])));
    out += "\r\n";
  }
  return out;
}

nlohmann::ordered_json Table::json() const {
  auto out = nlohmann::ordered_json::array();
  for (const auto& row : rows_) {
    nlohmann::ordered_json o = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < row.size(); ++i)
      std::visit(
          [&](const auto& v) {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
              o[columns_[i].key] = nullptr;
            else
              o[columns_[i].key] = v;
          },
          row[i]);
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace phasecheck
