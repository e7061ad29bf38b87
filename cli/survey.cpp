// `phasecheck survey TOPOLOGY...`: every registered algorithm generated and verified on each
// machine (experiments/survey.hpp), rendered by report/survey_report.hpp.

#include "experiments/survey.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "report/survey_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::vector<std::string> topologies;  ///< topology files; "-": standard input (once)
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("topologies", options.topologies, "Topology JSON files")->required();
  app.add_option("--report", options.report, "text (default), json or csv");
}

/// Exit 1 when an algorithm breaks a claim (delivery, invariants, phase count, or contention on a
/// model it claims to be contention-free on).
int run(const Options& options, const Streams& streams) {
  const experiments::Survey survey = experiments::survey(options.topologies);
  streams.out << reports::render_survey(survey, options.report);
  return survey.broken ? 1 : 0;
}

ErrorReport error_report(const Options& options) {
  return {options.report, "", options.topologies.size() == 1 ? options.topologies[0] : ""};
}

constexpr CommandDefinition<Options> definition{
    .name = "survey",
    .summary = "Generate and verify every algorithm on each topology; print a table",
    .formats = reports::survey_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command survey_command;
const Command survey_command = definition;

}  // namespace phasecheck::cli
