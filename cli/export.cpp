// `phasecheck export msccl SCHEDULE`: a verified schedule as MSCCL XML
// (deploy/msccl_export.hpp), verified first and the XML checked by lowering and verifying it
// again; what was exported, or why not, rendered by report/transfer_report.hpp.

#include <cstdint>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "deploy/msccl_export.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "report/transfer_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string format;    ///< msccl
  std::string schedule;  ///< any schedule file (versions 1-3, or MSCCL XML); "-": standard input
  std::string output;    ///< the XML; empty or "-": standard output
  reports::ReportFormat report = reports::ReportFormat::text;  ///< json: with -o FILE
  std::string name;  ///< the algo's name; empty: the schedule's algorithm
  std::string protocol = "Simple";
  std::uint32_t channels = 1;
  std::uint64_t min_bytes = 0, max_bytes = 0;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("format", options.format, "msccl")->required()->check(one_of({"msccl"}));
  app.add_option("schedule", options.schedule, "Schedule file (- for standard input)")->required();
  app.add_option("-o,--output", options.output, "Write the XML here (default: standard output)");
  app.add_option("--report", options.report, "What was exported or why not, with -o: text or json");
  app.add_option("--name", options.name, "The algo's name (default: the schedule's algorithm)");
  app.add_option("--proto", options.protocol, "Simple (default), LL or LL128")
      ->check(one_of({"Simple", "LL", "LL128"}));
  app.add_option("--channels", options.channels,
                 "Spread each pair's ops over this many channels (default 1)")
      ->check(natural());
  bytes_option(
      app.add_option("--min-bytes", options.min_bytes, "Smallest call size it serves (default 0)"));
  bytes_option(app.add_option("--max-bytes", options.max_bytes,
                              "Largest call size it serves (default 0: any)"));
}

/// Refuses (exit 1) a schedule that fails verification, and XML whose read-back fails.
int run(const Options& options, const Streams& streams) {
  check_data_report(options.report, options.output, "export");
  if (!data_to_stdout(options.output)) check_output(options.output, {options.schedule});
  const std::string source = input_name(options.schedule);
  programs::MscclExportOptions exporter;
  exporter.name = options.name;
  exporter.protocol = options.protocol;
  exporter.channels = options.channels;
  if (options.min_bytes > std::uint64_t(INT64_MAX) || options.max_bytes > std::uint64_t(INT64_MAX))
    throw InputError("--min-bytes and --max-bytes are at most 2^63 - 1");
  exporter.min_bytes = static_cast<std::int64_t>(options.min_bytes);
  exporter.max_bytes = static_cast<std::int64_t>(options.max_bytes);
  const deploy::MscclExport result =
      deploy::export_msccl(pipeline::read_schedule_file(options.schedule), source, exporter);
  const reports::MscclExportRun run{source, options.output, result};
  if (result.verdict() != verify::Verdict::pass) {
    streams.out << reports::render_msccl_export(run, options.report);
    return 1;
  }
  if (data_to_stdout(options.output)) {
    streams.out << result.text;
    return 0;
  }
  write_output(options.output, [&](std::ostream& os) { os << result.text; }, {options.schedule});
  streams.out << reports::render_msccl_export(run, options.report);
  return 0;
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.schedule}; }

constexpr CommandDefinition<Options> definition{
    .name = "export",
    .summary =
        "Write a verified schedule (any version, or MSCCL XML) as MSCCL XML for "
        "msccl-tools, RCCL and NCCL's MSCCL runtime; refuses one that fails verification",
    .formats = reports::transfer_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command export_command;
const Command export_command = definition;

}  // namespace phasecheck::cli
