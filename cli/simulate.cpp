// `phasecheck simulate SCHEDULE --topology TREE`: the schedule's per-rank programs under
// SimGrid's smpirun on a platform built from the tree (experiments/mpi_run.hpp, docs/run.md):
// simulated time and aggregate throughput against the peak bound; rendered by
// report/run_report.hpp.

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "experiments/faraj_yuan_experiment.hpp"
#include "experiments/mpi_run.hpp"
#include "io/json.hpp"
#include "report/run_report.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string schedule, topology;  ///< topology: a tree, the simulated network
  std::string bandwidth = "100Mbps", latency = "10us";
  std::uint64_t bytes = 65536;
  std::string sync = "barrier";
  std::string library;  ///< SimGrid's alltoall algorithm to compare with; empty: its default
  unsigned repeats = 3;
  double timeout = 600;
  std::string trace;  ///< write SimGrid's Paje trace here (for `import simgrid-trace`)
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedule", options.schedule, "Schedule JSON file")->required();
  app.add_option("--topology", options.topology, "Tree topology JSON file (the network)")
      ->required();
  app.add_option("--bandwidth", options.bandwidth, "Link bandwidth (default 100Mbps)");
  app.add_option("--latency", options.latency, "Link latency (default 10us)");
  bytes_option(app.add_option("--bytes", options.bytes,
                              "Bytes per message: 4096, 4KiB, 1MiB (default 64KiB)"));
  app.add_option("--sync", options.sync, "Phase separation (default barrier)")
      ->check(one_of({"none", "barrier", "pairwise"}));
  app.add_option("--library", options.library,
                 "SimGrid's implementation of the schedule's collective to compare with "
                 "(alltoall: basic_linear, pair, ring, bruck, ompi, mpich, ...; allgather: "
                 "ring, rdb, pair, bruck, ompi_neighborexchange, ...; default: SimGrid's)");
  app.add_option("--repeats", options.repeats, "Calls to time (default 3)")->check(natural());
  app.add_option("--timeout", options.timeout, "Seconds before smpirun is stopped (default 600)");
  app.add_option("--trace", options.trace,
                 "Write SimGrid's Paje trace, internal messages of collectives included, "
                 "to this file (see `import simgrid-trace`)");
  app.add_option("--report", options.report, "Report format");
}

/// Exit 1 when any byte arrives wrong or not at all, or the throughput beats the peak bound.
int run(const Options& options, const Streams& streams) {
  check_run_options(options.bytes, options.repeats, options.timeout);
  require_stdin_once({options.schedule, options.topology});
  Topology model = io::read_topology_file(options.topology);
  const auto* tree = std::get_if<Tree>(&model);
  if (!tree) throw InputError(input_name(options.topology) + ": simulate needs a tree topology");
  with_source(options.topology, [&] { experiments::check_simulated_tree(*tree, "simulate"); });
  const double bytes_per_second = bandwidth_of(options.bandwidth);
  check_latency(options.latency);
  experiments::check_run_volume(tree->ranks(), options.bytes);
  const double peak = tree->peak_throughput_factor() * bytes_per_second;
  // The schedule's size from its header, before its phases are read.
  const Schedule schedule = experiments::read_runnable(
      options.schedule, options.bytes, [&](const ScheduleHeader& header) {
        if (header.ranks() != tree->ranks())
          throw InputError("the schedule has " + std::to_string(header.ranks()) + " ranks but " +
                           describe(model) + " has " + std::to_string(tree->ranks()));
        check_pairwise(header, options.sync, "simulate");
      });
  const experiments::RunOutcome outcome = experiments::simulate_on_simgrid(
      schedule, {.model = std::move(model),
                 .source = options.schedule,
                 .sync = options.sync,
                 .bandwidth = options.bandwidth,
                 .latency = options.latency,
                 .peak_bytes_per_second = peak,
                 .bytes = options.bytes,
                 .repeats = options.repeats,
                 .library = options.library,
                 .trace = options.trace,
                 .timeout = options.timeout,
                 .claims = schedules::claims_for(schedule.header)});
  streams.out << (options.report == reports::ReportFormat::json
                      ? reports::json_text(reports::simulate_json(outcome))
                      : reports::run_text(outcome));
  return outcome.ok() ? 0 : 1;
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.schedule}; }

constexpr CommandDefinition<Options> definition{
    .name = "simulate",
    .summary =
        "Execute a schedule's per-rank programs under SimGrid (smpirun) on a simulated "
        "network built from a tree topology; simulated time and aggregate throughput vs "
        "the peak bound",
    .formats = reports::run_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command simulate_command;
const Command simulate_command = definition;

}  // namespace phasecheck::cli
