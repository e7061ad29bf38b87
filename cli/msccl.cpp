// The MSCCL commands: import (XML -> format 3), export (any verified schedule -> XML).
#include <algorithm>
#include <ostream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/msccl.hpp"
#include "io/json.hpp"
#include "io/msccl_xml.hpp"
#include "programs/msccl_export.hpp"
#include "report/lint_report.hpp"
#include "report/verify_report.hpp"
#include "schedules/buffers.hpp"
#include "verify/msccl_lint.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {

namespace {

/// The faults of an imported program's execution, as the verifier would print them.
bool print_faults(const Imported& imported, std::ostream& out) {
  for (const ExecutionFault& f : imported.faults) {
    out << "  " << f.kind << ": " << f.explanation << "\n";
    for (const StepRef& s : f.steps) out << "    " << to_string(s) << "\n";
  }
  return imported.faults.empty();
}

/// "4 checks pass" or "4 checks pass, 1 not evaluated": a check that did not run is not counted
/// as passed.
std::string checks_passed(const verify::Report& report) {
  std::size_t pass = 0, not_evaluated = 0;
  for (const auto& c : report.checks) {
    pass += c.verdict == verify::Verdict::pass;
    not_evaluated += c.verdict == verify::Verdict::not_evaluated;
  }
  return std::to_string(pass) + (pass == 1 ? " check passes" : " checks pass") +
         (not_evaluated ? ", " + std::to_string(not_evaluated) + " not evaluated" : "");
}

}  // namespace

int import_msccl(const ImportArgs& args, std::ostream& out) {
  if (!args.output.empty() && args.output != "-") check_output(args.output, {args.file});
  const std::string source = input_name(args.file);
  const Schedule program = msccl::lower(io::read_msccl_file(args.file), source);
  const Imported& imported = *program.header.imported;
  if (!imported.faults.empty()) {
    out << "FAIL  " << source << ": " << imported.summary << ": " << imported.faults.size()
        << (imported.faults.size() == 1 ? " fault" : " faults")
        << " in its execution; nothing written (the JSON program would not carry them: "
           "phasecheck verify "
        << source << " shows them with the other checks)\n";
    print_faults(imported, out);
    return 1;
  }
  const auto write = [&](std::ostream& os) {
    io::ScheduleWriter writer(os, program.header);
    for (const Phase& p : program.phases) writer.phase(p);
    writer.finish();
  };
  if (args.output.empty() || args.output == "-") {
    write(out);
    return 0;
  }
  write_output(args.output, write, {args.file});
  out << "imported " << source << ": " << imported.summary << ", " << program.phases.size()
      << " phases -> " << args.output << " (format 3; phasecheck verify it, or the XML itself)\n";
  return 0;
}

int export_msccl(const ExportArgs& args, std::ostream& out) {
  if (args.format != "msccl")
    throw InputError("export: unknown format '" + args.format + "' (known: msccl)");
  const bool to_stdout = args.output.empty() || args.output == "-";
  if (!to_stdout) check_output(args.output, {args.schedule});
  const std::string source = input_name(args.schedule);
  const Schedule schedule = io::read_schedule_file(args.schedule);
  verify::Report report;
  try {
    report = verify::verify(schedule, schedule.header.topology, claims_for(schedule.header));
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  if (report.verdict() != verify::Verdict::pass) {
    out << "export refused: " << source << " does not verify\n\n"
        << reports::render(report, source, reports::ReportFormat::text);
    return 1;
  }
  // A phase table becomes the program a careful implementation runs (schedules/buffers.hpp).
  const Schedule program =
      schedule.header.buffers ? schedule : schedules::lower_to_buffers(schedule);
  programs::MscclExportOptions options;
  options.name = args.name;
  options.protocol = args.protocol;
  options.channels = args.channels;
  if (args.min_bytes > std::uint64_t(INT64_MAX) || args.max_bytes > std::uint64_t(INT64_MAX))
    throw InputError("--min-bytes and --max-bytes are at most 2^63 - 1");
  options.min_bytes = static_cast<std::int64_t>(args.min_bytes);
  options.max_bytes = static_cast<std::int64_t>(args.max_bytes);
  const msccl::Program xml_program = programs::to_msccl(program, options);
  const std::string xml = io::msccl_to_xml(xml_program);

  // The XML is what ships: read it back and judge it as any imported file.
  const Schedule back = msccl::lower(io::parse_msccl(xml, "<export>"), "<export>");
  const verify::Report check = verify::verify(back, back.header.topology);
  if (check.verdict() != verify::Verdict::pass) {
    out << "export failed its own check: the MSCCL program made from " << source
        << " does not verify (please report this)\n\n"
        << reports::render(check, "<export>", reports::ReportFormat::text);
    return 1;
  }
  if (to_stdout) {
    out << xml;
    return 0;
  }
  write_output(args.output, [&](std::ostream& os) { os << xml; }, {args.schedule});
  std::uint64_t steps = 0;
  for (const msccl::Gpu& g : xml_program.gpus)
    for (const msccl::Threadblock& t : g.threadblocks) steps += t.steps.size();
  out << "exported " << source << " (verified) -> " << args.output << ": " << steps << " steps on "
      << xml_program.ngpus << " gpus, " << xml_program.nchannels.value_or(0)
      << (xml_program.nchannels == 1u ? " channel" : " channels")
      << "; read back and verified: " << checks_passed(check) << "\n";
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
