#include "report/record_report.hpp"

#include <sstream>

#include "core/escape.hpp"
#include "core/table.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {
namespace {

using record::Case;
using record::Sweep;

std::string case_name(const Case& c) {
  return (c.algorithm.empty() ? std::string("default") : c.algorithm) + " p=" +
         std::to_string(c.ranks) + " count=" + std::to_string(c.count) + " " +
         std::string(record::to_string(c.types)) + (c.inplace ? " in-place" : "");
}

/// What ran: the registered algorithm the table is, else the name the table carries.
std::string ran(const Case& c) {
  return c.judgement.identified ? *c.judgement.identified : c.judgement.report.algorithm;
}

/// The first check that did not pass, as "name: summary"; "pass" when all passed.
std::string result(const Case& c) {
  const verify::Report& r = c.judgement.report;
  const Verdict v = r.verdict();
  for (const CheckResult& check : r.checks)
    if (check.verdict == v && v != Verdict::pass)
      return std::string(verdict_mark(v)) + " " + std::string(check.name()) + ": " + check.summary;
  return std::string(verdict_mark(v));
}

std::string heading(const Sweep& s) {
  std::ostringstream os;
  os << "record " << (s.level == record::Level::pml ? "mpi" : "function") << ": "
     << text_escape(s.routine) << " on " << text_escape(s.library) << ", recorded at the "
     << (s.level == record::Level::pml ? "PML (the library's own point-to-point messages)"
                                       : "MPI interface (PMPI)");
  return os.str();
}

std::string text(const Sweep& s) {
  std::ostringstream os;
  std::size_t failed = 0, applicable = 0;
  for (const Case& c : s.cases) {
    failed += c.judgement.report.verdict() == Verdict::fail;
    applicable += c.judgement.report.verdict() != Verdict::not_evaluated;
  }
  os << heading(s) << "\n"
     << "verdict: " << to_string(s.verdict()) << " (" << s.cases.size() << " cases, " << failed
     << " failed, " << s.cases.size() - applicable << " not applicable)\n\n";
  Table table({{"algorithm", "algorithm"},
               {"ranks", "p"},
               {"count", "count"},
               {"types", "types"},
               {"inplace", "in place"},
               {"ran", "ran"},
               {"result", "result"}});
  for (const Case& c : s.cases)
    table.add({c.algorithm.empty() ? std::string("default") : c.algorithm,
               std::uint64_t{c.ranks}, std::uint64_t{c.count},
               std::string(record::to_string(c.types)), std::string(c.inplace ? "yes" : "no"),
               ran(c), result(c)});
  os << table.text();
  for (const Case& c : s.cases) {
    if (c.judgement.report.verdict() != Verdict::fail &&
        c.judgement.report.verdict() != Verdict::unknown)
      continue;
    os << "\n== " << text_escape(case_name(c)) << "\n"
       << render(c.judgement.report, case_name(c), ReportFormat::text)
       << "replay: " << text_escape(c.replay) << "\n";
  }
  return os.str();
}

std::string json(const Sweep& s) {
  nlohmann::ordered_json doc;
  doc["command"] = s.level == record::Level::pml ? "record mpi" : "record function";
  doc["verdict"] = to_string(s.verdict());
  doc["format"] = "phasecheck.record/1";
  doc["collective"] = s.collective == Collective::alltoall ? "alltoall" : "allgather";
  doc["library"] = s.library;
  doc["routine"] = s.routine;
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const Case& c : s.cases) {
    nlohmann::ordered_json j;
    j["algorithm"] = c.algorithm.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(c.algorithm);
    j["ranks"] = c.ranks;
    j["count"] = c.count;
    j["types"] = record::to_string(c.types);
    j["inplace"] = c.inplace;
    j["ran"] = ran(c);
    j["identified"] = c.judgement.identified.has_value();
    j["verdict"] = to_string(c.judgement.report.verdict());
    nlohmann::ordered_json checks = nlohmann::ordered_json::array();
    for (const CheckResult& check : c.judgement.report.checks) checks.push_back(check_json(check));
    j["checks"] = std::move(checks);
    j["schedule"] = c.schedule_file.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(c.schedule_file);
    j["replay"] = c.replay;
    cases.push_back(std::move(j));
  }
  doc["cases"] = std::move(cases);
  return json_text(doc);
}

std::string junit(const Sweep& s) {
  std::size_t failures = 0, skipped = 0;
  for (const Case& c : s.cases) {
    const Verdict v = c.judgement.report.verdict();
    failures += v == Verdict::fail || v == Verdict::unknown;
    skipped += v == Verdict::not_evaluated;
  }
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
     << "<testsuites name=\"phasecheck\" tests=\"" << s.cases.size() << "\" failures=\""
     << failures << "\">\n"
     << "  <testsuite name=\"" << xml_escape_line("record " + s.routine) << "\" tests=\""
     << s.cases.size() << "\" failures=\"" << failures << "\" errors=\"0\" skipped=\"" << skipped
     << "\">\n";
  for (const Case& c : s.cases) {
    const Verdict v = c.judgement.report.verdict();
    os << "    <testcase classname=\"phasecheck.record\" name=\"" << xml_escape_line(case_name(c))
       << "\"";
    if (v == Verdict::pass) {
      os << "/>\n";
    } else if (v == Verdict::not_evaluated) {
      os << ">\n      <skipped message=\"" << xml_escape_line(result(c)) << "\"/>\n    </testcase>\n";
    } else {
      os << ">\n      <failure message=\"" << xml_escape_line(result(c)) << "\" type=\""
         << to_string(v) << "\">"
         << xml_escape(render(c.judgement.report, case_name(c), ReportFormat::text) +
                       "replay: " + c.replay + "\n")
         << "</failure>\n    </testcase>\n";
    }
  }
  os << "  </testsuite>\n</testsuites>\n";
  return os.str();
}

}  // namespace

std::string render_record(const record::Sweep& sweep, ReportFormat format) {
  switch (format) {
    case ReportFormat::text:
      return text(sweep);
    case ReportFormat::json:
      return json(sweep);
    case ReportFormat::junit:
      return junit(sweep);
    case ReportFormat::markdown:
    case ReportFormat::csv:
      break;
  }
  unsupported(format, "render_record");
}

}  // namespace phasecheck::reports
