#include "report/survey_report.hpp"

#include "report/verify_report.hpp"

namespace phasecheck::reports {
namespace {

Cell optional_cell(const std::optional<std::uint64_t>& v) { return v ? Cell{*v} : Cell{}; }

}  // namespace

Table survey_table(const experiments::Survey& survey) {
  Table table({{"example", "example"},
               {"model", "model"},
               {"algorithm", "algorithm"},
               {"verdict", "verdict"},
               {"failed", "failed"},
               {"phases", "phases"},
               {"C1", "C1"},
               {"bound_C1", "bound"},
               {"gap_C1", "gap"},
               {"C2", "C2"},
               {"bound_C2", "bound"},
               {"gap_C2", "gap"},
               {"claims", "claims"}});
  for (const experiments::SurveyRow& r : survey.rows) {
    if (r.not_applicable) {
      table.add({r.machine,
                 r.model,
                 r.algorithm,
                 std::string("n/a"),
                 {},
                 {},
                 {},
                 {},
                 {},
                 {},
                 {},
                 {},
                 *r.not_applicable});
      continue;
    }
    table.add({r.machine, r.model, r.algorithm, std::string(r.failed.empty() ? "pass" : "FAIL"),
               r.failed.empty() ? Cell{} : Cell{r.failed}, r.phases, r.c1, r.bound_c1,
               optional_cell(r.gap_c1), r.c2, r.bound_c2, optional_cell(r.gap_c2),
               std::string(r.kept ? "kept" : "BROKEN") +
                   (r.contention_free_claimed ? " (contention-free claimed)" : "")});
  }
  return table;
}

std::string render_survey(const experiments::Survey& survey, ReportFormat format) {
  const Table table = survey_table(survey);
  switch (format) {
    case ReportFormat::csv:
      return table.csv();
    case ReportFormat::json: {
      nlohmann::ordered_json j;
      j["topologies"] = survey.topologies;
      j["rows"] = table.json();
      j["broken"] = survey.broken;
      return json_text(j);
    }
    case ReportFormat::text:
      break;
    case ReportFormat::junit:
    case ReportFormat::markdown:
      unsupported(format, "render_survey");
  }
  std::string out = table.text();
  out +=
      "\nC1 = phases with communication (start-ups); C2 = the sum over phases of the "
      "largest transfer in blocks (the t_w m term); bound = the model's lower bound for "
      "this kind of schedule (direct or forwarding); gap = value - bound, for schedules "
      "that deliver everything without contention\n";
  if (survey.broken) out += "\nSome algorithm broke one of its claims (marked BROKEN).\n";
  return out;
}

}  // namespace phasecheck::reports
