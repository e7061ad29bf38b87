#include "report/fuzz_report.hpp"

#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include "core/escape.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

std::string fuzz_outcome_text(const properties::FuzzOutcome& o) {
  std::ostringstream out;
  switch (o.verdict) {
    case Verdict::pass: {
      const double s = o.seconds;
      out << "pass  " << text_escape(o.name) << ": " << o.cases << " cases in " << std::fixed
          << std::setprecision(2) << s << " s ("
          << static_cast<std::uint64_t>(double(o.cases) / std::max(s, 1e-9)) << "/s)";
      if (o.discarded) out << "; " << o.discarded << " generated machines did not fit it";
      out << "\n";
      break;
    }
    case Verdict::not_evaluated:
      out << "gave up  " << text_escape(o.name) << ": " << text_escape(o.reason, Newlines::keep)
          << " (" << o.cases << " cases ran)\n";
      break;
    case Verdict::fail:
    case Verdict::unknown:
      if (!o.failure) {
        out << "FAIL  " << text_escape(o.name) << ": " << text_escape(o.reason, Newlines::keep)
            << "\n";
        break;
      }
      {
        const properties::FuzzFailure& f = *o.failure;
        out << "\nFAIL  " << text_escape(f.what, Newlines::keep)
            << "\n  smallest machine: " << f.machine << "\n  written: " << f.files.front();
        for (std::size_t i = 1; i < f.files.size(); ++i)
          out << ", " << std::filesystem::path(f.files[i]).filename().string();
        out << "\n  replay:  " << f.replay << "\n  again:   " << f.again << "\n\n" << f.report;
      }
      break;
  }
  return out.str();
}

std::string fuzz_verdict_text(Verdict verdict) {
  return verdict == Verdict::not_evaluated
             ? "not evaluated: every algorithm gave up, nothing was checked\n"
             : "";
}

std::string fuzz_json(const properties::FuzzOptions& o, Verdict verdict,
                      const std::vector<properties::FuzzOutcome>& outcomes) {
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const properties::FuzzOutcome& r : outcomes) {
    nlohmann::ordered_json j = {
        {"name", r.name}, {"verdict", to_string(r.verdict)}, {"cases", r.cases}};
    switch (r.verdict) {
      case Verdict::pass:
        j["discarded"] = r.discarded;
        j["seconds"] = r.seconds;
        break;
      case Verdict::not_evaluated:
        j["reason"] = r.reason;
        break;
      case Verdict::fail:
      case Verdict::unknown:
        if (r.failure)
          j["failure"] = {{"what", r.failure->what},   {"machine", r.failure->machine},
                          {"files", r.failure->files}, {"replay", r.failure->replay},
                          {"again", r.failure->again}, {"report", r.failure->report}};
        else
          j["failure"] = {{"what", r.reason}};
        break;
    }
    results.push_back(std::move(j));
  }
  nlohmann::ordered_json j;
  j["command"] = "fuzz";
  j["verdict"] = to_string(verdict);
  j["seed"] = o.seed;
  j["cases"] = o.cases;
  j["seconds"] = o.seconds > 0 ? nlohmann::ordered_json(o.seconds) : nullptr;
  j["max_size"] = o.max_size;
  j["results"] = std::move(results);
  return json_text(j);
}

std::string fuzz_case_report(const verify::Report& report) {
  return render(report, "schedule.json", ReportFormat::text);
}

}  // namespace phasecheck::reports
