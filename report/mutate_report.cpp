#include "report/mutate_report.hpp"

#include <sstream>

#include "core/escape.hpp"
#include "report/table.hpp"

namespace phasecheck::reports {
namespace {

struct Totals {
  std::uint64_t invalid = 0, caught = 0;
};

Totals totals(const properties::MutationReport& report) {
  Totals t;
  for (const auto& c : report.classes) {
    t.invalid += c.invalid;
    t.caught += c.caught;
  }
  return t;
}

}  // namespace

std::string mutation_text(const MutationRun& run) {
  const properties::MutationReport& report = run.report;
  const Totals t = totals(report);
  std::ostringstream out;
  out << "mutation analysis of " << text_escape(run.algorithm) << " on "
      << text_escape(run.topology) << "  [" << text_escape(run.source) << "]\n"
      << "  a mutant is invalid when a naive re-simulation finds "
      << (report.program ? "an op fault, an output slot without its chunk, " : "")
      << "a block not delivered exactly once"
      << (report.contention_counts ? " or contention (the original is contention-free)" : "")
      << "\n\n";
  Table table({{"fault", "fault"},
               {"mutants", "mutants"},
               {"invalid", "invalid"},
               {"caught", "caught"},
               {"missed", "missed"},
               {"over_strict", "over-strict"},
               {"claims_only", "valid, rejected by claims"}});
  for (const auto& c : report.classes)
    table.add({c.name, c.mutants, c.invalid, c.caught, c.missed, c.over_strict, c.claims_only});
  out << table.text("  ");
  for (const auto& c : report.classes)
    if (!c.example.empty())
      out << "\n  " << text_escape(c.name) << ": " << text_escape(c.example) << "\n";
  out << "\n"
      << (run.perfect ? "PASS" : "FAIL") << "  caught " << t.caught << " of " << t.invalid
      << " invalid mutants"
      << (t.invalid ? " (" + figure(100.0 * double(t.caught) / double(t.invalid)) + "%)" : "")
      << "; every accepted mutant re-simulated valid: " << (run.perfect ? "yes" : "NO") << "\n";
  return out.str();
}

nlohmann::ordered_json mutation_json(const MutationRun& run) {
  const properties::MutationReport& report = run.report;
  const Totals t = totals(report);
  nlohmann::ordered_json j;
  j["command"] = "mutate";
  j["verdict"] = run.perfect ? "pass" : "fail";
  j["schedule"] = run.source;
  j["algorithm"] = run.algorithm;
  j["topology"] = run.topology;
  j["seed"] = run.seed;
  j["per_class"] = run.per_class;
  j["program"] = report.program;
  j["contention_counts"] = report.contention_counts;
  nlohmann::ordered_json classes = nlohmann::ordered_json::array();
  for (const auto& c : report.classes)
    classes.push_back({{"fault", c.name},
                       {"mutants", c.mutants},
                       {"invalid", c.invalid},
                       {"caught", c.caught},
                       {"missed", c.missed},
                       {"over_strict", c.over_strict},
                       {"claims_only", c.claims_only},
                       {"example", c.example.empty() ? nlohmann::ordered_json(nullptr)
                                                     : nlohmann::ordered_json(c.example)}});
  j["classes"] = std::move(classes);
  j["invalid"] = t.invalid;
  j["caught"] = t.caught;
  return j;
}

}  // namespace phasecheck::reports
