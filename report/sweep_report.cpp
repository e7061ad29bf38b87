#include "report/sweep_report.hpp"

#include <sstream>

#include "core/escape.hpp"
#include "core/table.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {
namespace {

using experiments::Sweep;
using experiments::SweepRow;

/// "radix = 3" for the ranged values of a row; "" without ranged parameters.
std::string setting(const SweepRow& row) {
  std::string out;
  for (const auto& [key, value] : row.values)
    out += (out.empty() ? "" : ", ") + key + " = " + std::to_string(value);
  return out;
}

std::string instance_name(const SweepRow& row) {
  const std::string s = setting(row);
  return "p = " + std::to_string(row.ranks) + (s.empty() ? "" : ", " + s);
}

std::string heading(const Sweep& s) {
  std::ostringstream os;
  os << "sweep " << text_escape(s.subject) << " on " << text_escape(s.family) << ", p = " << s.first
     << ".." << s.last;
  for (const std::string& fixed : s.fixed) os << ", " << text_escape(fixed);
  for (const auto& [key, range] : s.ranged)
    os << ", " << text_escape(key) << " = " << range.first << ".." << range.second;
  os << " (" << (s.buffers ? "buffer programs" : "phase tables") << "): " << s.rows.size()
     << " instances";
  return os.str();
}

bool passed_not(const SweepRow& row) {
  return row.verdict == Verdict::fail || row.verdict == Verdict::unknown;
}

/// What a row is: "pass", "refused: ...", "fail: delivery: ...".
std::string outcome(const SweepRow& row) {
  if (row.verdict == Verdict::not_evaluated) return "refused: " + row.refused;
  if (row.verdict == Verdict::pass) return "pass";
  return std::string(to_string(row.verdict)) + ": " + row.broken;
}

Cell optional_cell(const std::optional<std::uint64_t>& v) { return v ? Cell{*v} : Cell{}; }

/// One row per instance: the CSV and the JSON rows.
Table instance_table(const Sweep& s) {
  std::vector<Column> columns{{"p", "p"}};
  for (const auto& [key, range] : s.ranged) columns.push_back({key, key});
  for (const Column& c : std::vector<Column>{{"verdict", "verdict"},
                                             {"phases", "phases"},
                                             {"C1", "C1"},
                                             {"bound_C1", "bound C1"},
                                             {"gap_C1", "gap C1"},
                                             {"C2", "C2"},
                                             {"bound_C2", "bound C2"},
                                             {"gap_C2", "gap C2"},
                                             {"why", "why"},
                                             {"replay", "replay"}})
    columns.push_back(c);
  Table table(std::move(columns));
  for (const SweepRow& row : s.rows) {
    std::vector<Cell> cells{std::uint64_t{row.ranks}};
    for (const auto& value : row.values) cells.push_back(value.second);
    const auto figure_cell = [&](std::uint64_t v) { return row.verified ? Cell{v} : Cell{}; };
    cells.insert(cells.end(),
                 {std::string(to_string(row.verdict)), figure_cell(row.phases), figure_cell(row.c1),
                  figure_cell(row.bound_c1), optional_cell(row.gap.c1), figure_cell(row.c2),
                  figure_cell(row.bound_c2), optional_cell(row.gap.c2),
                  row.verdict == Verdict::pass ? Cell{} : Cell{outcome(row)},
                  row.replay.empty() ? Cell{} : Cell{row.replay}});
    table.add(std::move(cells));
  }
  return table;
}

std::string text(const Sweep& s) {
  std::ostringstream os;
  os << heading(s) << "\n";
  std::size_t counts[4] = {};  // by Verdict
  for (const SweepRow& row : s.rows) ++counts[static_cast<int>(row.verdict)];
  // One block per setting: the rows of a setting are consecutive (Sweep::rows).
  for (std::size_t begin = 0; begin < s.rows.size();) {
    std::size_t end = begin;
    while (end < s.rows.size() && s.rows[end].values == s.rows[begin].values) ++end;
    std::vector<Rank> pass, fail, refused, c1, c2;
    const SweepRow* refusal = nullptr;
    for (std::size_t i = begin; i < end; ++i) {
      const SweepRow& row = s.rows[i];
      switch (row.verdict) {
        case Verdict::pass:
          pass.push_back(row.ranks);
          break;
        case Verdict::fail:
        case Verdict::unknown:
          fail.push_back(row.ranks);
          break;
        case Verdict::not_evaluated:
          refused.push_back(row.ranks);
          if (!refusal) refusal = &row;
          break;
      }
      if (row.gap.c1 == std::uint64_t{0}) c1.push_back(row.ranks);
      if (row.gap.c2 == std::uint64_t{0}) c2.push_back(row.ranks);
    }
    const std::string name = setting(s.rows[begin]);
    os << "\n"
       << (name.empty() ? std::string("every p") : text_escape(name)) << " (" << end - begin
       << " instances)\n";
    Table block({{"what", ""}, {"p", ""}});
    block.add({std::string("pass"), rank_ranges(pass)});
    block.add({std::string("fail"), rank_ranges(fail)});
    block.add({std::string("refused"), rank_ranges(refused)});
    block.add({std::string("at the C1 bound"), rank_ranges(c1)});
    block.add({std::string("at the C2 bound"), rank_ranges(c2)});
    // The table's first line is its (empty) titles.
    const std::string lines = block.text("  ");
    os << lines.substr(lines.find('\n') + 1);
    if (refusal)
      os << "  refused, e.g. p = " << refusal->ranks << ": " << text_escape(refusal->refused)
         << "\n";
    begin = end;
  }
  os << "\nverdict: " << to_string(s.verdict()) << " (" << s.rows.size()
     << " instances: " << counts[static_cast<int>(Verdict::pass)] << " pass, "
     << counts[static_cast<int>(Verdict::fail)] << " fail, "
     << counts[static_cast<int>(Verdict::unknown)] << " undecided, "
     << counts[static_cast<int>(Verdict::not_evaluated)] << " refused)\n";
  return os.str();
}

std::string json(const Sweep& s) {
  nlohmann::ordered_json doc;
  doc["command"] = "sweep";
  doc["verdict"] = to_string(s.verdict());
  doc["format"] = "phasecheck.sweep/1";
  doc["subject"] = s.subject;
  doc["family"] = s.family;
  doc["ranks"] = {s.first, s.last};
  doc["buffers"] = s.buffers;
  doc["set"] = s.fixed;
  nlohmann::ordered_json ranged = nlohmann::ordered_json::object();
  for (const auto& [key, range] : s.ranged) ranged[key] = {range.first, range.second};
  doc["ranged"] = std::move(ranged);
  nlohmann::ordered_json rows = instance_table(s).json();
  // A row that did not pass carries its checks, counterexamples included.
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    if (!s.rows[i].report) continue;
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const CheckResult& check : s.rows[i].report->checks) checks.push_back(check_json(check));
    rows[i]["checks"] = std::move(checks);
  }
  doc["rows"] = std::move(rows);
  return json_text(doc);
}

std::string junit(const Sweep& s) {
  std::size_t failures = 0, skipped = 0;
  for (const SweepRow& row : s.rows) {
    failures += passed_not(row);
    skipped += row.verdict == Verdict::not_evaluated;
  }
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<testsuites name=\"phasecheck\" tests=\"" << s.rows.size() << "\" failures=\"" << failures
     << "\">\n"
     << "  <testsuite name=\"" << xml_escape_line("sweep " + s.subject) << "\" tests=\""
     << s.rows.size() << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"" << skipped
     << "\">\n";
  for (const SweepRow& row : s.rows) {
    os << "    <testcase classname=\"phasecheck.sweep\" name=\""
       << xml_escape_line(instance_name(row)) << "\"";
    if (row.verdict == Verdict::pass) {
      os << "/>\n";
    } else if (row.verdict == Verdict::not_evaluated) {
      os << ">\n      <skipped message=\"" << xml_escape_line(row.refused)
         << "\"/>\n    </testcase>\n";
    } else {
      os << ">\n      <failure message=\"" << xml_escape_line(outcome(row)) << "\" type=\""
         << to_string(row.verdict) << "\">"
         << xml_escape((row.report ? render(*row.report, instance_name(row), ReportFormat::text)
                                   : row.broken + "\n") +
                       "replay: " + row.replay + "\n")
         << "</failure>\n    </testcase>\n";
    }
  }
  os << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

}  // namespace

std::string rank_ranges(const std::vector<Rank>& ranks) {
  if (ranks.empty()) return "-";
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(ranks[i]);
    if (j > i) out += (j == i + 1 ? ", " : "..") + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

std::string sweep_row_text(const Sweep&, const SweepRow& row) {
  if (!passed_not(row)) return "";
  std::ostringstream os;
  os << "== " << to_string(row.verdict) << " at " << text_escape(instance_name(row)) << "\n";
  if (row.report)
    os << render(*row.report, instance_name(row), ReportFormat::text);
  else
    os << text_escape(row.broken) << "\n";
  os << "replay: " << text_escape(row.replay) << "\n\n";
  return os.str();
}

std::string render_sweep(const Sweep& sweep, ReportFormat format) {
  switch (format) {
    case ReportFormat::text:
      return text(sweep);
    case ReportFormat::json:
      return json(sweep);
    case ReportFormat::junit:
      return junit(sweep);
    case ReportFormat::csv:
      return instance_table(sweep).csv();
    case ReportFormat::markdown:
      break;
  }
  unsupported(format, "render_sweep");
}

}  // namespace phasecheck::reports
