#include "report/deploy_report.hpp"

#include <sstream>

#include "core/escape.hpp"

namespace phasecheck::reports {
namespace {

using OJson = nlohmann::ordered_json;

std::string deploy_json(const DeployRun& run) {
  const deploy::Outcome& o = run.outcome;
  OJson schedules = OJson::array();
  for (std::size_t i = 0; i < o.checked.size(); ++i) {
    const deploy::Checked& c = o.checked[i];
    OJson s;
    s["source"] = c.source;
    s["verdict"] = to_string(c.verdict());
    s["refusal"] = c.plan ? OJson(nullptr) : OJson(c.refusal);
    s["algorithm"] = c.report.algorithm;
    // A report of bytes is an alltoallv's (verify/report.hpp), refused or not.
    s["collective"] = c.report.bytes ? "alltoallv" : std::string(to_string(c.report.collective));
    s["ranks"] = c.plan ? OJson(c.plan->ranks) : OJson(nullptr);
    s["sync"] = c.plan ? OJson(programs::to_string(c.separation)) : OJson(nullptr);
    s["serves"] = c.plan && !run.emit_c ? OJson(deploy::mpi_name(*c.plan)) : OJson(nullptr);
    s["function"] =
        c.plan && run.emit_c && i < o.functions.size() ? OJson(o.functions[i]) : OJson(nullptr);
    s["report"] = report_json(c.report, c.source);
    s["buffer_program"] = c.lowered ? report_json(*c.lowered, c.source) : OJson(nullptr);
    s["replay"] = c.replay ? check_json(*c.replay) : OJson(nullptr);
    schedules.push_back(std::move(s));
  }
  OJson j;
  j["command"] = "deploy";
  j["verdict"] = to_string(o.verdict());
  j["output"] = o.deployed() ? OJson(run.output) : OJson(nullptr);
  j["emit_c"] = run.emit_c;
  j["schedules"] = std::move(schedules);
  return json_text(j);
}

}  // namespace

std::string render_deploy(const DeployRun& run, ReportFormat format) {
  switch (format) {
    case ReportFormat::json:
      return deploy_json(run);
    case ReportFormat::text:
      break;
    case ReportFormat::junit:
    case ReportFormat::markdown:
    case ReportFormat::csv:
      unsupported(format, "render_deploy");
  }
  const deploy::Outcome& o = run.outcome;
  std::ostringstream out;
  if (o.verdict() != Verdict::pass) {
    for (const deploy::Checked& c : o.checked) {
      if (c.verdict() == Verdict::pass) continue;
      out << "deploy refused: " << text_escape(c.source) << ": " << text_escape(c.refusal)
          << "; nothing written\n\n"
          << render(c.lowered ? *c.lowered : c.report, c.source, ReportFormat::text);
      if (c.replay && c.replay->verdict != Verdict::pass && c.replay->counterexample)
        out << "\nreplay: " << *c.replay->counterexample << "\n";
    }
    return out.str();
  }
  for (std::size_t i = 0; i < o.checked.size(); ++i) {
    const deploy::Plan& p = *o.checked[i].plan;
    out << "verified  " << text_escape(p.algorithm) << " (" << deploy::collective_name(p) << ") on "
        << p.ranks << " ranks [" << text_escape(p.source) << "]: " << p.verdict << "; --sync "
        << programs::to_string(p.separation) << "; ";
    if (run.emit_c)
      out << "int " << o.functions[i] << "(...)\n";
    else
      out << "serves " << deploy::mpi_name(p) << " on communicators of " << p.ranks
          << " ranks\n";
  }
  out << "wrote " << run.output
      << (run.emit_c ? " (C99; compile with mpicc)\n"
                     : " (run with LD_PRELOAD=" + run.output +
                           "; PHASECHECK_LOG=1 says which schedule runs)\n");
  return out.str();
}

}  // namespace phasecheck::reports
