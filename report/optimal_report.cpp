#include "report/optimal_report.hpp"

#include <sstream>

#include "core/table.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {
namespace {

nlohmann::ordered_json steps_json(const std::vector<verify::OptimalStep>& steps) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& step : steps)
    j.push_back({{"phases", step.phases}, {"answer", step.answer}, {"seconds", step.seconds}});
  return j;
}

std::string plural(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// The keys both modes start with: command, verdict, mode, the machine and the collective.
nlohmann::ordered_json heading(Verdict verdict, const char* mode, const OptimumMachine& machine,
                               Collective collective) {
  nlohmann::ordered_json j;
  j["command"] = "optimal";
  j["verdict"] = to_string(verdict);
  j["mode"] = mode;
  j["topology"] = machine.description;
  j["source"] = machine.source;
  j["collective"] = to_string(collective);
  return j;
}

}  // namespace

std::string optimum_text(const experiments::DirectOptimum& d, const OptimumMachine& machine) {
  const verify::OptimalResult& r = d.solver;
  const bool witness_ok = r.witness_check.verdict != Verdict::fail;
  std::ostringstream out;
  if (!witness_ok)
    out << "WITNESS FAILS  the solver's schedule in " << r.upper
        << " phases breaks the checks: an encoding bug";
  else if (r.proven)
    out << "PROVEN  optimum " << r.upper << " phases (" << r.why << ")";
  else if (d.met_by_algorithm)
    out << "PROVEN  optimum " << d.best_phases << " phases (the lower bound, met by " << d.best
        << "'s schedule; " << r.why << ")";
  else
    out << "UNKNOWN  " << r.lower << " <= optimum <= " << r.upper << " (" << r.why << ")";
  if (!d.best.empty() && r.proven && witness_ok)
    out << "; " << d.best << " is "
        << (d.best_phases == r.upper ? "optimal"
                                     : "off by " + std::to_string(d.best_phases - r.upper));
  out << "\n  direct " << d.collective << " on " << machine.description << "\n";
  out << "  lower bound " << d.lower_bound << " (docs/bounds.md)";
  if (r.clique > 1) out << "; " << r.clique << " messages pairwise conflict";
  out << "; best registered algorithm: "
      << (d.best.empty() ? "none valid here"
                         : d.best + ", " + std::to_string(d.best_phases) + " phases")
      << "\n";
  for (const auto& step : r.steps)
    out << "  T = " << step.phases << ": " << step.answer << " (" << figure(step.seconds)
        << " s)\n";
  if (r.witness)
    out << "  witness: " << r.witness->phases.size() << " phases, checked by the verifier: "
        << (witness_ok ? "delivery and contention pass" : "FAILS: " + r.witness_check.summary)
        << "\n";
  return out.str();
}

std::string optimum_json(const experiments::DirectOptimum& d, const OptimumMachine& machine) {
  const verify::OptimalResult& r = d.solver;
  nlohmann::ordered_json j = heading(d.verdict, "direct", machine, d.collective);
  j["lower_bound"] = d.lower_bound;
  j["clique"] = r.clique;
  j["best_algorithm"] = d.best.empty()
                            ? nlohmann::ordered_json(nullptr)
                            : nlohmann::ordered_json{{"name", d.best}, {"phases", d.best_phases}};
  j["optimum"] = {{"lower", d.known_lower},
                  {"upper", d.known_upper},
                  {"proven", d.verdict == Verdict::pass},
                  {"proof", d.proof}};
  j["steps"] = steps_json(r.steps);
  j["witness"] = r.witness ? nlohmann::ordered_json{{"phases", r.witness->phases.size()},
                                                    {"check", check_json(r.witness_check)}}
                           : nlohmann::ordered_json(nullptr);
  return json_text(j);
}

std::string optimum_text(const experiments::ForwardingOptimum& f, const OptimumMachine& machine) {
  const verify::ForwardingResult& r = f.solver;
  Table frontier({{"C1", "C1"},
                  {"least_C2", "least C2"},
                  {"proof", "proof"},
                  {"pareto", "Pareto"},
                  {"seconds", "seconds"},
                  {"witness", "witness"},
                  {"checked", "checked"}});
  std::string points;  // the Pareto points, "3:5 4:4"
  for (std::size_t i = 0; i < r.frontier.size(); ++i) {
    const verify::FrontierPoint& point = r.frontier[i];
    std::string checked = "-";
    if (point.witness)  // checked by the library against the point's C1 and C2
      checked = point.witness_check.verdict == Verdict::pass
                    ? "C1 <= " + std::to_string(point.c1) + ", C2 " + std::to_string(point.c2_upper)
                    : "FAILS: " + point.witness_check.summary;
    const std::string c2 = experiments::known_range(point.c2_lower, point.c2_upper);
    if (f.pareto[i]) points += (points.empty() ? "" : " ") + std::to_string(point.c1) + ":" + c2;
    frontier.add({std::to_string(point.c1), c2, point.proven ? point.proof : "unknown",
                  std::string(f.pareto[i] ? "yes" : "no"), figure(point.seconds), point.source,
                  checked});
  }
  Table family({{"algorithm", "algorithm"},
                {"C1", "C1"},
                {"C2", "C2"},
                {"least_C2_at_C1", "least C2 at its C1"}});
  for (const auto& b : f.bruck)
    family.add({b.name, std::to_string(b.c1), std::to_string(b.c2),
                !b.fits               ? "transfers too large"
                : !b.least_c2         ? "-"
                : *b.least_c2 == b.c2 ? "optimal"
                                      : "+" + std::to_string(b.c2 - *b.least_c2)});

  // Verdict first, then the frontier, then Bruck et al.'s family against it.
  std::ostringstream out;
  out << (r.verdict() == Verdict::fail
              ? "WITNESS FAILS  a schedule breaks the checks: an encoding bug"
          : r.verdict() == Verdict::pass
              ? "PROVEN  Pareto frontier C1:C2 = " + points
              : "UNKNOWN  part of the frontier is open: C1:C2 = " + points)
      << "\n  forwarding " << f.collective << " ("
      << (f.collective == Collective::alltoall ? "index" : "concatenation") << ") on "
      << machine.description << ", n = " << f.ranks << ", k = " << f.ports;
  if (f.max_transfer) out << ", at most " << f.max_transfer << " blocks per transfer";
  out << "\n  C1 = rounds; C2 = sum over rounds of the largest transfer, in blocks\n";
  if (!r.frontier.empty()) {
    if (r.c1_proven)
      out << "  fewer than " << r.frontier.front().c1 << " rounds: impossible (" << r.c1_proof
          << ")\n";
    else
      out << "  the least C1 is between " << r.c1_lower << " and " << r.frontier.front().c1
          << " (not decided)\n";
  }
  if (r.verdict() != Verdict::pass) out << "  " << r.why << "\n";
  out << "\n"
      << frontier.text()
      << "  proof: bound = the witness meets the counting bound (docs/bounds.md, reach bound); "
         "unsat = the solver shows C2 - 1 impossible\n\n"
      << family.text() << "\n"
      << f.bruck_optimal << " of " << plural(f.bruck.size(), "schedule", "schedules")
      << " of Bruck et al. optimal at their C1; "
      << plural(r.steps.size(), "solver call", "solver calls") << ", " << figure(f.solver_seconds)
      << " s\n";
  return out.str();
}

std::string optimum_json(const experiments::ForwardingOptimum& f, const OptimumMachine& machine) {
  const verify::ForwardingResult& r = f.solver;
  nlohmann::ordered_json j = heading(r.verdict(), "forwarding", machine, f.collective);
  j["ranks"] = f.ranks;
  j["ports"] = f.ports;
  j["max_transfer"] = f.max_transfer ? nlohmann::ordered_json(f.max_transfer) : nullptr;
  j["least_C1"] = {{"lower", r.c1_lower},
                   {"proven", r.c1_proven},
                   {"proof", r.c1_proven ? nlohmann::ordered_json(r.c1_proof) : nullptr}};
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.frontier.size(); ++i) {
    const verify::FrontierPoint& point = r.frontier[i];
    points.push_back({{"C1", point.c1},
                      {"C2", {{"lower", point.c2_lower}, {"upper", point.c2_upper}}},
                      {"proven", point.proven},
                      {"proof", point.proven ? nlohmann::ordered_json(point.proof) : nullptr},
                      {"pareto", bool(f.pareto[i])},
                      {"witness", point.source},
                      {"check", check_json(point.witness_check)},
                      {"seconds", point.seconds}});
  }
  j["frontier"] = std::move(points);
  nlohmann::ordered_json family = nlohmann::ordered_json::array();
  for (const auto& b : f.bruck)
    family.push_back({{"algorithm", b.name},
                      {"C1", b.c1},
                      {"C2", b.c2},
                      {"least_C2_at_C1", b.least_c2 ? nlohmann::ordered_json(*b.least_c2)
                                                    : nlohmann::ordered_json(nullptr)},
                      {"fits_max_transfer", b.fits}});
  j["bruck"] = std::move(family);
  j["why"] = r.why;
  j["steps"] = steps_json(r.steps);
  return json_text(j);
}

std::string kport_optimality_text(const experiments::KportOptimality& k) {
  std::ostringstream out;
  for (const auto& [c, table] : k.per_collective)
    out << "forwarding "
        << (c == Collective::alltoall ? "index (alltoall)" : "concatenation (allgather)")
        << " on k-port machines of up to " << k.max_ranks
        << " ranks: least rounds C1, least C2 (blocks) for it, and Bruck et al.'s best at that "
           "C1\n\n"
        << table.text() << "\n";
  return out.str() + k.report.notes;
}

}  // namespace phasecheck::reports
