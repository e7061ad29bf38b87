#include "report/algorithms_report.hpp"

#include <variant>

#include "core/overloaded.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

nlohmann::ordered_json parameter_json(const ParameterSpec& spec) {
  nlohmann::ordered_json j;
  j["name"] = spec.name;
  const auto bound = [](const RangeBound& b) {
    return b.is_rank_count ? nlohmann::ordered_json("p") : nlohmann::ordered_json(b.number);
  };
  std::visit(Overloaded{[&](const UInt& u) {
                          j["type"] = "unsigned";
                          j["min"] = bound(u.min);
                          j["max"] = bound(u.max);
                        },
                        [&](const Boolean&) { j["type"] = "boolean"; },
                        [&](const Choice& c) {
                          j["type"] = "choice";
                          j["values"] = std::vector<std::string>(c.values.begin(), c.values.end());
                        },
                        [&](const Text& t) {
                          j["type"] = "text";
                          j["form"] = t.form;
                        }},
             spec.type);
  std::visit(Overloaded{[&](const Fixed& f) { j["default"] = f.value; },
                        [&](const InWords& w) { j["default_in_words"] = w.description; }},
             spec.fallback);
  j["help"] = spec.help;
  return j;
}

std::string render_algorithms(const std::vector<AlgorithmListing>& algorithms,
                              ReportFormat format) {
  Table table({{"algorithm", "algorithm"},
               {"parameters", "parameters"},
               {"summary", "summary"},
               {"reference", "reference"}});
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const AlgorithmListing& a : algorithms) {
    table.add({a.name, a.parameters, a.summary, a.reference});
    nlohmann::ordered_json parameters = nlohmann::ordered_json::array();
    for (const ParameterSpec& spec : a.parameter_specs) parameters.push_back(parameter_json(spec));
    all.push_back({{"name", a.name},
                   {"summary", a.summary},
                   {"reference", a.reference},
                   {"library", a.library.empty() ? nlohmann::ordered_json()
                                                 : nlohmann::ordered_json(a.library)},
                   {"in_place", a.in_place},
                   {"parameters", std::move(parameters)}});
  }
  switch (format) {
    case ReportFormat::csv:
      return table.csv();
    case ReportFormat::json:
      return json_text({{"command", "algorithms"}, {"algorithms", std::move(all)}});
    case ReportFormat::text:
      break;
    case ReportFormat::junit:
    case ReportFormat::markdown:
      unsupported(format, "render_algorithms");
  }
  return table.text();
}

}  // namespace phasecheck::reports
