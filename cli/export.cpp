// `phasecheck export msccl|mscclpp SCHEDULE`: a verified schedule as MSCCL XML
// (deploy/msccl_export.hpp) or as an MSCCL++ execution plan (deploy/mscclpp_export.hpp),
// verified first and the file checked by lowering and verifying it again; what was exported, or
// why not, rendered by report/transfer_report.hpp.

#include <cstdint>
#include <functional>
#include <string>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "deploy/msccl_export.hpp"
#include "deploy/mscclpp_export.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "report/transfer_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string format;    ///< msccl, mscclpp
  std::string schedule;  ///< any schedule file (versions 1-3, MSCCL XML, ...); "-": standard input
  std::string output;    ///< the file; empty or "-": standard output
  reports::ReportFormat report = reports::ReportFormat::text;  ///< json: with -o FILE
  std::string name;                 ///< the algo's or plan's name; empty: the schedule's algorithm
  std::string protocol = "Simple";  ///< msccl only
  std::uint32_t channels = 1;       ///< msccl only
  bool msccl_options = false;       ///< --proto or --channels given
  std::uint64_t min_bytes = 0, max_bytes = 0;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("format", options.format, "msccl or mscclpp")
      ->required()
      ->check(one_of({"msccl", "mscclpp"}));
  app.add_option("schedule", options.schedule, "Schedule file (- for standard input)")->required();
  app.add_option("-o,--output", options.output,
                 "Write the XML or plan here (default: standard output)");
  app.add_option("--report", options.report, "What was exported or why not, with -o: text or json");
  app.add_option("--name", options.name,
                 "The algo's or plan's name (default: the schedule's algorithm)");
  const auto msccl_only = [&options](const std::string&) { options.msccl_options = true; };
  app.add_option("--proto", options.protocol, "msccl: Simple (default), LL or LL128")
      ->check(one_of({"Simple", "LL", "LL128"}))
      ->each(msccl_only);
  app.add_option("--channels", options.channels,
                 "msccl: spread each pair's ops over this many channels (default 1)")
      ->check(natural())
      ->each(msccl_only);
  bytes_option(
      app.add_option("--min-bytes", options.min_bytes, "Smallest call size it serves (default 0)"));
  bytes_option(app.add_option("--max-bytes", options.max_bytes,
                              "Largest call size it serves (default 0: any)"));
}

/// Writes the file (or the report of why not) as run() says.
int finish(const Options& options, const Streams& streams, const deploy::VerifiedExport& result,
           const std::function<std::string()>& report) {
  if (result.verdict() != verify::Verdict::pass) {
    streams.out << report();
    return 1;
  }
  if (data_to_stdout(options.output)) {
    streams.out << result.text;
    return 0;
  }
  write_output(options.output, [&](std::ostream& os) { os << result.text; }, {options.schedule});
  streams.out << report();
  return 0;
}

int export_msccl(const Options& options, const Streams& streams, const std::string& source) {
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
  return finish(options, streams, result, [&] {
    return reports::render_msccl_export({source, options.output, result}, options.report);
  });
}

int export_mscclpp(const Options& options, const Streams& streams, const std::string& source) {
  if (options.msccl_options)
    throw InputError(
        "--proto and --channels are options of export msccl: an MSCCL++ plan has "
        "the Simple protocol and one memory channel per peer");
  programs::MscclppExportOptions exporter;
  exporter.name = options.name;
  exporter.min_message_size = options.min_bytes;
  if (options.max_bytes != 0) exporter.max_message_size = options.max_bytes;
  const deploy::MscclppExport result =
      deploy::export_mscclpp(pipeline::read_schedule_file(options.schedule), source, exporter);
  return finish(options, streams, result, [&] {
    return reports::render_mscclpp_export({source, options.output, result}, options.report);
  });
}

/// Refuses (exit 1) a schedule that fails verification, and a file whose read-back fails.
int run(const Options& options, const Streams& streams) {
  check_data_report(options.report, options.output, "export");
  if (!data_to_stdout(options.output)) check_output(options.output, {options.schedule});
  const std::string source = input_name(options.schedule);
  return options.format == "msccl" ? export_msccl(options, streams, source)
                                   : export_mscclpp(options, streams, source);
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.schedule}; }

constexpr CommandDefinition<Options> definition{
    .name = "export",
    .summary =
        "Write a verified schedule (any version, MSCCL XML, or an MSCCL++ plan) as MSCCL XML for "
        "msccl-tools, RCCL and NCCL's MSCCL runtime, or as an MSCCL++ execution plan; refuses "
        "one that fails verification",
    .formats = reports::transfer_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command export_command;
const Command export_command = definition;

}  // namespace phasecheck::cli
