// `phasecheck program SCHEDULE`: the per-rank programs of a verified table, replayed together
// (programs/checked_programs.hpp), written as JSON with -o; rendered by report/programs_report.hpp.

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "io/json.hpp"
#include "io/programs_json.hpp"
#include "pipeline/read_schedule.hpp"
#include "programs/checked_programs.hpp"
#include "report/programs_report.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string schedule;           ///< schedule file
  std::vector<unsigned> ranks;    ///< ranks whose listing to print
  std::string sync = "pairwise";  ///< none | barrier | pairwise
  reports::ReportFormat report = reports::ReportFormat::text;
  std::string output;  ///< JSON file for all programs; empty: none
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedule", options.schedule, "Schedule JSON file")->required();
  app.add_option("--rank", options.ranks, "Print this rank's program (repeatable)")
      ->check(natural());
  app.add_option("--sync", options.sync, "Phase separation")
      ->check(one_of({"none", "barrier", "pairwise"}));
  app.add_option("--report", options.report, "Report format");
  app.add_option("-o,--output", options.output, "Write every rank's program as JSON to this file");
}

/// Exit 1 when the table does not verify or the replay finds a deadlock, a missing message or
/// contending messages overlapping.
int run(const Options& options, const Streams& streams) {
  // -o -: the programs are standard output, so the report goes to standard error.
  std::ostream& out = options.output == "-" ? streams.err : streams.out;
  const programs::Separation separation = programs::parse_separation(options.sync);
  if (!options.output.empty()) check_output(options.output, {options.schedule});
  const Schedule table = pipeline::read_schedule_file(options.schedule, [&](const ScheduleHeader& h) {
    if (separation == programs::Separation::pairwise)
      check_ranks(h.ranks(), programs::kMaxSyncRanks, "program --sync pairwise",
                  "--sync barrier works on any size");
  });
  const std::string source = input_name(options.schedule);
  const programs::CheckedPrograms checked = with_source(source, [&] {
    return programs::check_programs(table, separation, schedules::claims_for(table.header),
                                    options.ranks);
  });
  if (!options.output.empty())
    write_output(options.output,
                 [&](std::ostream& os) {
                   io::write_programs_json(os, checked.programs, table, source, separation);
                 },
                 {options.schedule});
  if (options.report == reports::ReportFormat::json)
    out << reports::json_text(reports::program_json(checked, source));
  else
    out << reports::program_text(checked, source);
  return checked.ok() ? 0 : 1;
}

// -o is the programs, not the report: the report is standard output.
ErrorReport error_report(const Options& options) { return {options.report, "", options.schedule}; }

constexpr CommandDefinition<Options> definition{
    .name = "program",
    .summary =
        "Per-rank programs of a schedule (sends, receives, synchronizations), replayed "
        "together to prove they realize it without deadlock or contention",
    .formats = reports::program_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command program_command;
const Command program_command = definition;

}  // namespace phasecheck::cli
