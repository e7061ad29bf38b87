// `phasecheck sweep ALG --ranks A..B`: an algorithm (registered, an external generator, or a
// recorded C routine) checked at every p of a range (experiments/sweep.hpp), each failing instance
// drawn as it is found and the table of p's at the end (report/sweep_report.hpp).

#include "experiments/sweep.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/progress.hpp"
#include "report/sweep_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  experiments::SweepSpec spec;
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  experiments::SweepSpec& spec = options.spec;
  app.add_option("algorithm", spec.algorithm, "Registered algorithm (see `algorithms`)");
  app.add_option("--ranks", spec.ranks, "The rank counts: A..B, or one p")->required();
  app.add_option("--set", spec.set,
                 "Parameter key=value, or key=A..B for every value of a number parameter "
                 "(repeatable)");
  app.add_option("--topology-family", spec.family,
                 "The machine at each p: fully-connected (default), fully-connected:K (K "
                 "ports), cluster:G, tree:F, hypercube, ring");
  app.add_flag("--buffers", spec.buffers, "Verify the buffer programs (format 3), not the tables");
  app.add_option("--generator", spec.generator,
                 "External generator: a command reading a topology on stdin, printing a "
                 "schedule (exit 2: machine not supported)");
  app.add_option("--generator-timeout", spec.generator_timeout,
                 "With --generator: seconds for one run of it (default 60)");
  app.add_option("--function", spec.function,
                 "LIB.so:SYMBOL: a C routine recorded at every p, as `record function` does "
                 "(--set collective=alltoall|allgather)");
  app.add_option("--timeout", spec.timeout,
                 "With --function: seconds for one recorded call (default 60)");
  app.add_option("--jobs", spec.jobs, "Worker threads (default: the machine's cores)")
      ->check(natural());
  app.add_option("--report", options.report, "text (default), json, junit or csv");
}

/// Exit 0 when every instance checked passed, 1 when one failed or none was checked.
int run(const Options& options, const Streams& streams) {
  experiments::SweepSpec spec = options.spec;
  spec.progress = terminal_stderr();
  const bool text = options.report == reports::ReportFormat::text;
  const experiments::Sweep sweep =
      experiments::sweep(spec, [&](const experiments::Sweep& s, const experiments::SweepRow& row) {
        if (text) streams.out << reports::sweep_row_text(s, row) << std::flush;
      });
  streams.out << reports::render_sweep(sweep, options.report);
  return sweep.verdict() == Verdict::pass ? 0 : 1;
}

ErrorReport error_report(const Options& options) { return {options.report, "", ""}; }

constexpr CommandDefinition<Options> definition{
    .name = "sweep",
    .summary =
        "Check an algorithm at every p of a range (and every value of ranged parameters), "
        "in parallel; the p's that fail, are refused or meet the bound",
    .formats = reports::sweep_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command sweep_command;
const Command sweep_command = definition;

}  // namespace phasecheck::cli
