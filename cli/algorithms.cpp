// `phasecheck algorithms`: the registry's algorithms (schedules/registry.hpp), listed by
// report/algorithms_report.hpp.

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "report/algorithms_report.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("--report", options.report, "text (default), json (every parameter typed) or csv");
}

int run(const Options& options, const Streams& streams) {
  std::vector<reports::AlgorithmListing> listings;
  for (const auto& algorithm : schedules::algorithms())
    listings.push_back({std::string(algorithm.name), std::string(algorithm.summary),
                        std::string(algorithm.reference), std::string(algorithm.library),
                        algorithm.in_place,
                        schedules::parameter_summary(algorithm), algorithm.parameter_specs});
  streams.out << reports::render_algorithms(listings, options.report);
  return 0;
}

ErrorReport error_report(const Options& options) { return {options.report, "", "algorithms"}; }

constexpr CommandDefinition<Options> definition{
    .name = "algorithms",
    .summary = "List the registered algorithms",
    .formats = reports::algorithms_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command algorithms_command;
const Command algorithms_command = definition;

}  // namespace phasecheck::cli
