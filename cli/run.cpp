// `phasecheck run`, `phasecheck simulate` and `phasecheck whatif experiment`: a schedule's
// per-rank programs executed by phasecheck-runner (runner/runner.cpp) under Open MPI's mpirun on
// this machine, or under SimGrid's smpirun on a simulated network built from a tree topology
// (docs/run.md); and Faraj & Yuan's Section 6 experiment, many such simulations. The runs are
// experiments/mpi_run.hpp and experiments/faraj_yuan_experiment.hpp, their reports
// report/run_report.hpp. Also `import simgrid-trace`.

#include <algorithm>
#include <cmath>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/progress.hpp"
#include "experiments/faraj_yuan_experiment.hpp"
#include "experiments/mpi_run.hpp"
#include "io/json.hpp"
#include "io/simgrid_trace.hpp"
#include "programs/synchronization.hpp"
#include "report/run_report.hpp"
#include "report/svg_plot.hpp"
#include "report/table.hpp"
#include "report/transfer_report.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

void check_common(std::uint64_t bytes, unsigned repeats, double timeout) {
  if (bytes < 1 || bytes > (1u << 26))
    throw InputError("--bytes must be in [1, 67108864] (bytes per message)");
  if (repeats < 1 || repeats > 1000) throw InputError("--repeats must be in [1, 1000]");
  check_timeout(timeout);
}

/// "100Mbps", "1Gbps", "12.5MBps", "10us": SimGrid's own units, checked here so that a typo is
/// exit 2; returns the value in the base unit (bytes per second, seconds).
double quantity(const std::string& s, const char* what,
                const std::vector<std::pair<std::string, double>>& units) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = s.substr(used);
  for (const auto& [name, scale] : units)
    if (used > 0 && unit == name && v > 0 && std::isfinite(v)) return v * scale;
  std::string known;
  for (const auto& u : units) known += (known.empty() ? "" : ", ") + u.first;
  throw InputError(std::string(what) + " '" + s + "': a positive number with a unit (" + known +
                   ")");
}

double bandwidth_of(const std::string& s) {
  return quantity(s, "--bandwidth",
                  {{"bps", 1 / 8.},
                   {"kbps", 1e3 / 8},
                   {"Mbps", 1e6 / 8},
                   {"Gbps", 1e9 / 8},
                   {"Bps", 1},
                   {"kBps", 1e3},
                   {"MBps", 1e6},
                   {"GBps", 1e9}});
}

void check_latency(const std::string& s) {
  quantity(s, "--latency", {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}});
}

/// Pair-wise synchronization is computed for at most kMaxSyncRanks ranks: refused from the
/// header, before the table is read and verified.
void check_pairwise(const ScheduleHeader& h, const std::string& sync, const std::string& command) {
  if (sync == "pairwise")
    check_ranks(h.ranks(), programs::kMaxSyncRanks, command + " --sync pairwise",
                "--sync barrier or none works up to " +
                    std::to_string(experiments::kMaxRunRanks) + " ranks");
}

}  // namespace

int run(const RunArgs& args, std::ostream& out) {
  check_common(args.bytes, args.repeats, args.timeout);
  // The machine's size first, from the header: before the phases are read and verified.
  const auto check_size = [&](const ScheduleHeader& h) {
    const Rank ranks = h.ranks();
    if (args.np != 0 && args.np != ranks)
      throw InputError("--np " + std::to_string(args.np) + ": the schedule has " +
                       std::to_string(ranks) + " ranks");
    if (ranks < 2 || ranks > experiments::kMaxRunRanks)
      throw InputError("run: 2 to " + std::to_string(experiments::kMaxRunRanks) +
                       " ranks on this machine");
    check_pairwise(h, args.sync, "run");
    experiments::check_run_volume(ranks, args.bytes);
  };
  const Schedule schedule = experiments::read_runnable(args.schedule, args.bytes, check_size);
  const experiments::RunOutcome o =
      experiments::run_on_open_mpi(schedule, {.source = args.schedule,
                                              .sync = args.sync,
                                              .bytes = args.bytes,
                                              .repeats = args.repeats,
                                              .timeout = args.timeout,
                                              .claims = schedules::claims_for(schedule.header)});
  out << (args.report == "json" ? reports::json_text(reports::run_json(o)) : reports::run_text(o));
  return o.ok() ? 0 : 1;
}

int simulate(const SimulateArgs& args, std::ostream& out) {
  check_common(args.bytes, args.repeats, args.timeout);
  require_stdin_once({args.schedule, args.topology});
  Topology model = io::read_topology_file(args.topology);
  const auto* tree = std::get_if<Tree>(&model);
  if (!tree) throw InputError(input_name(args.topology) + ": simulate needs a tree topology");
  with_source(args.topology, [&] { experiments::check_simulated_tree(*tree, "simulate"); });
  const double bytes_per_second = bandwidth_of(args.bandwidth);
  check_latency(args.latency);
  experiments::check_run_volume(tree->ranks(), args.bytes);
  const double peak = tree->peak_throughput_factor() * bytes_per_second;
  // The schedule's size from its header, before its phases are read.
  const Schedule schedule =
      experiments::read_runnable(args.schedule, args.bytes, [&](const ScheduleHeader& h) {
        if (h.ranks() != tree->ranks())
          throw InputError("the schedule has " + std::to_string(h.ranks()) + " ranks but " +
                           describe(model) + " has " + std::to_string(tree->ranks()));
        check_pairwise(h, args.sync, "simulate");
      });
  const experiments::RunOutcome o = experiments::simulate_on_simgrid(
      schedule, {.model = std::move(model),
                 .source = args.schedule,
                 .sync = args.sync,
                 .bandwidth = args.bandwidth,
                 .latency = args.latency,
                 .peak_bytes_per_second = peak,
                 .bytes = args.bytes,
                 .repeats = args.repeats,
                 .library = args.library,
                 .trace = args.trace,
                 .timeout = args.timeout,
                 .claims = schedules::claims_for(schedule.header)});
  out << (args.report == "json" ? reports::json_text(reports::simulate_json(o))
                                : reports::run_text(o));
  return o.ok() ? 0 : 1;
}

int whatif_experiment(const WhatIfArgs& args, reports::TableFormat format, std::ostream& out) {
  if (args.paper != "faraj-yuan")
    throw InputError("whatif experiment: --paper must be faraj-yuan (the one reproduced so far)");
  experiments::FarajYuanQuestion q;
  q.bandwidth = args.bandwidth;
  q.latency = args.latency;
  q.bytes_per_second = bandwidth_of(args.bandwidth);
  check_latency(args.latency);
  check_timeout(args.timeout);
  q.timeout = args.timeout;
  std::vector<std::string> files = args.topologies;
  if (files.empty())
    for (const char* name : {"faraj-yuan-24", "faraj-yuan-32-star", "faraj-yuan-32-chain"})
      files.push_back(std::string(PHASECHECK_EXAMPLES_DIR) + "/" + name + "/topology.json");
  q.sizes = args.bytes;
  for (const unsigned kb : args.message_kb) q.sizes.push_back(std::uint64_t{kb} * 1024);
  if (q.sizes.empty())
    for (const std::uint64_t kb : {8, 16, 32, 64, 128, 256}) q.sizes.push_back(kb * 1024);
  for (const std::uint64_t b : q.sizes)
    if (b < 1 || b > 64 * 1024 * 1024)
      throw InputError("whatif experiment: --bytes must be in [1, 64MiB], not " +
                       std::to_string(b));
  // Every machine is read and checked before the first (long) simulation, and so is every plot's
  // name: the machine's, "-throughput.svg".
  q.machines = experiments::read_experiment_machines(
      files, *std::max_element(q.sizes.begin(), q.sizes.end()));
  const auto plot = [&](const experiments::ExperimentMachine& m) {
    return args.out_dir + "/" + m.name + "-throughput.svg";
  };
  if (!args.out_dir.empty())
    for (const auto& m : q.machines) check_output(plot(m), files);
  // Text: one table per machine, sizes across, each as soon as it is done. JSON and CSV: one row
  // per machine, contender and size; milliseconds null where the run failed, with the reason in
  // "status".
  const bool text = format == reports::TableFormat::text;
  if (text) out << reports::faraj_yuan_heading(q);
  const TableReport report = experiments::faraj_yuan_experiment(
      q, terminal_stderr(), [&](const experiments::FarajYuanMachine& m) {
        if (text) out << reports::faraj_yuan_machine_text(m);
        if (args.out_dir.empty()) return;
        const std::string svg = plot(m.machine);
        const Tree& tree = std::get<Tree>(m.machine.model);
        write_output(
            svg,
            [&](std::ostream& os) {
              os << reports::throughput_svg(
                  m.machine.name + ": " + describe(m.machine.model) + ", " + args.bandwidth,
                  q.sizes, m.series, tree.peak_throughput_factor() * q.bytes_per_second / 1e6);
            },
            files);
        if (text) out << "  plot: " << svg << "\n";
      });
  if (!text) out << reports::render(report, format);
  return report.verdict == verify::Verdict::pass ? 0 : 1;
}

int import_trace(const ImportArgs& args, std::ostream& out) {
  if (args.format != "simgrid-trace")
    throw InputError("import: unknown format '" + args.format + "' (known: simgrid-trace)");
  const reports::ReportFormat format = data_command_report(args.report, args.output, "import");
  require_stdin_once({args.file, args.topology});
  if (!data_to_stdout(args.output)) check_output(args.output, {args.file, args.topology});
  const io::TraceImport trace = io::read_simgrid_trace(args.file, args.state, args.call);
  const Topology model = args.topology.empty() ? Topology(FullyConnected(trace.ranks, 1))
                                               : io::read_topology_file(args.topology);
  if (ranks(model) != trace.ranks)
    throw InputError(input_name(args.file) + " has " + std::to_string(trace.ranks) +
                     " ranks, but " + input_name(args.topology) + " has " +
                     std::to_string(ranks(model)));
  const Schedule table = io::trace_schedule(trace, model, parse_collective(args.collective));
  if (data_to_stdout(args.output)) {
    out << io::schedule_to_json(table);
    return 0;
  }
  write_output(args.output, [&](std::ostream& os) { os << io::schedule_to_json(table); },
               {args.file, args.topology});
  out << reports::render_trace_import({input_name(args.file), args.output, describe(model),
                                       args.call, trace, io::coverage(trace), table.phases.size()},
                                      format);
  return 0;
}

}  // namespace phasecheck::cli
