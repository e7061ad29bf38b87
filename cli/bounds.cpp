// `phasecheck bounds --topology FILE`: the lower bounds of a machine model
// (experiments/machine_bounds.hpp), rendered by report/bounds_report.hpp.

#include <cmath>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "experiments/machine_bounds.hpp"
#include "io/json.hpp"
#include "report/bounds_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string topology;
  std::string collective = "alltoall";
  double bandwidth = 0;  ///< link bandwidth B in bytes/s for a tree's throughput bound; 0: symbolic
  std::uint64_t bytes = 0;  ///< m, the block size, for the bound in seconds; 0: per byte
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("--topology", options.topology, "Topology JSON file")->required();
  app.add_option("--collective", options.collective, "alltoall or allgather")
      ->check(one_of({"alltoall", "allgather"}));
  app.add_option("--bandwidth", options.bandwidth,
                 "Link bandwidth B in bytes/s: a tree's peak aggregate throughput bound, or every "
                 "link of a graph without bandwidths");
  bytes_option(app.add_option("--bytes", options.bytes,
                              "Block size m in bytes for the bound in seconds on a machine with "
                              "bandwidths: 4096, 4KiB, 1MiB"));
  app.add_option("--report", options.report, "text (default), json or csv");
}

int run(const Options& options, const Streams& streams) {
  if (options.bandwidth < 0 || !std::isfinite(options.bandwidth))
    throw InputError("--bandwidth must be a positive number of bytes per second");
  const Topology model = io::read_topology_file(options.topology);
  streams.out << reports::render_bounds(
      experiments::machine_bounds(model, parse_collective(options.collective), options.bandwidth,
                                  double(options.bytes)),
      options.report);
  return 0;
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.topology}; }

constexpr CommandDefinition<Options> definition{
    .name = "bounds",
    .summary = "Print the lower bounds of a machine model",
    .formats = reports::bounds_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command bounds_command;
const Command bounds_command = definition;

}  // namespace phasecheck::cli
