// `phasecheck verify SCHEDULE`: the schedule checked (experiments/check.hpp: delivery,
// contention, invariants, bounds), its report rendered by report/verify_report.hpp, and with
// --svg the first failure drawn (cli/draw.hpp).

#include "cli/checking.hpp"
#include "cli/command.hpp"
#include "cli/draw.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "distributed/processes.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string schedule;  ///< schedule file, or "-" for standard input
  std::string topology;  ///< optional what-if model
  reports::ReportFormat report = reports::ReportFormat::text;
  std::string output;    ///< report file; empty for standard output
  unsigned threads = 0;  ///< 0: the machine's cores
  std::string svg;       ///< draw the first failure's counterexample here (cli/draw.hpp)
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedule", options.schedule, "Schedule JSON file (- for standard input)")
      ->required();
  app.add_option("--topology", options.topology,
                 "Judge on this model instead of the schedule's own (a what-if)");
  app.add_option("--report", options.report, "Report format");
  app.add_option("-o,--output", options.output, "Write the report to this file");
  app.add_option("--threads", options.threads,
                 "Checking threads (default: the machine's cores; 1 checks as it reads)")
      ->check(natural());
  app.add_option("--svg", options.svg,
                 "Draw the first failure's offending phase, its conflicting transfers and "
                 "the shared link, node or port, as SVG (docs/draw.md); nothing is written "
                 "when no failure lies in a phase");
}

int run(const Options& options, const Streams& streams) {
  const std::vector<std::string> inputs = {options.schedule, options.topology};
  if (!options.output.empty()) check_output(options.output, inputs);
  if (!options.svg.empty()) {
    if (options.svg == "-" && (options.output.empty() || options.output == "-"))
      throw InputError(
          "verify: --svg - and the report would both go to standard output: give -o FILE");
    if (options.svg == options.output && options.svg != "-")
      throw InputError("verify: --svg and -o name the same file, " + options.svg);
    check_output(options.svg, inputs);
  }
  require_stdin_once(inputs);
  const distributed::Processes& processes = distributed::Processes::get();
  if (processes.spread() && (options.schedule == "-" || options.topology == "-"))
    throw InputError("verify under mpirun reads its files in every process: give a file, not -");
  const pipeline::Verified verified =
      pipeline::verify_file(options.schedule, options.topology, spread(options.threads));
  int code = 0;
  if (verified.report) {  // process 0
    emit(reports::render(*verified.report, verified.source, options.report), options.output,
         streams.out, inputs);
    if (!options.svg.empty())
      draw_failure(options.svg, *verified.report, verified.header, options.schedule, inputs,
                   streams.err);
    code = verified.report->verdict() == verify::Verdict::pass ? 0 : 1;
  }
  return processes.agree(code);
}

ErrorReport error_report(const Options& options) {
  return {options.report, options.output, options.schedule};
}

constexpr CommandDefinition<Options> definition{
    .name = "verify",
    .summary = "Check a schedule: delivery, contention, invariants, bounds",
    .formats = reports::verify_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command verify_command;
const Command verify_command = definition;

}  // namespace phasecheck::cli
