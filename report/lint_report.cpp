#include "report/lint_report.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

#include "core/escape.hpp"

namespace phasecheck::reports {

namespace {

using verify::CoverageGroup;
using verify::LintFinding;
using verify::LintReport;
using verify::LintTool;
using verify::Severity;
using OJson = nlohmann::ordered_json;

/// The file and the place, as one line of text (a file name is input): file:line in XML,
/// file: path in a JSON plan.
std::string where(const LintFinding& f) {
  std::string place = f.line == 0 ? f.file : f.file + ":" + std::to_string(f.line);
  if (!f.path.empty()) place += ": " + f.path;
  return text_escape(place);
}

std::string command(LintTool tool) {
  switch (tool) {
    case LintTool::msccl:
      return "lint msccl";
    case LintTool::mscclpp:
      return "lint mscclpp";
  }
  return "lint";
}

/// How the runtime picks among the claims of a group, under the coverage heading.
std::string selection(LintTool tool) {
  switch (tool) {
    case LintTool::msccl:
      return "RCCL takes the first loaded file whose range holds the size";
    case LintTool::mscclpp:
      return "allgather: the whole output, otherwise the input; mscclpp takes the first plan in "
             "its hash map whose range holds the size";
  }
  return "";
}

std::string plural(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string group_name(const CoverageGroup& g) {
  return text_escape(g.collective) + ", " + std::to_string(g.ngpus) + " gpus, " +
         (g.in_place ? "in-place" : "out-of-place");
}

/// 1048576 -> "1048576 (1 MiB)"; sizes that are not a whole KiB, MiB or GiB stay bare.
std::string bytes(std::uint64_t n) {
  std::string s = std::to_string(n);
  static constexpr std::pair<std::uint64_t, const char*> kUnits[] = {
      {std::uint64_t{1} << 30, "GiB"},
      {std::uint64_t{1} << 20, "MiB"},
      {std::uint64_t{1} << 10, "KiB"}};
  for (const auto& [unit, name] : kUnits)
    if (n >= unit && n % unit == 0) return s + " (" + std::to_string(n / unit) + " " + name + ")";
  return s;
}

std::string text(const LintReport& r) {
  std::ostringstream os;
  os << (r.errors() == 0 ? "PASS" : "FAIL") << "  " << command(r.tool) << ": "
     << plural(r.files.size(), "file", "files") << ", " << plural(r.errors(), "error", "errors")
     << ", " << plural(r.warnings(), "warning", "warnings") << "\n";
  for (const LintFinding& f : r.findings)
    os << "  " << where(f) << ": " << to_string(f.severity) << " [" << f.code << "] "
       << text_escape(f.message) << "\n";
  if (r.coverage.empty()) return os.str();
  os << "size coverage (bytes; " << selection(r.tool) << ")\n";
  for (const CoverageGroup& g : r.coverage) {
    os << "  " << group_name(g) << "\n";
    std::vector<std::string> ranges;
    std::size_t width = 0;
    for (const CoverageGroup::Claim& c : g.claims) {
      ranges.push_back(bytes(c.range.min) + " .. " +
                       (c.range.max ? bytes(*c.range.max) : std::string("no limit")));
      width = std::max(width, ranges.back().size());
    }
    for (std::size_t i = 0; i < g.claims.size(); ++i)
      os << "    " << ranges[i] << std::string(width - ranges[i].size() + 2, ' ')
         << text_escape(g.claims[i].file) << "\n";
  }
  return os.str();
}

std::string json(const LintReport& r) {
  OJson findings = OJson::array();
  for (const LintFinding& f : r.findings) {
    OJson finding = {{"severity", to_string(f.severity)}, {"code", f.code}, {"file", f.file}};
    switch (r.tool) {
      case LintTool::msccl:
        finding["line"] = f.line;
        break;
      case LintTool::mscclpp:
        finding["path"] = f.path;
        break;
    }
    finding["message"] = f.message;
    findings.push_back(std::move(finding));
  }
  OJson coverage = OJson::array();
  for (const CoverageGroup& g : r.coverage) {
    OJson claims = OJson::array();
    for (const CoverageGroup::Claim& c : g.claims)
      claims.push_back({{"file", c.file},
                        {"min_bytes", c.range.min},
                        {"max_bytes", c.range.max ? OJson(*c.range.max) : OJson(nullptr)}});
    coverage.push_back({{"collective", g.collective},
                        {"ngpus", g.ngpus},
                        {"in_place", g.in_place},
                        {"claims", std::move(claims)}});
  }
  OJson j = {{"command", command(r.tool)},
             {"verdict", std::string(verify::to_string(r.verdict()))},
             {"files", r.files},
             {"errors", r.errors()},
             {"warnings", r.warnings()},
             {"findings", std::move(findings)},
             {"coverage", std::move(coverage)}};
  return json_text(j);
}

std::string junit(const LintReport& r) {
  const std::vector<std::string>& files = r.files;
  std::ostringstream cases;
  std::size_t failures = 0;
  for (const std::string& file : files) {
    std::string errors, warnings;
    for (const LintFinding& f : r.findings)
      if (f.file == file)
        (f.severity == Severity::error ? errors : warnings) +=
            where(f) + ": [" + f.code + "] " + text_escape(f.message) + "\n";
    cases << "    <testcase classname=\"phasecheck.lint\" name=\"" << xml_escape_line(file) << "\"";
    if (errors.empty() && warnings.empty()) {
      cases << "/>\n";
      continue;
    }
    cases << ">\n";
    if (!errors.empty()) {
      ++failures;
      cases << "      <failure message=\"" << xml_escape_line(errors.substr(0, errors.find('\n')))
            << "\" type=\"error\">" << xml_escape(errors) << "</failure>\n";
    }
    if (!warnings.empty())
      cases << "      <system-out>" << xml_escape(warnings) << "</system-out>\n";
    cases << "    </testcase>\n";
  }
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<testsuites name=\"phasecheck\" tests=\"" << files.size() << "\" failures=\"" << failures
     << "\">\n"
     << "  <testsuite name=\"" << command(r.tool) << "\" tests=\"" << files.size()
     << "\" failures=\"" << failures << "\" errors=\"0\">\n"
     << cases.str() << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

}  // namespace

std::string render_lint(const LintReport& report, ReportFormat format) {
  switch (format) {
    case ReportFormat::text:
      return text(report);
    case ReportFormat::json:
      return json(report);
    case ReportFormat::junit:
      return junit(report);
    case ReportFormat::markdown:
    case ReportFormat::csv:
      break;
  }
  unsupported(format, "render_lint");
}

}  // namespace phasecheck::reports
