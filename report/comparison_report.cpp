#include "report/comparison_report.hpp"

#include <array>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/escape.hpp"
#include "report/table.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {
namespace {

using ci::Comparison;

std::string headline(const Comparison& c) {
  std::size_t bad = 0, allowed = 0;
  for (const auto& f : c.regressions) (f.allowed ? allowed : bad) += 1;
  std::ostringstream os;
  os << (c.passed() ? "PASS" : "FAIL") << "  " << c.before.source << " -> " << c.after.source
     << ": ";
  if (bad)
    os << bad << (bad == 1 ? " regression" : " regressions");
  else if (!c.improvements.empty())
    os << "better (" << c.improvements.front() << ")";
  else
    os << "no regression";
  if (allowed) os << ", " << allowed << " allowed";
  return os.str();
}

/// Rows of figures: name, before, after.
std::vector<std::array<std::string, 3>> figure_rows(const Comparison& c) {
  const auto& x = c.before.figures;
  const auto& y = c.after.figures;
  const auto pair = [](std::uint64_t a, std::uint64_t b) {
    return std::to_string(a) + " / " + std::to_string(b);
  };
  const auto figure = [](std::optional<std::uint64_t> v) {
    return v ? std::to_string(*v) : std::string("-");
  };
  const auto gaps = [&](const verify::Gap& g) { return figure(g.c1) + " / " + figure(g.c2); };
  return {{"phases", std::to_string(x.phases), std::to_string(y.phases)},
          {"C1", std::to_string(x.c1), std::to_string(y.c1)},
          {"C2", std::to_string(x.c2), std::to_string(y.c2)},
          {"lower bound C1 / C2", pair(c.before.bound_c1, c.before.bound_c2),
           pair(c.after.bound_c1, c.after.bound_c2)},
          {"gap C1 / C2", gaps(c.before.gap), gaps(c.after.gap)}};
}

/// What counts as a regression here, and what --allow lifted.
std::string rules(const std::set<std::string>& allow) {
  std::string out = "regressions checked: ";
  bool first = true;
  for (const char* key : ci::kRegressions) {
    out += (first ? "" : ", ") + std::string(key) + (allow.count(key) ? " (allowed)" : "");
    first = false;
  }
  return out;
}

std::string text_report(const Comparison& c) {
  std::ostringstream os;
  os << text_escape(headline(c)) << "\n";
  for (const auto& f : c.regressions)
    os << "  " << (f.allowed ? "allowed     " : "regression  ") << f.key << ": "
       << text_escape(f.text)
       << (f.allowed || f.key == "check-failed" ? "" : "  (--allow " + f.key + ")") << "\n";
  for (const auto& i : c.improvements) os << "  better      " << text_escape(i) << "\n";
  os << "  " << rules(c.allow) << "\n\n";
  Table checks({{"check", "check"}, {"before", "before"}, {"after", "after"}});
  for (const verify::CheckId n : ci::check_ids(c))
    checks.add({std::string(to_string(n)), ci::verdict_of(c.before, n), ci::verdict_of(c.after, n)});
  os << checks.text() << "\n";
  Table figures({{"figure", "figure"}, {"before", "before"}, {"after", "after"}});
  for (const auto& r : figure_rows(c)) figures.add({r[0], r[1], r[2]});
  os << figures.text();
  if (c.first_difference)
    os << "\nfirst difference: phase " << *c.first_difference << "\n";
  else if (c.before.table)
    os << "\nthe two tables are identical\n";
  for (const auto& f : c.new_failures) os << "\n" << draw_check(f, c.collective());
  return os.str();
}

std::string markdown_report(const Comparison& c) {
  std::ostringstream os;
  os << "### " << (c.passed() ? "✅ " : "❌ ") << markdown_escape(headline(c)) << "\n\n";
  for (const auto& f : c.regressions)
    os << "- **" << (f.allowed ? "allowed" : "regression") << "** `" << f.key
       << "`: " << markdown_escape(f.text) << "\n";
  for (const auto& i : c.improvements) os << "- better: " << markdown_escape(i) << "\n";
  os << "\n| | before | after |\n|---|---|---|\n";
  for (const verify::CheckId n : ci::check_ids(c))
    os << "| " << markdown_escape(to_string(n)) << " | " << ci::verdict_of(c.before, n) << " | "
       << ci::verdict_of(c.after, n) << " |\n";
  for (const auto& r : figure_rows(c))
    os << "| " << r[0] << " | " << r[1] << " | " << r[2] << " |\n";
  if (c.first_difference) os << "\nFirst difference: phase " << *c.first_difference << ".\n";
  os << "\n<sub>" << rules(c.allow) << "</sub>\n";
  for (const auto& f : c.new_failures) {
    os << "\n<details><summary>" << markdown_escape(f.name()) << ": " << markdown_escape(f.summary)
       << "</summary>\n\n"
       << markdown_code_block(draw_check(f, c.collective())) << "</details>\n";
  }
  return os.str();
}

nlohmann::ordered_json comparison_json(const Comparison& c) {
  nlohmann::ordered_json j;
  j["verdict"] = std::string(verify::to_string(c.verdict()));
  j["before"] = c.before.source;
  j["after"] = c.after.source;
  j["regressions"] = nlohmann::ordered_json::array();
  for (const auto& f : c.regressions)
    j["regressions"].push_back({{"kind", f.key}, {"what", f.text}, {"allowed", f.allowed}});
  j["improvements"] = c.improvements;
  nlohmann::ordered_json checks = nlohmann::ordered_json::object();
  for (const verify::CheckId n : ci::check_ids(c))
    checks[std::string(to_string(n))] = {{"before", ci::verdict_of(c.before, n)},
                                         {"after", ci::verdict_of(c.after, n)}};
  j["checks"] = checks;
  const auto fig = [](const io::Figures& f, std::uint64_t b1, std::uint64_t b2) {
    return nlohmann::ordered_json{
        {"phases", f.phases}, {"C1", f.c1}, {"C2", f.c2}, {"bound_C1", b1}, {"bound_C2", b2}};
  };
  j["figures"] = {{"before", fig(c.before.figures, c.before.bound_c1, c.before.bound_c2)},
                  {"after", fig(c.after.figures, c.after.bound_c1, c.after.bound_c2)}};
  j["first_difference"] =
      c.first_difference ? nlohmann::ordered_json(*c.first_difference) : nlohmann::ordered_json();
  j["new_failures"] = nlohmann::ordered_json::array();
  for (const auto& f : c.new_failures)
    j["new_failures"].push_back(
        {{"check", std::string(f.name())}, {"summary", f.summary}, {"text", draw_check(f, c.collective())}});
  return j;
}

/// One <testsuite> per comparison: a test case per check and per kind of regression.
std::string junit_suite(const std::string& name, const Comparison& c) {
  std::ostringstream cases;
  std::size_t tests = 0, failures = 0;
  const auto testcase = [&](const std::string& test, const std::string& failure) {
    ++tests;
    cases << "    <testcase classname=\"" << xml_escape_line(name) << "\" name=\""
          << xml_escape_line(test) << "\"";
    if (failure.empty()) {
      cases << "/>\n";
      return;
    }
    ++failures;
    cases << ">\n      <failure message=\"" << xml_escape_line(failure) << "\">"
          << xml_escape(failure) << "</failure>\n    </testcase>\n";
  };
  for (const verify::CheckId n : ci::check_ids(c)) {
    std::string failure;
    for (const auto& f : c.new_failures)
      if (f.id == n) failure = draw_check(f, c.collective());
    testcase("check " + std::string(to_string(n)), failure);
  }
  for (const char* key : ci::kRegressions) {
    if (std::string_view(key) == "check-failed") continue;  // the check's own test case above
    std::string failure;
    for (const auto& f : c.regressions)
      if (f.key == key && !f.allowed)
        failure += (failure.empty() ? "" : "; ") + text_escape(f.text);
    testcase(key, failure);
  }
  std::ostringstream os;
  os << "  <testsuite name=\"" << xml_escape_line(name) << "\" tests=\"" << tests
     << "\" failures=\"" << failures << "\">\n"
     << cases.str() << "  </testsuite>\n";
  return os.str();
}

std::string junit(const std::vector<std::pair<std::string, const Comparison*>>& all) {
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"phasecheck\">\n";
  for (const auto& [name, c] : all) os << junit_suite(name, *c);
  os << "</testsuites>\n";
  return os.str();
}

}  // namespace

std::string render_comparison(const Comparison& c, ReportFormat format) {
  if (format == ReportFormat::markdown) return markdown_report(c);
  if (format == ReportFormat::json) return json_text(comparison_json(c));
  if (format == ReportFormat::junit) return junit({{"diff", &c}});
  return text_report(c);
}

std::string render_gate(const ci::GateResult& gate, ReportFormat format) {
  const std::size_t failed = gate.failed(), total = gate.cases.size();
  if (format == ReportFormat::junit) {
    std::vector<std::pair<std::string, const Comparison*>> all;
    for (const auto& c : gate.cases) all.push_back({c.name, &c.comparison});
    return junit(all);
  }
  if (format == ReportFormat::json) {
    nlohmann::ordered_json j;
    j["verdict"] = std::string(verify::to_string(gate.verdict()));
    j["manifest"] = gate.manifest;
    j["cases"] = nlohmann::ordered_json::array();
    for (const auto& c : gate.cases) {
      auto one = comparison_json(c.comparison);
      one["name"] = c.name;
      j["cases"].push_back(std::move(one));
    }
    return json_text(j);
  }
  const bool md = format == ReportFormat::markdown;
  std::ostringstream out;
  out << (md ? "### " + std::string(failed ? "❌ " : "✅ ") : "") << (failed ? "FAIL" : "PASS")
      << "  gate " << (md ? markdown_escape(gate.manifest) : text_escape(gate.manifest)) << ": "
      << total - failed << " of " << total << " cases pass"
      << (gate.updated ? " (baselines of the passing schedules updated)" : "") << "\n\n";
  if (md)
    out << "| case | verdict | phases (baseline) | C2 (baseline) | bound C1 / C2 | note |\n"
           "|---|---|---|---|---|---|\n";
  Table table({{"case", "case"},
               {"verdict", "verdict"},
               {"phases", "phases (baseline)"},
               {"C2", "C2 (baseline)"},
               {"bounds", "bound C1 / C2"},
               {"note", "note"}});
  for (const auto& [name, c] : gate.cases) {
    std::string note;
    for (const auto& f : c.regressions)
      if (!f.allowed) note += (note.empty() ? "" : "; ") + f.text;
    if (note.empty() && !c.improvements.empty()) note = "better: " + c.improvements.front();
    const std::vector<std::string> row = {
        name,
        c.passed() ? "pass" : "FAIL",
        std::to_string(c.after.figures.phases) + " (" + std::to_string(c.before.figures.phases) +
            ")",
        std::to_string(c.after.figures.c2) + " (" + std::to_string(c.before.figures.c2) + ")",
        std::to_string(c.after.bound_c1) + " / " + std::to_string(c.after.bound_c2),
        note};
    if (md) {
      out << "|";
      for (const auto& cell : row) out << " " << markdown_escape(cell) << " |";
      out << "\n";
    } else {
      table.add(std::vector<Cell>(row.begin(), row.end()));
    }
  }
  if (!md) out << table.text();
  for (const auto& [name, c] : gate.cases)
    if (!c.passed()) {
      if (md)
        out << "\n<details><summary>" << markdown_escape(name) << "</summary>\n\n"
            << markdown_report(c) << "\n</details>\n";
      else
        out << "\n" << text_escape(name) << ":\n" << text_report(c);
    }
  return out.str();
}

}  // namespace phasecheck::reports
