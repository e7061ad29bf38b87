// `phasecheck check ALGORITHM --topology FILE`: `generate | verify` in one pass
// (experiments/check.hpp), the schedule never held; the report of report/verify_report.hpp.

#include "cli/checking.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "cli/traffic_option.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "distributed/processes.hpp"
#include "io/json.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string algorithm;
  std::string topology;          ///< topology file, or "-" for standard input
  std::vector<std::string> set;  ///< key=value parameters
  reports::ReportFormat report = reports::ReportFormat::text;
  std::string output;    ///< report file; empty for standard output
  unsigned threads = 0;  ///< 0: the machine's cores
  TrafficOption traffic;  ///< an alltoallv's matrix
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("algorithm", options.algorithm, "Algorithm name (see `algorithms`)")->required();
  app.add_option("--topology", options.topology, "Topology JSON file (- for standard input)")
      ->required();
  app.add_option("--set", options.set, "Algorithm parameter key=value (repeatable)");
  app.add_option("--report", options.report, "Report format");
  app.add_option("-o,--output", options.output, "Write the report to this file");
  app.add_option("--threads", options.threads,
                 "Checking threads (default: the machine's cores; 1 checks as it generates)")
      ->check(natural());
  options.traffic.add(app);
}

/// Exit 0 when every check that applies passes, 1 otherwise.
int run(const Options& options, const Streams& streams) {
  const auto& algorithm = schedules::require_algorithm(options.algorithm);
  if (!options.output.empty())
    check_output(options.output, {options.topology, options.traffic.path});
  const distributed::Processes& processes = distributed::Processes::get();
  if (processes.spread() && options.topology == "-")
    throw InputError("check under mpirun reads the topology in every process: give a file, not -");
  const Topology machine = io::read_topology_file(options.topology);
  const Parameters parameters = Parameters::parse(options.set);
  const SharedTraffic traffic = options.traffic.read();
  const auto report = on_machine_of(options.topology, [&] {
    return pipeline::check_algorithm(algorithm, machine, parameters, spread(options.threads),
                                     traffic);
  });
  int code = 0;
  if (report) {  // process 0
    emit(reports::render(*report, options.algorithm + " on " + input_name(options.topology),
                         options.report),
         options.output, streams.out, {options.topology});
    code = report->verdict() == verify::Verdict::pass ? 0 : 1;
  }
  return processes.agree(code);
}

ErrorReport error_report(const Options& options) {
  return {options.report, options.output, options.topology};
}

constexpr CommandDefinition<Options> definition{
    .name = "check",
    .summary =
        "Generate and verify a registered algorithm in one pass, the schedule never in "
        "memory: the report `generate | verify` gives",
    .formats = reports::verify_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command check_command;
const Command check_command = definition;

}  // namespace phasecheck::cli
