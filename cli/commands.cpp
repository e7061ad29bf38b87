// The commands that read a schedule or a machine and answer one question: `algorithms`,
// `generate`, `verify`, `cost`, `sync`, `program`, `congestion`, `mutate`, `topology`, `bounds`,
// `survey`. Each parses its options, calls one library function (verify/, programs/,
// experiments/, properties/) and hands the result to a renderer of report/.

#include "cli/commands.hpp"

#include <cmath>
#include <optional>

#include "cli/draw.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/networks.hpp"
#include "core/progress.hpp"
#include "core/suggest.hpp"
#include "distributed/processes.hpp"
#include "pipeline/check.hpp"
#include "experiments/machine_bounds.hpp"
#include "experiments/survey.hpp"
#include "io/json.hpp"
#include "io/programs_json.hpp"
#include "io/schedule_binary.hpp"
#include "mutate.hpp"
#include "pipeline/read_schedule.hpp"
#include "programs/checked_plan.hpp"
#include "programs/checked_programs.hpp"
#include "report/algorithms_report.hpp"
#include "report/bounds_report.hpp"
#include "report/congestion_report.hpp"
#include "report/fuzz_report.hpp"
#include "report/mutate_report.hpp"
#include "report/programs_report.hpp"
#include "report/survey_report.hpp"
#include "report/table.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"
#include "verify/congestion_check.hpp"
#include "verify/cost.hpp"
#include "verify/parallel.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {
namespace {

/// Runs `f`, which asks an algorithm for its schedule on the machine of the topology file `path`:
/// the algorithm's refusal (the machine is not its kind, a parameter is out of range for it, the
/// memory limit) names the file, as every other bad input does.
template <class F>
decltype(auto) on_machine_of(const std::string& path, F&& f) {
  return with_source(path, std::forward<F>(f));
}

}  // namespace

int list_algorithms(const std::string& report, std::ostream& out) {
  const reports::TableFormat format = reports::parse_table_format(report, "algorithms");
  std::vector<reports::AlgorithmListing> listings;
  for (const auto& a : schedules::algorithms())
    listings.push_back({std::string(a.name), std::string(a.summary), std::string(a.reference),
                        schedules::parameter_summary(a), a.parameter_specs});
  out << reports::render_algorithms(listings, format);
  return 0;
}

int generate(const GenerateArgs& args, std::ostream& out) {
  const auto& algorithm = schedules::require_algorithm(args.algorithm);
  if (args.format != "json" && args.format != "binary")
    throw InputError("generate: " + unknown_name("format", args.format, {"json", "binary"}));
  const bool binary = args.format == "binary";
  if (binary && args.buffers)
    throw InputError(
        "generate: --buffers writes JSON (format 3); --format binary carries phase "
        "tables only");
  if (!args.output.empty()) check_output(args.output, {args.topology});
  const Topology machine = io::read_topology_file(args.topology);
  const Parameters parameters = Parameters::parse(args.set);
  const ScheduleHeader header = on_machine_of(
      args.topology, [&] { return schedules::make_header(algorithm, machine, parameters); });
  // A buffer program is made from the whole table (where each relayed block waits depends on its
  // last use), so both are held: refused before generating when they cannot fit.
  if (args.buffers)
    on_machine_of(args.topology, [&] {
      check_memory(checked_mul(held_table_bytes(header), 2),
                   "generate --buffers on " + std::to_string(header.ranks()) +
                       " ranks (the whole table and its program are held; without --buffers the "
                       "table is streamed)");
    });
  const auto emit = [&](std::ostream& os) {
    if (binary) {
      io::BinaryScheduleWriter writer(os, header);
      on_machine_of(args.topology, [&] { algorithm.generate(header, writer.sink()); });
      writer.finish();
      return;
    }
    if (args.buffers) {
      const Schedule program = on_machine_of(
          args.topology, [&] { return schedules::generate_program(algorithm, header); });
      io::ScheduleWriter writer(os, program.header);
      for (const Phase& p : program.phases) writer.phase(p);
      writer.finish();
      return;
    }
    io::ScheduleWriter writer(os, header);
    on_machine_of(args.topology, [&] { algorithm.generate(header, writer.sink()); });
    writer.finish();
  };
  if (args.output.empty())
    emit(out);
  else
    write_output(args.output, emit, {args.topology});
  return 0;
}

namespace {

using verify::Verdict;

/// How `verify` and `check` spread their work: over this process's threads and, under mpirun,
/// over the MPI processes (distributed/processes.hpp; there one thread each unless --threads
/// says otherwise: the processes are the spread). The progress line is process 0's.
pipeline::Spread spread(unsigned threads) {
  const distributed::Processes& processes = distributed::Processes::get();
  pipeline::Spread s;
  s.threads = threads != 0 ? threads : processes.spread() ? 1 : verify::default_threads();
  s.share = processes.share();
  if (processes.spread())
    s.gather = [&processes](const verify::Verifier::Partial& mine) {
      return processes.gather(mine);
    };
  s.progress = processes.rank() == 0 ? terminal_stderr() : nullptr;
  return s;
}

/// The text on `out`, or in the file `output` (which must not be one of `inputs`).
void emit(const std::string& text, const std::string& output, std::ostream& out,
          const std::vector<std::string>& inputs) {
  if (output.empty())
    out << text;
  else
    write_output(output, [&](std::ostream& os) { os << text; }, inputs);
}

}  // namespace

int verify(const VerifyArgs& args, std::ostream& out, std::ostream& err) {
  const reports::ReportFormat format = reports::parse_report_format(args.report);
  if (!args.output.empty()) check_output(args.output, {args.schedule, args.topology});
  if (!args.svg.empty()) {
    if (args.svg == "-" && (args.output.empty() || args.output == "-"))
      throw InputError(
          "verify: --svg - and the report would both go to standard output: give -o FILE");
    if (args.svg == args.output && args.svg != "-")
      throw InputError("verify: --svg and -o name the same file, " + args.svg);
    check_output(args.svg, {args.schedule, args.topology});
  }
  require_stdin_once({args.schedule, args.topology});
  const distributed::Processes& processes = distributed::Processes::get();
  if (processes.spread() && (args.schedule == "-" || args.topology == "-"))
    throw InputError("verify under mpirun reads its files in every process: give a file, not -");
  const pipeline::Verified v =
      pipeline::verify_file(args.schedule, args.topology, spread(args.threads));
  int code = 0;
  if (v.report) {  // process 0
    emit(reports::render(*v.report, v.source, format), args.output, out,
         {args.schedule, args.topology});
    if (!args.svg.empty())
      draw_failure(args.svg, *v.report, v.header, args.schedule, {args.schedule, args.topology},
                   err);
    code = v.report->verdict() == Verdict::pass ? 0 : 1;
  }
  return processes.agree(code);
}

int check(const CheckArgs& args, std::ostream& out) {
  const reports::ReportFormat format = reports::parse_report_format(args.report);
  const auto& algorithm = schedules::require_algorithm(args.algorithm);
  if (!args.output.empty()) check_output(args.output, {args.topology});
  const distributed::Processes& processes = distributed::Processes::get();
  if (processes.spread() && args.topology == "-")
    throw InputError("check under mpirun reads the topology in every process: give a file, not -");
  const Topology machine = io::read_topology_file(args.topology);
  const Parameters parameters = Parameters::parse(args.set);
  const auto report = on_machine_of(args.topology, [&] {
    return pipeline::check_algorithm(algorithm, machine, parameters, spread(args.threads));
  });
  int code = 0;
  if (report) {  // process 0
    emit(reports::render(*report, args.algorithm + " on " + input_name(args.topology), format),
         args.output, out, {args.topology});
    code = report->verdict() == Verdict::pass ? 0 : 1;
  }
  return processes.agree(code);
}

int sync(const SyncArgs& args, std::ostream& out) {
  require_stdin_once({args.schedule, args.topology});
  // The dependence graph needs the whole table (at most kMaxSyncRanks ranks): read it once.
  const Schedule table = pipeline::read_schedule_file(args.schedule, [](const ScheduleHeader& h) {
    check_ranks(h.ranks(), programs::kMaxSyncRanks, "sync", "");
  });
  const Topology model =
      args.topology.empty() ? table.header.topology : io::read_topology_file(args.topology);
  const std::string source = input_name(args.schedule);
  const programs::CheckedPlan checked = programs::check_synchronization_plan(
      table, model, schedules::claims_for(table.header), source);
  if (args.report == "json")
    out << reports::json_text(reports::sync_json(checked, source, args.list));
  else
    out << reports::sync_text(checked, source, args.list);
  return checked.ok() ? 0 : 1;
}

int program(const ProgramArgs& args, std::ostream& out) {
  const programs::Separation separation = programs::parse_separation(args.sync);
  if (!args.output.empty()) check_output(args.output, {args.schedule});
  const Schedule table = pipeline::read_schedule_file(args.schedule, [&](const ScheduleHeader& h) {
    if (separation == programs::Separation::pairwise)
      check_ranks(h.ranks(), programs::kMaxSyncRanks, "program --sync pairwise",
                  "--sync barrier works on any size");
  });
  const std::string source = input_name(args.schedule);
  const programs::CheckedPrograms checked = with_source(source, [&] {
    return programs::check_programs(table, separation, schedules::claims_for(table.header),
                                    args.ranks);
  });
  if (!args.output.empty())
    write_output(args.output,
                 [&](std::ostream& os) {
                   io::write_programs_json(os, checked.programs, table, source, separation);
                 },
                 {args.schedule});
  if (args.report == "json")
    out << reports::json_text(reports::program_json(checked, source));
  else
    out << reports::program_text(checked, source);
  return checked.ok() ? 0 : 1;
}

int congestion(const CongestionArgs& args, std::ostream& out) {
  require_stdin_once({args.schedule, args.topology});
  const reports::TableFormat format = reports::parse_table_format(args.report, "congestion");
  if (format == reports::TableFormat::csv && !args.phases)
    throw InputError("congestion --report csv is the table of --phases: add --phases");
  std::optional<Topology> what_if;
  if (!args.topology.empty()) what_if = io::read_topology_file(args.topology);
  const std::string source = input_name(args.schedule);
  ScheduleHeader header;
  std::optional<verify::CongestionCheck> check;
  pipeline::read_schedule_file(
      args.schedule,
      [&](const ScheduleHeader& h) {
        header = h;
        with_source(source, [&] {
          check.emplace(header, what_if ? *what_if : header.topology, schedules::claims_for(header),
                        args.phases);
        });
      },
      [&](const Phase& p) { check->consume(p); });
  const verify::CongestionSummary summary = check->finish();
  out << reports::render_congestion(summary, what_if ? *what_if : header.topology, source,
                                    args.phases, format);
  return summary.delivered ? 0 : 1;
}

int mutate(const MutateArgs& args, std::ostream& out) {
  require_stdin_once({args.schedule, args.topology});
  if (args.per_class < 1 || args.per_class > properties::kMaxMutantsPerClass)
    throw InputError("--per-class must be in [1, " +
                     std::to_string(properties::kMaxMutantsPerClass) + "]");
  const Schedule table = pipeline::read_schedule_file(args.schedule, [](const ScheduleHeader& h) {
    check_ranks(h.ranks(), properties::kMaxMutateRanks, "mutate",
                "each mutant is re-simulated naively; `verify` checks any size");
  });
  const Topology model =
      args.topology.empty() ? table.header.topology : io::read_topology_file(args.topology);
  if (ranks(model) != table.header.ranks())
    throw InputError("the schedule has " + std::to_string(table.header.ranks()) + " ranks but " +
                     describe(model) + " has " + std::to_string(ranks(model)));
  reports::MutationRun run{input_name(args.schedule),
                           table.header.algorithm,
                           describe(model),
                           args.seed,
                           args.per_class,
                           properties::mutate(table, model, args.per_class, args.seed)};
  run.perfect = run.report.perfect();
  if (args.report == "json")
    out << reports::json_text(reports::mutation_json(run));
  else
    out << reports::mutation_text(run);
  return run.perfect ? 0 : 1;
}

int topology(const TopologyArgs& args, std::ostream& out) {
  emit(io::topology_to_pretty_json(build_network(args.kind, args.options)), args.output, out, {});
  return 0;
}

int cost(const CostArgs& args, std::ostream& out) {
  if (args.bytes == 0 && args.m_alias == 0)
    throw InputError("cost: --bytes is required (the message size in bytes: 4096, 4KiB, 1MiB)");
  const verify::LinearCost model{args.ts, args.tw, args.bytes ? double(args.bytes) : args.m_alias};
  model.validate();
  const reports::ReportFormat format = reports::parse_report_format(args.report);
  if (format == reports::ReportFormat::junit) throw InputError("cost reports are text or json");
  if (!args.output.empty()) check_output(args.output, {args.schedule, args.topology});
  require_stdin_once({args.schedule, args.topology});
  const pipeline::Verified v = pipeline::verify_file(args.schedule, args.topology);
  const verify::Report& report = *v.report;  // one process, so the report is here
  const verify::CostReport c = verify::cost(report, v.claims, model);
  emit(reports::render_cost(c, report, v.source, format), args.output, out,
       {args.schedule, args.topology});
  return report.verdict() == Verdict::pass && c.consistent() ? 0 : 1;
}

int bounds(const BoundsArgs& args, std::ostream& out) {
  if (args.bandwidth < 0 || !std::isfinite(args.bandwidth))
    throw InputError("--bandwidth must be a positive number of bytes per second");
  const reports::TableFormat format = reports::parse_table_format(args.report, "bounds");
  const Topology model = io::read_topology_file(args.topology);
  out << reports::render_bounds(
      experiments::machine_bounds(model, parse_collective(args.collective), args.bandwidth),
      format);
  return 0;
}

int survey(const SurveyArgs& args, std::ostream& out) {
  const reports::TableFormat format = reports::parse_table_format(args.report, "survey");
  const experiments::Survey result = experiments::survey(args.topologies);
  out << reports::render_survey(result, format);
  return result.broken ? 1 : 0;
}

int fuzz(const properties::FuzzOptions& options, const std::string& report, std::ostream& out,
         std::ostream& progress) {
  if (report != "text" && report != "json")
    throw InputError("fuzz: " + unknown_name("report format", report, {"text", "json"}));
  // Text is printed as each algorithm finishes; JSON is one document at the end.
  const bool json = report == "json";
  std::vector<properties::FuzzOutcome> outcomes;
  const Verdict verdict = properties::fuzz(options, progress, reports::fuzz_case_report,
                                           [&](const properties::FuzzOutcome& o) {
                                             if (json)
                                               outcomes.push_back(o);
                                             else
                                               out << reports::fuzz_outcome_text(o) << std::flush;
                                           });
  out << (json ? reports::fuzz_json(options, verdict, outcomes)
               : reports::fuzz_verdict_text(verdict));
  return verdict == Verdict::pass ? 0 : 1;
}

}  // namespace phasecheck::cli
