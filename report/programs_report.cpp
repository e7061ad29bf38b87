#include "report/programs_report.hpp"

#include <sstream>

#include "core/escape.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {
namespace {

using verify::Verdict;

/// The phase table's own verification in sync's and program's JSON: {"verdict", "failed": null |
/// the checks that failed, each with its counterexample's explanation}.
nlohmann::ordered_json table_json(const verify::Report& report) {
  const std::string failed = report.broken_claims(true);
  return {{"verdict", to_string(report.verdict())},
          {"failed",
           failed.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(failed)}};
}

}  // namespace

std::string sync_text(const programs::CheckedPlan& c, std::string_view source, bool list) {
  const verify::Report& report = c.table;
  const programs::SyncPlan& plan = c.plan;
  const Verdict table_verdict = report.verdict();
  std::ostringstream out;
  out << (c.ok() ? "PASS" : "FAIL") << "  pair-wise synchronization of "
      << text_escape(report.algorithm) << " (" << report.collective << ") on "
      << text_escape(report.topology) << "  [" << text_escape(source) << "]\n"
      << "  " << plan.messages.size() << " messages in " << report.counts.phases << " phases\n"
      << "  " << plan.contending_pairs
      << " contending pairs (messages in different phases sharing a link): the naive "
         "synchronizations\n"
      << "  " << plan.dependence_edges
      << " dependence edges (each message to the next later users of "
      << "each of its links)\n"
      << "  " << plan.kept.size() << " synchronization messages after transitive reduction ("
      << plan.by_program_order << " more orderings come free with each rank's program order)\n"
      << "  " << verdict_mark(table_verdict) << "  table            "
      << (table_verdict == Verdict::pass ? "verifies (delivery, contention, claims, bounds)"
                                         : "does not verify: run phasecheck verify")
      << "\n  " << verdict_mark(c.check.verdict) << "  " << c.check.name() << "  "
      << text_escape(c.check.summary) << "\n";
  if (c.check.counterexample) out << "\n" << *c.check.counterexample << "\n";
  if (list) {
    out << "\nsynchronization messages (after -> sender waits before):\n";
    for (const auto& [a, b] : plan.kept) {
      const programs::Message &x = plan.messages[a], &y = plan.messages[b];
      out << "  " << x.src << " -> " << y.src << "  after " << x.src << " -> " << x.dst
          << " (phase " << x.phase << "), before " << y.src << " -> " << y.dst << " (phase "
          << y.phase << ")\n";
    }
  }
  return out.str();
}

nlohmann::ordered_json sync_json(const programs::CheckedPlan& c, std::string_view source,
                                 bool list) {
  const verify::Report& report = c.table;
  const programs::SyncPlan& plan = c.plan;
  nlohmann::ordered_json j;
  j["command"] = "sync";
  j["verdict"] = c.ok() ? "pass" : "fail";
  j["schedule"] = source;
  j["algorithm"] = report.algorithm;
  j["collective"] = to_string(report.collective);
  j["topology"] = report.topology;
  j["messages"] = plan.messages.size();
  j["phases"] = report.counts.phases;
  j["contending_pairs"] = plan.contending_pairs;
  j["dependence_edges"] = plan.dependence_edges;
  j["synchronizations"] = plan.kept.size();
  j["ordered_by_program_order"] = plan.by_program_order;
  j["table"] = table_json(report);
  j["check"] = check_json(c.check);
  if (list) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    const auto message = [](const programs::Message& m) {
      return nlohmann::ordered_json{{"src", m.src}, {"dst", m.dst}, {"phase", m.phase}};
    };
    for (const auto& [a, b] : plan.kept)
      all.push_back({{"after", message(plan.messages[a])}, {"before", message(plan.messages[b])}});
    j["list"] = std::move(all);
  }
  return j;
}

std::string program_text(const programs::CheckedPrograms& c, std::string_view source) {
  const verify::Report& report = c.table;
  std::ostringstream out;
  out << (c.ok() ? "PASS" : "FAIL") << "  per-rank programs of " << text_escape(report.algorithm)
      << " (" << report.collective << ") on " << text_escape(report.topology) << ", "
      << c.separation_name << " synchronization  [" << text_escape(source) << "]\n"
      << "  " << c.programs.size() << " programs, " << c.operations << " operations";
  if (c.synchronizations) out << ", " << *c.synchronizations << " synchronization messages";
  out << "\n  " << verdict_mark(report.verdict()) << "  table   "
      << (report.verdict() == Verdict::pass ? "verifies" : "does not verify: run phasecheck verify")
      << "\n  " << verdict_mark(c.replay.verdict) << "  replay  " << c.replay.summary << "\n";
  if (c.replay.counterexample) out << "\n" << *c.replay.counterexample << "\n";
  for (const auto& [rank, listing] : c.listings) out << "\n" << listing;
  return out.str();
}

nlohmann::ordered_json program_json(const programs::CheckedPrograms& c, std::string_view source) {
  const verify::Report& report = c.table;
  nlohmann::ordered_json j;
  j["command"] = "program";
  j["verdict"] = c.ok() ? "pass" : "fail";
  j["schedule"] = source;
  j["algorithm"] = report.algorithm;
  j["collective"] = to_string(report.collective);
  j["topology"] = report.topology;
  j["sync"] = c.separation_name;
  j["programs"] = c.programs.size();
  j["operations"] = c.operations;
  j["synchronizations"] =
      c.synchronizations ? nlohmann::ordered_json(*c.synchronizations) : nullptr;
  j["table"] = table_json(report);
  j["replay"] = check_json(c.replay);
  nlohmann::ordered_json listings = nlohmann::ordered_json::object();
  for (const auto& [rank, listing] : c.listings) listings[std::to_string(rank)] = listing;
  j["listings"] = std::move(listings);
  return j;
}

}  // namespace phasecheck::reports
