// `phasecheck mutate SCHEDULE`: single faults planted in a schedule and every invalid mutant
// checked to be caught (properties/mutate.hpp); rendered by report/mutate_report.hpp.

#include "pipeline/read_schedule.hpp"
#include "properties/mutate.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "io/json.hpp"
#include "report/mutate_report.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string schedule;
  std::string topology;  ///< optional what-if model
  std::uint32_t per_class = 50;
  std::uint64_t seed = 1;
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedule", options.schedule, "Schedule JSON file")->required();
  app.add_option("--topology", options.topology, "Judge on this model instead");
  app.add_option("--per-class", options.per_class, "Mutants per fault class")->check(natural());
  app.add_option("--seed", options.seed, "Seed for choosing the faults")->check(natural());
  app.add_option("--report", options.report, "Report format");
}

/// Exit 1 when a mutant the naive re-simulation calls invalid passes the checkers.
int run(const Options& options, const Streams& streams) {
  require_stdin_once({options.schedule, options.topology});
  if (options.per_class < 1 || options.per_class > properties::kMaxMutantsPerClass)
    throw InputError("--per-class must be in [1, " +
                     std::to_string(properties::kMaxMutantsPerClass) + "]");
  const Schedule table = pipeline::read_schedule_file(options.schedule, [](const ScheduleHeader& h) {
    check_ranks(h.ranks(), properties::kMaxMutateRanks, "mutate",
                "each mutant is re-simulated naively; `verify` checks any size");
  });
  const Topology model =
      options.topology.empty() ? table.header.topology : io::read_topology_file(options.topology);
  if (ranks(model) != table.header.ranks())
    throw InputError("the schedule has " + std::to_string(table.header.ranks()) + " ranks but " +
                     describe(model) + " has " + std::to_string(ranks(model)));
  reports::MutationRun run{input_name(options.schedule),
                           table.header.algorithm,
                           describe(model),
                           options.seed,
                           options.per_class,
                           properties::mutate(table, model, options.per_class, options.seed)};
  run.perfect = run.report.perfect();
  if (options.report == reports::ReportFormat::json)
    streams.out << reports::json_text(reports::mutation_json(run));
  else
    streams.out << reports::mutation_text(run);
  return run.perfect ? 0 : 1;
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.schedule}; }

constexpr CommandDefinition<Options> definition{
    .name = "mutate",
    .summary =
        "Plant single faults in a schedule and check that the checkers catch every "
        "invalid mutant (confirmed by a naive re-simulation)",
    .formats = reports::mutation_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command mutate_command;
const Command mutate_command = definition;

}  // namespace phasecheck::cli
