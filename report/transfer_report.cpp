#include "report/transfer_report.hpp"

#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

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

namespace {

/// One export, whatever the format: what the renderers below share.
struct ExportView {
  std::string_view format;  ///< "msccl", "mscclpp"
  std::string_view made;    ///< what was made, in the self-check's message
  const std::string& source;
  const std::string& output;
  const deploy::VerifiedExport& result;
  std::vector<std::pair<std::string_view, std::uint64_t>> counts;  ///< JSON, in order
  std::string summary;                                             ///< the counts, for a person
};

std::string render_export(const ExportView& v, ReportFormat format) {
  const deploy::VerifiedExport& x = v.result;
  using Stage = deploy::VerifiedExport::Stage;
  if (format == ReportFormat::json) {
    OJson j;
    j["command"] = "export";
    j["format"] = v.format;
    j["verdict"] = to_string(x.verdict());
    j["stage"] = x.stage == Stage::refused             ? "refused"
                 : x.stage == Stage::self_check_failed ? "self-check-failed"
                                                       : "exported";
    j["source"] = v.source;
    j["output"] = x.stage == Stage::exported ? OJson(v.output) : OJson(nullptr);
    for (const auto& [key, value] : v.counts) j[std::string(key)] = value;
    j["schedule"] = report_json(x.input, v.source);
    j["read_back"] =
        x.stage == Stage::refused ? OJson(nullptr) : report_json(x.read_back, "<export>");
    return json_text(j);
  }
  std::ostringstream out;
  switch (x.stage) {
    case Stage::refused:
      out << "export refused: " << text_escape(v.source) << " does not verify\n\n"
          << render(x.input, v.source, ReportFormat::text);
      break;
    case Stage::self_check_failed:
      out << "export failed its own check: the " << v.made << " made from " << text_escape(v.source)
          << " does not verify (please report this)\n\n"
          << render(x.read_back, "<export>", ReportFormat::text);
      break;
    case Stage::exported:
      out << "exported " << text_escape(v.source) << " (verified) -> " << text_escape(v.output)
          << ": " << v.summary << "; read back and verified: " << tally(x.read_back.checks) << "\n";
      break;
  }
  return out.str();
}

}  // namespace

std::string render_msccl_export(const MscclExportRun& r, ReportFormat format) {
  text_or_json(format, "render_msccl_export");
  const deploy::MscclExport& x = r.result;
  const std::string summary = std::to_string(x.steps) + " steps on " + std::to_string(x.gpus) +
                              " gpus, " + std::to_string(x.channels) +
                              (x.channels == 1u ? " channel" : " channels");
  return render_export({"msccl",
                        "MSCCL program",
                        r.source,
                        r.output,
                        x,
                        {{"steps", x.steps}, {"gpus", x.gpus}, {"channels", x.channels}},
                        summary},
                       format);
}

std::string render_mscclpp_export(const MscclppExportRun& r, ReportFormat format) {
  text_or_json(format, "render_mscclpp_export");
  const deploy::MscclppExport& x = r.result;
  const std::string summary = std::to_string(x.ops) + " ops in " + std::to_string(x.threadblocks) +
                              " threadblocks on " + std::to_string(x.gpus) + " gpus";
  return render_export({"mscclpp",
                        "MSCCL++ plan",
                        r.source,
                        r.output,
                        x,
                        {{"ops", x.ops}, {"threadblocks", x.threadblocks}, {"gpus", x.gpus}},
                        summary},
                       format);
}

}  // namespace phasecheck::reports
