// `phasecheck diff BEFORE AFTER` (docs/ci.md): both schedules judged (ci/comparison.hpp), what
// the change did compared under the policy of ci/, rendered by report/comparison_report.hpp.

#include <set>

#include "ci/comparison.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/files.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "report/comparison_report.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string before, after;  ///< schedule files: the accepted one and the changed one
  std::string topology;       ///< judge both on this model instead of their own
  reports::ReportFormat report = reports::ReportFormat::text;
  std::vector<std::string> allow;  ///< regressions that do not fail: more-phases, larger-c2, ...
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("before", options.before, "The accepted schedule (JSON)")->required();
  app.add_option("after", options.after, "The changed schedule (JSON)")->required();
  app.add_option("--topology", options.topology, "Judge both on this model instead of their own");
  app.add_option("--report", options.report,
                 "text, json, markdown (a pull-request comment) or junit");
  app.add_option("--allow", options.allow,
                 "Regressions that do not fail: more-phases, larger-c1, larger-c2, larger-gap")
      ->delimiter(',')
      ->check(one_of(ci::allowable_regressions()));
}

/// Exit 1 on a regression.
int run(const Options& options, const Streams& streams) {
  require_stdin_once({options.before, options.after, options.topology});
  const std::set<std::string> allow(options.allow.begin(), options.allow.end());
  std::optional<Topology> model;
  if (!options.topology.empty()) model = io::read_topology_file(options.topology);
  const auto side = [&](const std::string& path) {
    Schedule schedule = pipeline::read_schedule_file(path);
    const Claims claims = schedules::claims_for(schedule.header);
    return ci::judge(std::move(schedule), input_name(path), model ? &*model : nullptr, claims);
  };
  ci::Side before = side(options.before);
  ci::Side after = side(options.after);
  const ci::Comparison comparison = ci::compare(std::move(before), std::move(after), allow);
  streams.out << reports::render_comparison(comparison, options.report);
  return comparison.passed() ? 0 : 1;
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.after}; }

constexpr CommandDefinition<Options> definition{
    .name = "diff",
    .summary =
        "What a change did to a schedule: checks, phases, C1, C2 and the gap, before and "
        "after",
    .formats = reports::comparison_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command diff_command;
const Command diff_command = definition;

}  // namespace phasecheck::cli
