// `phasecheck fuzz [ALGORITHM...]`: a property-based campaign (properties/fuzz.hpp) on random
// machines, reported by report/fuzz_report.hpp as each algorithm finishes (text) or at the end
// (json).

#include <unistd.h>

#include <cstdio>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "properties/fuzz.hpp"
#include "report/fuzz_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  properties::FuzzOptions campaign;
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  properties::FuzzOptions& campaign = options.campaign;
  app.add_option("algorithms", campaign.algorithms, "Registered algorithms (default: all)");
  app.add_option("--cases", campaign.cases, "Cases per algorithm (per batch with --seconds)")
      ->check(natural());
  app.add_option("--seconds", campaign.seconds, "Keep running batches for this long");
  app.add_option("--seed", campaign.seed, "First seed (same seed, same cases)")->check(natural());
  app.add_option("--max-size", campaign.max_size,
                 "How large generated machines get (rapidcheck size)");
  app.add_option("--out", campaign.out, "Directory for a failure's files");
  app.add_option("--report", options.report, "Report format");
  app.add_option("--generator", campaign.generator,
                 "External generator: a command reading a topology on stdin, printing a "
                 "schedule (exit 2: machine not supported)");
  app.add_option("--generator-timeout", campaign.generator_timeout,
                 "With --generator: seconds for one run of it (default 60)");
  app.add_flag("--contention-free", campaign.contention_free,
               "With --generator: also require contention-freedom");
}

/// Exit 0 when every algorithm passed, 1 on a failure or when nothing was evaluated.
int run(const Options& options, const Streams& streams) {
  properties::FuzzOptions campaign = options.campaign;
  campaign.progress = isatty(fileno(stderr));
  // Text is printed as each algorithm finishes; JSON is one document at the end.
  const bool json = options.report == reports::ReportFormat::json;
  std::vector<properties::FuzzOutcome> outcomes;
  const verify::Verdict verdict =
      properties::fuzz(campaign, streams.err, reports::fuzz_case_report,
                       [&](const properties::FuzzOutcome& outcome) {
                         if (json)
                           outcomes.push_back(outcome);
                         else
                           streams.out << reports::fuzz_outcome_text(outcome) << std::flush;
                       });
  streams.out << (json ? reports::fuzz_json(campaign, verdict, outcomes)
                       : reports::fuzz_verdict_text(verdict));
  return verdict == verify::Verdict::pass ? 0 : 1;
}

ErrorReport error_report(const Options& options) { return {options.report, "", "fuzz"}; }

constexpr CommandDefinition<Options> definition{
    .name = "fuzz",
    .summary =
        "Property-based fuzzing of registered algorithms (or an external generator) on "
        "random machines; a failure is shrunk and written out for replay",
    .formats = reports::fuzz_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command fuzz_command;
const Command fuzz_command = definition;

}  // namespace phasecheck::cli
