#include "report/transfer_report.hpp"

#include <sstream>

#include "core/escape.hpp"

namespace phasecheck::reports {
namespace {

using OJson = nlohmann::ordered_json;

/// These reports are text or JSON (transfer_formats).
void text_or_json(ReportFormat format, const char* renderer) {
  if (!supports(transfer_formats, format)) unsupported(format, renderer);
}

}  // namespace

std::string render_trace_import(const TraceImportRun& r, ReportFormat format) {
  text_or_json(format, "render_trace_import");
  const std::string next = "phasecheck verify " + r.output;
  if (format == ReportFormat::json) {
    OJson j;
    j["command"] = "import";
    j["format"] = "simgrid-trace";
    j["verdict"] = to_string(Verdict::not_evaluated);
    j["source"] = r.source;
    j["output"] = r.output;
    j["state"] = r.trace.state;
    j["call"] = r.call;
    j["calls"] = r.trace.calls;
    j["ranks"] = r.trace.ranks;
    j["messages"] = r.trace.messages.size();
    j["phases"] = r.phases;
    j["pairs"] = {{"messaged", r.coverage.pairs},
                  {"of", r.coverage.all_pairs},
                  {"repeated", r.coverage.repeated}};
    j["self_messages"] = r.coverage.self;
    j["topology"] = r.machine;
    j["next"] = next;
    return json_text(j);
  }
  std::ostringstream out;
  out << "imported call " << r.call << " of " << r.trace.calls << " of " << r.trace.state
      << " from " << text_escape(r.source) << ": " << r.trace.ranks << " ranks, "
      << r.trace.messages.size() << " messages in " << r.phases << " steps\n"
      << "  pairs messaged: " << r.coverage.pairs << " of " << r.coverage.all_pairs << ", "
      << r.coverage.repeated << " more than once, " << r.coverage.self << " messages to self\n"
      << "  phase table: " << text_escape(r.output) << " (on " << r.machine << "; check it with "
      << next << ")\n";
  return out.str();
}

std::string render_msccl_import(const MscclImportRun& r, ReportFormat format) {
  text_or_json(format, "render_msccl_import");
  const auto& faults = r.imported.faults;
  if (format == ReportFormat::json) {
    OJson list = OJson::array();
    for (const ExecutionFault& f : faults) {
      OJson steps = OJson::array();
      for (const StepRef& s : f.steps)
        steps.push_back({{"gpu", s.gpu}, {"threadblock", s.threadblock}, {"step", s.step}});
      list.push_back({{"kind", to_string(f.kind)},
                      {"explanation", f.explanation},
                      {"steps", std::move(steps)},
                      {"phase", f.phase ? OJson(*f.phase) : OJson(nullptr)}});
    }
    OJson j;
    j["command"] = "import";
    j["format"] = r.imported.format;
    j["verdict"] = to_string(faults.empty() ? Verdict::pass : Verdict::fail);
    j["source"] = r.source;
    j["output"] = faults.empty() ? OJson(r.output) : OJson(nullptr);
    j["summary"] = r.imported.summary;
    j["phases"] = r.phases;
    j["faults"] = std::move(list);
    return json_text(j);
  }
  std::ostringstream out;
  if (faults.empty()) {
    out << "imported " << text_escape(r.source) << ": " << text_escape(r.imported.summary) << ", "
        << r.phases << " phases -> " << text_escape(r.output)
        << " (format 3; phasecheck verify it, or the "
        << (r.imported.format == "mscclpp" ? "plan" : "XML") << " itself)\n";
    return out.str();
  }
  out << "FAIL  " << text_escape(r.source) << ": " << text_escape(r.imported.summary) << ": "
      << faults.size() << (faults.size() == 1 ? " fault" : " faults")
      << " in its execution; nothing written (the JSON program would not carry them: "
         "phasecheck verify "
      << text_escape(r.source) << " shows them with the other checks)\n";
  for (const ExecutionFault& f : faults) {
    out << "  " << f.kind << ": " << f.explanation << "\n";
    for (const StepRef& s : f.steps) out << "    " << to_string(s) << "\n";
  }
  return out.str();
}

std::string render_msccl_export(const MscclExportRun& r, ReportFormat format) {
  text_or_json(format, "render_msccl_export");
  const deploy::MscclExport& x = r.result;
  using Stage = deploy::MscclExport::Stage;
  if (format == ReportFormat::json) {
    OJson j;
    j["command"] = "export";
    j["format"] = "msccl";
    j["verdict"] = to_string(x.verdict());
    j["stage"] = x.stage == Stage::refused             ? "refused"
                 : x.stage == Stage::self_check_failed ? "self-check-failed"
                                                       : "exported";
    j["source"] = r.source;
    j["output"] = x.stage == Stage::exported ? OJson(r.output) : OJson(nullptr);
    j["steps"] = x.steps;
    j["gpus"] = x.gpus;
    j["channels"] = x.channels;
    j["schedule"] = report_json(x.input, r.source);
    j["read_back"] =
        x.stage == Stage::refused ? OJson(nullptr) : report_json(x.read_back, "<export>");
    return json_text(j);
  }
  std::ostringstream out;
  switch (x.stage) {
    case Stage::refused:
      out << "export refused: " << text_escape(r.source) << " does not verify\n\n"
          << render(x.input, r.source, ReportFormat::text);
      break;
    case Stage::self_check_failed:
      out << "export failed its own check: the MSCCL program made from " << text_escape(r.source)
          << " does not verify (please report this)\n\n"
          << render(x.read_back, "<export>", ReportFormat::text);
      break;
    case Stage::exported:
      out << "exported " << text_escape(r.source) << " (verified) -> " << text_escape(r.output)
          << ": " << x.steps << " steps on " << x.gpus << " gpus, " << x.channels
          << (x.channels == 1u ? " channel" : " channels")
          << "; read back and verified: " << tally(x.read_back.checks) << "\n";
      break;
  }
  return out.str();
}

}  // namespace phasecheck::reports
