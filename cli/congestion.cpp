// `phasecheck congestion SCHEDULE`: link loads per phase on a routed model and their sum of
// maxima (verify/congestion_check.hpp), streamed; rendered by report/congestion_report.hpp.

#include <optional>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "report/congestion_report.hpp"
#include "schedules/registry.hpp"
#include "verify/congestion_check.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string schedule;
  std::string topology;                                        ///< optional what-if model (routed)
  bool phases = false;                                         ///< print every phase's loads
  reports::ReportFormat report = reports::ReportFormat::text;  ///< csv: the --phases table
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedule", options.schedule, "Schedule JSON file")->required();
  app.add_option("--topology", options.topology, "Measure on this model instead");
  app.add_flag("--phases", options.phases, "Print every phase");
  app.add_option("--report", options.report, "text (default), json, or csv (with --phases)");
}

/// Exit 1 if delivery fails.
int run(const Options& options, const Streams& streams) {
  require_stdin_once({options.schedule, options.topology});
  if (options.report == reports::ReportFormat::csv && !options.phases)
    throw InputError("congestion --report csv is the table of --phases: add --phases");
  std::optional<Topology> what_if;
  if (!options.topology.empty()) what_if = io::read_topology_file(options.topology);
  const std::string source = input_name(options.schedule);
  ScheduleHeader header;
  std::optional<verify::CongestionCheck> check;
  pipeline::read_schedule_file(
      options.schedule,
      [&](const ScheduleHeader& h) {
        header = h;
        with_source(source, [&] {
          check.emplace(header, what_if ? *what_if : header.topology, schedules::claims_for(header),
                        options.phases);
        });
      },
      [&](const Phase& phase) { check->consume(phase); });
  const verify::CongestionSummary summary = check->finish();
  streams.out << reports::render_congestion(summary, what_if ? *what_if : header.topology, source,
                                            options.phases, options.report);
  return summary.delivered ? 0 : 1;
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.schedule}; }

constexpr CommandDefinition<Options> definition{
    .name = "congestion",
    .summary = "Link loads per phase on a routed machine (graph, tree, ...) and their sum",
    .formats = reports::congestion_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command congestion_command;
const Command congestion_command = definition;

}  // namespace phasecheck::cli
