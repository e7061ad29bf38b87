#pragma once
// A plain-text table with aligned columns, for the CLI's reports.

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

namespace phasecheck::cli {

/// A figure for a table or a report line: four significant digits ("0.001266", "1.2e-07").
inline std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  void print(std::ostream& out) const {
    std::vector<std::size_t> width;
    for (const auto& row : rows_)
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (width.size() <= i) width.push_back(0);
        width[i] = std::max(width[i], row[i].size());
      }
    for (const auto& row : rows_) {
      std::string line;
      for (std::size_t i = 0; i < row.size(); ++i)
        line += row[i] + (i + 1 < row.size() ? std::string(width[i] - row[i].size() + 2, ' ') : "");
      out << line << "\n";
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace phasecheck::cli
