#include "report/congestion_report.hpp"

#include <sstream>

#include "core/escape.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

Table congestion_table(const verify::CongestionSummary& s, const Topology& model) {
  Table table({{"phase", "phase"},
               {"max_load", "max load"},
               {"mean_load", "mean load"},
               {"busiest_link", "busiest link"}});
  for (std::size_t i = 0; i < s.loads.size(); ++i) {
    const verify::PhaseLoad& l = s.loads[i];
    table.add(
        {std::uint64_t{i}, l.max, l.mean, l.max ? Cell{link_name(model, l.busiest)} : Cell{}});
  }
  return table;
}

std::string render_congestion(const verify::CongestionSummary& s, const Topology& model,
                              std::string_view source, bool phases, ReportFormat format) {
  const verify::Report& report = s.report;
  const Table table = congestion_table(s, model);
  switch (format) {
    case ReportFormat::csv:
      return table.csv();
    case ReportFormat::json: {
      nlohmann::ordered_json j;
      j["schedule"] = source;
      j["algorithm"] = report.algorithm;
      j["collective"] = to_string(report.collective);
      j["topology"] = report.topology;
      j["delivered"] = s.delivered;
      j["phases"] = s.phases;
      j["sum_of_max"] = {
          {"value", s.sum_of_max}, {"lower_bound", s.lower_bound}, {"argument", s.argument}};
      j["mean_of_max"] = s.mean_of_max;
      j["peak"] = s.peak;
      j["per_phase"] = phases ? table.json() : nlohmann::ordered_json(nullptr);
      return json_text(j);
    }
    case ReportFormat::text:
      break;
    case ReportFormat::junit:
    case ReportFormat::markdown:
      unsupported(format, "render_congestion");
  }
  std::ostringstream out;
  out << (s.delivered ? "" : "INVALID  ") << "congestion of " << text_escape(report.algorithm)
      << " (" << report.collective << ") on " << text_escape(report.topology) << "  ["
      << text_escape(source) << "]\n"
      << "  " << s.phases << " phases; sum over phases of the busiest link's load: " << s.sum_of_max
      << " blocks (lower bound " << s.lower_bound << "); mean per phase " << figure(s.mean_of_max)
      << ", peak " << s.peak << "\n";
  if (!s.argument.empty()) out << "  lower bound " << s.lower_bound << ": " << s.argument << "\n";
  out << "  delivery: " << (s.delivered ? "every block exactly once" : "FAILS (phasecheck verify)")
      << "\n";
  if (phases) out << "\n" << table.text("  ");
  return out.str();
}

}  // namespace phasecheck::reports
