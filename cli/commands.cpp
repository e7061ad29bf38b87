#include "cli/commands.hpp"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/table.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "io/json.hpp"
#include "io/report.hpp"
#include "schedules/registry.hpp"
#include "verify/bounds.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {
namespace {

using verify::Verdict;

const schedules::Algorithm& require_algorithm(const std::string& name) {
  if (const auto* a = schedules::find_algorithm(name)) return *a;
  std::string names;
  for (const auto& a : schedules::algorithms())
    names += (names.empty() ? "" : ", ") + std::string(a.name);
  throw InputError("unknown algorithm '" + name + "' (known: " + names + ")");
}

/// The checks a registered algorithm asks for: its invariants and claimed phase count.
Claims claims_for(const ScheduleHeader& header) {
  if (const auto* a = schedules::find_algorithm(header.algorithm)) return a->claims(header);
  return {};
}

}  // namespace

int list_algorithms(std::ostream& out) {
  Table table({"algorithm", "parameters", "summary", "reference"});
  for (const auto& a : schedules::algorithms())
    table.add({std::string(a.name), std::string(a.parameters), std::string(a.summary),
               std::string(a.reference)});
  table.print(out);
  return 0;
}

int generate(const GenerateArgs& args, std::ostream& out) {
  const auto& algorithm = require_algorithm(args.algorithm);
  const ScheduleHeader header = schedules::make_header(
      algorithm, io::read_topology_file(args.topology), Parameters::parse(args.set));
  const auto emit = [&](std::ostream& os) {
    io::ScheduleWriter writer(os, header);
    algorithm.generate(header, writer.sink());
    writer.finish();
  };
  if (args.output.empty() || args.output == "-")
    emit(out);
  else
    write_file_atomically(args.output, emit);
  return 0;
}

int verify(const VerifyArgs& args, std::ostream& out) {
  const io::ReportFormat format = io::parse_report_format(args.report);
  std::optional<Topology> what_if;
  if (!args.topology.empty()) what_if = io::read_topology_file(args.topology);

  ScheduleHeader header;
  std::optional<verify::Verifier> verifier;
  const bool from_stdin = args.schedule == "-";
  const std::string source = from_stdin ? "<stdin>" : args.schedule;
  const auto read = [&](const auto& on_header, const auto& on_phase) {
    if (from_stdin)
      io::read_schedule(std::cin, source, on_header, on_phase);
    else
      io::read_schedule_file(args.schedule, on_header, on_phase);
  };
  read(
      [&](const ScheduleHeader& h) {
        header = h;
        try {
          verifier.emplace(header, what_if ? *what_if : header.topology, claims_for(header));
        } catch (const InputError& e) {
          throw InputError(source + ": " + e.what());
        }
      },
      [&](const Phase& p) { verifier->consume(p); });
  const verify::Report report = verifier->finish();
  const std::string text = io::render(report, source, format);
  if (args.output.empty())
    out << text;
  else
    write_file_atomically(args.output, [&](std::ostream& os) { os << text; });
  return report.verdict() == Verdict::pass ? 0 : 1;
}

int bounds(const BoundsArgs& args, std::ostream& out) {
  const Topology model = io::read_topology_file(args.topology);
  const Collective collective = parse_collective(args.collective);
  const auto all = verify::lower_bounds(model, collective);
  out << "lower bounds for " << collective << " on " << describe(model) << " (" << ranks(model)
      << " ranks)\n";
  Table table({"  bound", "applies to", "argument"});
  for (const auto& b : all)
    table.add({"  " + std::string(to_string(b.metric)) + " >= " + std::to_string(b.value),
               b.direct_only ? "direct" : "any", b.argument});
  table.print(out);
  const auto direct = verify::best_bounds(all, true).first;
  const auto [f1, f2] = verify::best_bounds(all, false);
  out << "direct schedules need at least " << direct << " phases with communication; with "
      << "forwarding C1 >= " << f1 << " and C2 >= " << f2 << "\n";
  return 0;
}

int survey(const std::vector<std::string>& topologies, std::ostream& out) {
  Table table({"example", "model", "algorithm", "verdict", "phases", "bound", "gap", "claims"});
  bool broken = false;
  for (const std::string& path : topologies) {
    const Topology model = io::read_topology_file(path);
    const std::filesystem::path p(path);
    const std::string name =
        p.filename() == "topology.json" ? p.parent_path().filename().string() : p.stem().string();
    for (const auto& algorithm : schedules::algorithms()) {
      std::vector<std::string> row{name, describe(model), std::string(algorithm.name)};
      ScheduleHeader header;
      std::optional<verify::Report> report;
      try {
        header = schedules::make_header(algorithm, model, {});
        verify::Verifier v(header, header.topology, claims_for(header));
        algorithm.generate(header, v.sink());
        report = v.finish();
      } catch (const InputError& e) {
        row.insert(row.end(), {"n/a", "", "", "", e.what()});
        table.add(std::move(row));
        continue;
      }
      const bool claimed = algorithm.contention_free_on(header, model);
      std::string failed, verdict = "pass";
      for (const auto& c : report->checks)
        if (c.verdict != Verdict::pass) failed += (failed.empty() ? "" : ",") + c.name;
      if (!failed.empty()) verdict = "FAIL " + failed;
      const bool ok = report->broken_claims(claimed).empty();
      broken |= !ok;
      const bool valid = report->verdict() == Verdict::pass;
      row.insert(
          row.end(),
          {verdict, std::to_string(report->counts.phases), std::to_string(report->bound_c1),
           valid ? std::to_string(report->counts.c1 - report->bound_c1) : "-",
           std::string(ok ? "kept" : "BROKEN") + (claimed ? " (contention-free claimed)" : "")});
      table.add(std::move(row));
    }
  }
  table.print(out);
  out << "\nphases = phases in the table; bound = lower bound on phases with communication for a "
         "direct schedule; gap = phases with communication - bound (valid schedules only)\n";
  if (broken) out << "\nSome algorithm broke one of its claims (marked BROKEN).\n";
  return broken ? 1 : 0;
}

}  // namespace phasecheck::cli
