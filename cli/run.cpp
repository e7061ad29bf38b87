// `phasecheck run SCHEDULE`: the schedule's per-rank programs executed by phasecheck-runner
// (runner/runner.cpp) under Open MPI's mpirun on this machine (experiments/mpi_run.hpp,
// docs/run.md), every byte checked; rendered by report/run_report.hpp.

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "experiments/mpi_run.hpp"
#include "report/run_report.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string schedule;
  unsigned np = 0;             ///< 0: the schedule's ranks; anything else must equal them
  std::uint64_t bytes = 1024;  ///< per message
  std::string sync = "barrier";
  unsigned repeats = 5;
  double timeout = 300;  ///< seconds for the whole mpirun
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedule", options.schedule, "Schedule JSON file")->required();
  app.add_option("--np", options.np, "Number of MPI processes (default: the schedule's ranks)")
      ->check(natural());
  bytes_option(app.add_option("--bytes", options.bytes,
                              "Bytes per message: 4096, 4KiB, 1MiB (default 1KiB)"));
  app.add_option("--sync", options.sync, "Phase separation (default barrier)")
      ->check(one_of({"none", "barrier", "pairwise"}));
  app.add_option("--repeats", options.repeats, "Calls to time; the median is reported (default 5)")
      ->check(natural());
  app.add_option("--timeout", options.timeout, "Seconds before mpirun is stopped (default 300)");
  app.add_option("--report", options.report, "Report format");
}

/// Exit 1 when any byte arrives wrong or not at all.
int run(const Options& options, const Streams& streams) {
  check_run_options(options.bytes, options.repeats, options.timeout);
  // The machine's size first, from the header: before the phases are read and verified.
  const auto check_size = [&](const ScheduleHeader& header) {
    const Rank ranks = header.ranks();
    if (options.np != 0 && options.np != ranks)
      throw InputError("--np " + std::to_string(options.np) + ": the schedule has " +
                       std::to_string(ranks) + " ranks");
    if (ranks < 2 || ranks > experiments::kMaxRunRanks)
      throw InputError("run: 2 to " + std::to_string(experiments::kMaxRunRanks) +
                       " ranks on this machine");
    check_pairwise(header, options.sync, "run");
    experiments::check_run_volume(ranks, options.bytes);
  };
  const Schedule schedule = experiments::read_runnable(options.schedule, options.bytes, check_size);
  const experiments::RunOutcome outcome =
      experiments::run_on_open_mpi(schedule, {.source = options.schedule,
                                              .sync = options.sync,
                                              .bytes = options.bytes,
                                              .repeats = options.repeats,
                                              .timeout = options.timeout,
                                              .claims = schedules::claims_for(schedule.header)});
  streams.out << (options.report == reports::ReportFormat::json
                      ? reports::json_text(reports::run_json(outcome))
                      : reports::run_text(outcome));
  return outcome.ok() ? 0 : 1;
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.schedule}; }

constexpr CommandDefinition<Options> definition{
    .name = "run",
    .summary =
        "Execute a schedule's per-rank programs with MPI on this machine (Open MPI, "
        "mpirun) and check every byte; time it against the library's own collective",
    .formats = reports::run_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command run_command;
const Command run_command = definition;

}  // namespace phasecheck::cli
