// `phasecheck cost SCHEDULE --ts --tw --bytes`: the schedule verified, then timed under the
// linear cost model (verify/cost.hpp) next to its algorithm's closed forms and the model's bound;
// on a machine whose links have bandwidths also timed on the machine (verify/machine_time.hpp)
// next to its lower bound in seconds (verify/time_bounds.hpp), the same pass over the phases;
// rendered by report/verify_report.hpp.

#include <optional>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "pipeline/check.hpp"
#include "report/verify_report.hpp"
#include "verify/cost.hpp"
#include "verify/machine_time.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string schedule;      ///< schedule file, or "-" for standard input
  std::string topology;      ///< optional what-if model
  double ts = 0;             ///< seconds per message
  std::optional<double> tw;  ///< seconds per byte; optional on a machine with bandwidths
  std::uint64_t bytes = 0;   ///< the message (block) size in bytes: m of the model
  double m_alias = 0;        ///< the old --m (one release, with a note); 0: not given
  reports::ReportFormat report = reports::ReportFormat::text;
  std::string output;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedule", options.schedule, "Schedule JSON file (- for standard input)")
      ->required();
  app.add_option("--ts", options.ts, "Start-up time per message, seconds (e.g. 10e-6)")->required();
  app.add_option("--tw", options.tw,
                 "Transfer time per byte, seconds (e.g. 1e-9); optional when the machine's links "
                 "have bandwidths");
  bytes_option(app.add_option("--bytes", options.bytes,
                              "Message (block) size in bytes, m of the model: 4096, 4KiB, 1MiB"));
  old_spelling(app.add_option("--m", options.m_alias), "--bytes");
  app.add_option("--topology", options.topology,
                 "Judge on this model instead of the schedule's own");
  app.add_option("--report", options.report, "Report format");
  app.add_option("-o,--output", options.output, "Write the report to this file");
}

/// Exit 1 when the schedule fails a check, does not match its own equations, or is below the
/// machine's lower bound in seconds.
int run(const Options& options, const Streams& streams) {
  const bool sized = options.bytes != 0 || options.m_alias != 0;
  const double m = options.bytes ? double(options.bytes) : options.m_alias;
  const verify::LinearCost model{options.ts, options.tw.value_or(0), m};
  model.validate();
  const std::vector<std::string> inputs = {options.schedule, options.topology};
  if (!options.output.empty()) check_output(options.output, inputs);
  require_stdin_once(inputs);
  verify::OnMachine machine;
  // Made at the header; a missing --tw is refused there, before any phase is read.
  const auto observe = [&](const ScheduleHeader& header, const Topology& judged) -> PhaseSink {
    if (bool(header.traffic) == sized) return {};  // refused below, as without bandwidths
    PhaseSink sink = machine.start(header, judged, options.ts, m);
    if (!sink && !options.tw)
      throw InputError("cost: --tw is required: no link of " + describe(judged) +
                       " has a bandwidth (topology format 2, docs/formats.md)");
    return sink;
  };
  const pipeline::Verified verified =
      pipeline::verify_file(options.schedule, options.topology, {}, observe);
  const verify::Report& report = *verified.report;  // one process, so the report is here
  // An alltoallv's messages have the matrix's sizes; every other schedule's have --bytes.
  if (report.bytes && sized)
    throw InputError(
        "cost: --bytes has no meaning for an alltoallv (its messages have the traffic "
        "matrix's sizes)");
  if (!report.bytes && !sized)
    throw InputError("cost: --bytes is required (the message size in bytes: 4096, 4KiB, 1MiB)");
  std::optional<verify::CostReport> linear;
  if (options.tw) linear = verify::cost(report, verified.claims, model);
  std::optional<verify::MachineCost> on_machine;
  if (machine.measured()) on_machine = machine.finish(report);
  const reports::CostParts parts{linear ? &*linear : nullptr, on_machine ? &*on_machine : nullptr};
  emit(reports::render_cost(parts, report, verified.source, options.report), options.output,
       streams.out, inputs);
  return report.verdict() == verify::Verdict::pass && parts.consistent() ? 0 : 1;
}

ErrorReport error_report(const Options& options) {
  return {options.report, options.output, options.schedule};
}

constexpr CommandDefinition<Options> definition{
    .name = "cost",
    .summary =
        "Time of a schedule under the linear model t_s + t_w m x per phase, next to the "
        "algorithm's closed forms (Grama et al. Eq. 4.7-4.10) and the model's bound; on a "
        "machine with link bandwidths also its time there next to the bound in seconds",
    .formats = reports::cost_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command cost_command;
const Command cost_command = definition;

}  // namespace phasecheck::cli
