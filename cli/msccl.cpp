// The MSCCL commands: import (XML -> format 3), export (any verified schedule -> XML), lint.
// Each parses its options, calls core/msccl, deploy/ or verify/, and renders with report/.

#include <cstdint>
#include <ostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "pipeline/read_schedule.hpp"
#include "verify/msccl_execution.hpp"
#include "deploy/msccl_export.hpp"
#include "io/json.hpp"
#include "io/msccl_xml.hpp"
#include "report/lint_report.hpp"
#include "report/transfer_report.hpp"
#include "verify/msccl_lint.hpp"

namespace phasecheck::cli {

bool data_to_stdout(const std::string& output) { return output.empty() || output == "-"; }

reports::ReportFormat data_command_report(const std::string& report, const std::string& output,
                                          const std::string& command) {
  const reports::ReportFormat format = reports::parse_report_format(report);
  if (format == reports::ReportFormat::junit)
    throw InputError(command + ": --report takes text or json");
  if (format == reports::ReportFormat::json && data_to_stdout(output))
    throw InputError(command +
                     ": --report json describes what was written: give -o FILE (on "
                     "standard output the data itself is the answer)");
  return format;
}

int import_msccl(const ImportArgs& args, std::ostream& out) {
  const reports::ReportFormat format = data_command_report(args.report, args.output, "import");
  if (!data_to_stdout(args.output)) check_output(args.output, {args.file});
  const std::string source = input_name(args.file);
  const Schedule program = msccl::lower(io::read_msccl_file(args.file), source);
  const Imported& imported = *program.header.imported;
  const reports::MscclImportRun run{source, args.output, imported, program.phases.size()};
  // A program whose execution faults is not written: the JSON would not carry the faults.
  if (!imported.faults.empty()) {
    out << reports::render_msccl_import(run, format);
    return 1;
  }
  const auto write = [&](std::ostream& os) {
    io::ScheduleWriter writer(os, program.header);
    for (const Phase& p : program.phases) writer.phase(p);
    writer.finish();
  };
  if (data_to_stdout(args.output)) {
    write(out);
    return 0;
  }
  write_output(args.output, write, {args.file});
  out << reports::render_msccl_import(run, format);
  return 0;
}

int export_msccl(const ExportArgs& args, std::ostream& out) {
  if (args.format != "msccl")
    throw InputError("export: unknown format '" + args.format + "' (known: msccl)");
  const reports::ReportFormat format = data_command_report(args.report, args.output, "export");
  if (!data_to_stdout(args.output)) check_output(args.output, {args.schedule});
  const std::string source = input_name(args.schedule);
  programs::MscclExportOptions options;
  options.name = args.name;
  options.protocol = args.protocol;
  options.channels = args.channels;
  if (args.min_bytes > std::uint64_t(INT64_MAX) || args.max_bytes > std::uint64_t(INT64_MAX))
    throw InputError("--min-bytes and --max-bytes are at most 2^63 - 1");
  options.min_bytes = static_cast<std::int64_t>(args.min_bytes);
  options.max_bytes = static_cast<std::int64_t>(args.max_bytes);
  const deploy::MscclExport result =
      deploy::export_msccl(pipeline::read_schedule_file(args.schedule), source, options);
  const reports::MscclExportRun run{source, args.output, result};
  if (result.verdict() != Verdict::pass) {
    out << reports::render_msccl_export(run, format);
    return 1;
  }
  if (data_to_stdout(args.output)) {
    out << result.xml;
    return 0;
  }
  write_output(args.output, [&](std::ostream& os) { os << result.xml; }, {args.schedule});
  out << reports::render_msccl_export(run, format);
  return 0;
}

int lint_msccl(const LintArgs& args, std::ostream& out) {
  const reports::ReportFormat format = reports::parse_report_format(args.report);
  require_stdin_once(args.files);
  if (!args.output.empty() && args.output != "-") check_output(args.output, args.files);
  std::vector<verify::LintInput> inputs;
  for (const std::string& file : args.files)
    inputs.push_back({input_name(file), io::read_msccl_file(file)});
  const verify::LintReport report = verify::lint(inputs);
  const std::string text = reports::render_lint(report, format);
  if (args.output.empty())
    out << text;
  else
    write_output(args.output, [&](std::ostream& os) { os << text; }, args.files);
  return report.errors() == 0 ? 0 : 1;
}

}  // namespace phasecheck::cli
