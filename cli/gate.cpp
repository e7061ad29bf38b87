// `phasecheck diff` and `phasecheck gate`: what a change to a schedule did, compared with the
// last accepted version, as a person, a program, a pull-request comment or a CI test tab reads it
// (docs/ci.md).

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/progress.hpp"
#include "fuzz.hpp"
#include "io/gate_manifest.hpp"
#include "io/json.hpp"
#include "io/report.hpp"
#include "launch/process.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {
namespace {

using verify::Verdict;

/// The regressions a report checks, by the key --allow takes (docs/ci.md); check-failed, a check
/// that passed and fails now, is never allowed (main.cpp offers only the others).
const char* const kRegressions[] = {"check-failed", "more-phases", "larger-c1", "larger-c2",
                                    "larger-gap"};

struct Side {
  std::string source;
  std::optional<Schedule> table;  ///< absent for a baseline given by its figures
  std::optional<verify::Report> report;
  io::Figures figures;
  std::uint64_t bound_c1 = 0, bound_c2 = 0;
};

Side judge(Schedule table, const std::string& source, const Topology* model) {
  Side s;
  s.source = source;
  const Topology& m = model ? *model : table.header.topology;
  try {
    s.report = verify::verify(table, m, claims_for(table.header));
  } catch (const InputError& e) {  // the rank counts differ: say which file
    throw InputError(source + ": " + e.what());
  }
  s.figures = {s.report->counts.phases, s.report->counts.c1, s.report->counts.c2};
  s.bound_c1 = s.report->bound_c1;
  s.bound_c2 = s.report->bound_c2;
  s.table = std::move(table);
  return s;
}

std::uint64_t gap(std::uint64_t value, std::uint64_t bound) {
  return bound && value > bound ? value - bound : 0;
}

struct Finding {
  std::string key;   ///< a kRegressions key
  std::string text;  ///< "phases 9 -> 10"
  bool allowed = false;
};

struct Comparison {
  Side before, after;
  std::vector<Finding> regressions;
  std::vector<std::string> improvements;
  std::optional<std::size_t> first_difference;  ///< phase index where the tables differ
  std::vector<verify::CheckResult> new_failures;
  std::set<std::string> allow;
  bool passed() const {
    return std::all_of(regressions.begin(), regressions.end(),
                       [](const Finding& f) { return f.allowed; });
  }
};

Collective collective_of(const Comparison& c) {
  return c.after.table ? c.after.table->header.collective : Collective::alltoall;
}

std::string verdict_of(const Side& s, const std::string& check) {
  if (!s.report) return "-";
  for (const auto& r : s.report->checks)
    if (r.name == check) return std::string(verify::to_string(r.verdict));
  return "-";
}

/// Phase i of each table as a sorted list of transfers, for the first difference.
std::vector<std::string> phase_keys(const Phase& p) {
  std::vector<std::string> keys;
  for (const Transfer& t : p.transfers()) {
    std::string k = std::to_string(t.src) + ">" + std::to_string(t.dst) + ":";
    for (const Block& b : p.blocks(t))
      k += std::to_string(b.origin) + "," + std::to_string(b.dest) + "," + std::to_string(b.part) +
           ";";
    keys.push_back(std::move(k));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

Comparison compare(Side before, Side after, const std::set<std::string>& allow) {
  Comparison c{std::move(before), std::move(after), {}, {}, {}, {}, allow};
  const auto add = [&](const std::string& key, const std::string& text) {
    c.regressions.push_back({key, text, key != "check-failed" && allow.count(key) > 0});
  };
  const auto figure = [&](const char* name, const char* key, std::uint64_t a, std::uint64_t b) {
    if (b > a) add(key, std::string(name) + " " + std::to_string(a) + " -> " + std::to_string(b));
    if (b < a)
      c.improvements.push_back(std::string(name) + " " + std::to_string(a) + " -> " +
                               std::to_string(b));
  };
  // Figures are compared against a baseline that passed its checks; one that failed some is not
  // a standard to hold the change to (fixing it may well take more phases).
  const bool baseline_valid = !c.before.report || c.before.report->verdict() == Verdict::pass;
  if (!baseline_valid) {
    for (const auto& old : c.before.report->checks)
      if (old.verdict == Verdict::fail && verdict_of(c.after, old.name) == "pass")
        c.improvements.push_back(old.name + " fails before and passes after");
  }
  const io::Figures &x = c.before.figures, &y = c.after.figures;
  if (baseline_valid) {
    figure("phases", "more-phases", x.phases, y.phases);
    figure("C1", "larger-c1", x.c1, y.c1);
    figure("C2", "larger-c2", x.c2, y.c2);
    // Each side against its own model's bound (diff without --topology may change the model).
    const std::uint64_t g1 = gap(x.c1, c.before.bound_c1), g2 = gap(y.c1, c.after.bound_c1);
    const std::uint64_t h1 = gap(x.c2, c.before.bound_c2), h2 = gap(y.c2, c.after.bound_c2);
    figure("gap to the C1 bound", "larger-gap", g1, g2);
    figure("gap to the C2 bound", "larger-gap", h1, h2);
  }
  // Checks: every one that failed after, and did not fail before (or had no before).
  for (const auto& check : c.after.report->checks) {
    if (check.verdict != Verdict::fail) continue;
    bool before_failed = false;
    if (c.before.report)
      for (const auto& old : c.before.report->checks)
        before_failed |= old.name == check.name && old.verdict == Verdict::fail;
    if (before_failed) continue;
    c.new_failures.push_back(check);
    add("check-failed", check.name + ": " + check.summary);
  }
  if (c.before.table && c.after.table) {
    const auto& a = c.before.table->phases;
    const auto& b = c.after.table->phases;
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i)
      if (i >= a.size() || i >= b.size() || phase_keys(a[i]) != phase_keys(b[i])) {
        c.first_difference = i;
        break;
      }
  }
  return c;
}

std::vector<std::string> check_names(const Comparison& c) {
  std::vector<std::string> names;
  for (const Side* s : {&c.before, &c.after})
    if (s->report)
      for (const auto& r : s->report->checks)
        if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);
  return names;
}

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
  return {{"phases", std::to_string(x.phases), std::to_string(y.phases)},
          {"C1", std::to_string(x.c1), std::to_string(y.c1)},
          {"C2", std::to_string(x.c2), std::to_string(y.c2)},
          {"lower bound C1 / C2",
           std::to_string(c.before.bound_c1) + " / " + std::to_string(c.before.bound_c2),
           std::to_string(c.after.bound_c1) + " / " + std::to_string(c.after.bound_c2)},
          {"gap C1 / C2",
           std::to_string(gap(x.c1, c.before.bound_c1)) + " / " +
               std::to_string(gap(x.c2, c.before.bound_c2)),
           std::to_string(gap(y.c1, c.after.bound_c1)) + " / " +
               std::to_string(gap(y.c2, c.after.bound_c2))}};
}

/// What counts as a regression here, and what --allow lifted.
std::string rules(const std::set<std::string>& allow) {
  std::string out = "regressions checked: ";
  for (const char* key : kRegressions)
    out += (key == kRegressions[0] ? "" : ", ") + std::string(key) +
           (allow.count(key) ? " (allowed)" : "");
  return out;
}

std::string text_report(const Comparison& c) {
  std::ostringstream os;
  os << headline(c) << "\n";
  for (const auto& f : c.regressions)
    os << "  " << (f.allowed ? "allowed     " : "regression  ") << f.key << ": " << f.text
       << (f.allowed || f.key == "check-failed" ? "" : "  (--allow " + f.key + ")") << "\n";
  for (const auto& i : c.improvements) os << "  better      " << i << "\n";
  os << "  " << rules(c.allow) << "\n\n";
  Table checks({"check", "before", "after"});
  for (const auto& n : check_names(c))
    checks.add({n, verdict_of(c.before, n), verdict_of(c.after, n)});
  checks.print(os);
  os << "\n";
  Table figures({"figure", "before", "after"});
  for (const auto& r : figure_rows(c)) figures.add({r[0], r[1], r[2]});
  figures.print(os);
  if (c.first_difference)
    os << "\nfirst difference: phase " << *c.first_difference << "\n";
  else if (c.before.table)
    os << "\nthe two tables are identical\n";
  for (const auto& f : c.new_failures) os << "\n" << io::draw_check(f, collective_of(c));
  return os.str();
}

std::string markdown_escape(const std::string& s) {
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return out;
}

std::string markdown_report(const Comparison& c) {
  std::ostringstream os;
  os << "### " << (c.passed() ? "✅ " : "❌ ") << markdown_escape(headline(c)) << "\n\n";
  for (const auto& f : c.regressions)
    os << "- **" << (f.allowed ? "allowed" : "regression") << "** `" << f.key
       << "`: " << markdown_escape(f.text) << "\n";
  for (const auto& i : c.improvements) os << "- better: " << i << "\n";
  os << "\n| | before | after |\n|---|---|---|\n";
  for (const auto& n : check_names(c))
    os << "| " << n << " | " << verdict_of(c.before, n) << " | " << verdict_of(c.after, n)
       << " |\n";
  for (const auto& r : figure_rows(c))
    os << "| " << r[0] << " | " << r[1] << " | " << r[2] << " |\n";
  if (c.first_difference) os << "\nFirst difference: phase " << *c.first_difference << ".\n";
  os << "\n<sub>" << rules(c.allow) << "</sub>\n";
  for (const auto& f : c.new_failures) {
    os << "\n<details><summary>" << f.name << ": " << markdown_escape(f.summary)
       << "</summary>\n\n```\n"
       << io::draw_check(f, collective_of(c)) << "```\n</details>\n";
  }
  return os.str();
}

nlohmann::ordered_json json_of(const Comparison& c) {
  nlohmann::ordered_json j;
  j["verdict"] = c.passed() ? "pass" : "fail";
  j["before"] = c.before.source;
  j["after"] = c.after.source;
  j["regressions"] = nlohmann::ordered_json::array();
  for (const auto& f : c.regressions)
    j["regressions"].push_back({{"kind", f.key}, {"what", f.text}, {"allowed", f.allowed}});
  j["improvements"] = c.improvements;
  nlohmann::ordered_json checks = nlohmann::ordered_json::object();
  for (const auto& n : check_names(c))
    checks[n] = {{"before", verdict_of(c.before, n)}, {"after", verdict_of(c.after, n)}};
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
  for (const auto& f : c.new_failures) {
    j["new_failures"].push_back(
        {{"check", f.name}, {"summary", f.summary}, {"text", io::draw_check(f, collective_of(c))}});
  }
  return j;
}

/// One <testsuite> per comparison: a test case per check and per figure.
std::string junit_suite(const std::string& name, const Comparison& c) {
  std::ostringstream cases;
  std::size_t tests = 0, failures = 0;
  const auto testcase = [&](const std::string& test, const std::string& failure) {
    ++tests;
    cases << "    <testcase classname=\"" << io::xml_escape(name) << "\" name=\""
          << io::xml_escape(test) << "\"";
    if (failure.empty()) {
      cases << "/>\n";
      return;
    }
    ++failures;
    cases << ">\n      <failure message=\"" << io::xml_escape(failure) << "\">"
          << io::xml_escape(failure) << "</failure>\n    </testcase>\n";
  };
  for (const auto& n : check_names(c)) {
    std::string failure;
    for (const auto& f : c.new_failures)
      if (f.name == n) failure = io::draw_check(f, collective_of(c));
    testcase("check " + n, failure);
  }
  for (const char* key : {"more-phases", "larger-c1", "larger-c2", "larger-gap"}) {
    std::string failure;
    for (const auto& f : c.regressions)
      if (f.key == key && !f.allowed) failure += (failure.empty() ? "" : "; ") + f.text;
    testcase(key, failure);
  }
  std::ostringstream os;
  os << "  <testsuite name=\"" << io::xml_escape(name) << "\" tests=\"" << tests << "\" failures=\""
     << failures << "\">\n"
     << cases.str() << "  </testsuite>\n";
  return os.str();
}

std::string junit(const std::vector<std::pair<std::string, Comparison>>& all) {
  std::ostringstream os;
  os << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"phasecheck\">\n";
  for (const auto& [name, c] : all) os << junit_suite(name, c);
  os << "</testsuites>\n";
  return os.str();
}

}  // namespace

int diff(const DiffArgs& args, std::ostream& out) {
  require_stdin_once({args.before, args.after, args.topology});
  const std::set<std::string> allow(args.allow.begin(), args.allow.end());
  std::optional<Topology> model;
  if (!args.topology.empty()) model = io::read_topology_file(args.topology);
  Side before = judge(io::read_schedule_file(args.before), input_name(args.before),
                      model ? &*model : nullptr);
  Side after =
      judge(io::read_schedule_file(args.after), input_name(args.after), model ? &*model : nullptr);
  const Comparison c = compare(std::move(before), std::move(after), allow);
  if (args.report == "text") out << text_report(c);
  if (args.report == "markdown") out << markdown_report(c);
  if (args.report == "json") out << json_of(c).dump(2) << "\n";
  if (args.report == "junit") out << junit({{"diff", c}});
  return c.passed() ? 0 : 1;
}

int gate(const GateArgs& args, std::ostream& out) {
  const std::set<std::string> allow(args.allow.begin(), args.allow.end());
  const io::GateManifest manifest = io::read_gate_manifest(args.manifest);
  std::vector<std::pair<std::string, Comparison>> results;
  std::vector<std::optional<io::Figures>> new_figures;
  std::vector<std::pair<std::string, std::string>> new_baselines;  // path, schedule JSON
  check_timeout(args.timeout);
  const launch::ScratchDirectory scratch;  // the external generators' files
  ProgressMeter meter(terminal_stderr(), "gate " + args.manifest, "cases", manifest.cases.size());
  for (const io::GateCase& g : manifest.cases) {
    meter.note(g.name);
    // Every problem of a case names the manifest and the case.
    try {
      const Topology model = io::read_topology_file(g.topology);
      Schedule s;
      if (!g.algorithm.empty()) {
        s = schedules::generate(schedules::require_algorithm(g.algorithm), model, g.parameters);
      } else if (!g.generator.empty()) {
        std::string problem;
        // The command runs in the manifest's directory, like its relative paths.
        const std::string dir = std::filesystem::absolute(args.manifest).parent_path().string();
        auto got = properties::run_generator({g.generator, dir, args.timeout}, model,
                                             scratch.path(), problem);
        if (!got)
          throw InputError(problem.empty() ? "the generator does not take this machine" : problem);
        s = std::move(*got);
      } else {
        s = io::read_schedule_file(g.schedule);
      }
      Side after = judge(std::move(s), g.name, &model);
      Side before;
      if (g.baseline_figures) {
        before.source = "baseline";
        before.figures = *g.baseline_figures;
        before.bound_c1 = after.bound_c1;
        before.bound_c2 = after.bound_c2;
      } else {
        before = judge(io::read_schedule_file(g.baseline), g.baseline, &model);
      }
      Comparison c = compare(std::move(before), std::move(after), allow);
      // A baseline is only ever replaced by a schedule that passes its checks.
      const bool acceptable = c.after.report->verdict() == Verdict::pass;
      if (args.update && !acceptable) {
        new_figures.push_back(std::nullopt);
      } else if (args.update) {
        if (g.baseline_figures) {
          new_figures.push_back(c.after.figures);
        } else {
          new_figures.push_back(std::nullopt);
          new_baselines.push_back({g.baseline, io::schedule_to_json(*c.after.table)});
        }
      }
      results.push_back({g.name, std::move(c)});
    } catch (const InputError& e) {
      meter.finish();
      throw InputError(args.manifest + ": case '" + g.name + "': " + e.what());
    }
    meter.advance();
  }
  meter.finish();
  // Written only once every case has run: a bad case leaves every baseline as it was.
  for (const auto& [path, text] : new_baselines)
    write_output(path, [&](std::ostream& os) { os << text; }, {args.manifest});
  if (args.update) io::update_gate_figures(args.manifest, new_figures);

  std::size_t failed = 0;
  for (const auto& [name, c] : results) failed += !c.passed();
  if (args.report == "junit") {
    out << junit(results);
  } else if (args.report == "json") {
    nlohmann::ordered_json j;
    j["verdict"] = failed ? "fail" : "pass";
    j["manifest"] = args.manifest;
    j["cases"] = nlohmann::ordered_json::array();
    for (const auto& [name, c] : results) {
      auto one = json_of(c);
      one["name"] = name;
      j["cases"].push_back(std::move(one));
    }
    out << j.dump(2) << "\n";
  } else {
    const bool md = args.report == "markdown";
    const std::string verdict =
        std::string(failed ? "FAIL" : "PASS") + "  gate " + args.manifest + ": " +
        std::to_string(results.size() - failed) + " of " + std::to_string(results.size()) +
        " cases pass" + (args.update ? " (baselines of the passing schedules updated)" : "");
    out << (md ? "### " + std::string(failed ? "❌ " : "✅ ") : "") << verdict << "\n\n";
    if (md)
      out << "| case | verdict | phases (baseline) | C2 (baseline) | bound C1 / C2 | note |\n"
             "|---|---|---|---|---|---|\n";
    Table table({"case", "verdict", "phases (baseline)", "C2 (baseline)", "bound C1 / C2", "note"});
    for (const auto& [name, c] : results) {
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
        table.add(row);
      }
    }
    if (!md) table.print(out);
    for (const auto& [name, c] : results)
      if (!c.passed()) {
        if (md)
          out << "\n<details><summary>" << markdown_escape(name) << "</summary>\n\n"
              << markdown_report(c) << "\n</details>\n";
        else
          out << "\n" << name << ":\n" << text_report(c);
      }
  }
  return failed ? 1 : 0;
}

}  // namespace phasecheck::cli
