// `phasecheck sync SCHEDULE`: pair-wise synchronization (Faraj & Yuan, Section 5) computed,
// reduced and checked (programs/checked_plan.hpp); rendered by report/programs_report.hpp.

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "programs/checked_plan.hpp"
#include "report/programs_report.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string schedule;  ///< schedule file
  std::string topology;  ///< optional what-if model
  bool list = false;     ///< print every synchronization message
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedule", options.schedule, "Schedule JSON file")->required();
  app.add_option("--topology", options.topology,
                 "Judge on this model instead of the schedule's own");
  app.add_flag("--list", options.list, "Print every synchronization message");
  app.add_option("--report", options.report, "Report format");
}

/// Counts before and after the transitive reduction, and the check that the kept ones order
/// every contending pair. Exit 1 when the table does not verify or a pair is left unordered.
int run(const Options& options, const Streams& streams) {
  require_stdin_once({options.schedule, options.topology});
  // The dependence graph needs the whole table (at most kMaxSyncRanks ranks): read it once.
  const Schedule table = pipeline::read_schedule_file(options.schedule, [](const ScheduleHeader& h) {
    check_ranks(h.ranks(), programs::kMaxSyncRanks, "sync", "");
  });
  const Topology model =
      options.topology.empty() ? table.header.topology : io::read_topology_file(options.topology);
  const std::string source = input_name(options.schedule);
  const programs::CheckedPlan checked = programs::check_synchronization_plan(
      table, model, schedules::claims_for(table.header), source);
  if (options.report == reports::ReportFormat::json)
    streams.out << reports::json_text(reports::sync_json(checked, source, options.list));
  else
    streams.out << reports::sync_text(checked, source, options.list);
  return checked.ok() ? 0 : 1;
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.schedule}; }

constexpr CommandDefinition<Options> definition{
    .name = "sync",
    .summary =
        "Pair-wise synchronization of a schedule (Faraj & Yuan, Section 5), reduced and checked",
    .formats = reports::sync_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command sync_command;
const Command sync_command = definition;

}  // namespace phasecheck::cli
