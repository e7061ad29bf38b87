// `phasecheck optimal` and `phasecheck whatif optimality`: proven optima (verify/optimal.hpp) next
// to the algorithms' counts and the lower bounds. Every witness the solver returns goes through
// the verifier before it is reported; an instance the solver cannot decide is printed as unknown.

#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/progress.hpp"
#include "core/suggest.hpp"
#include "experiments/bruck_family.hpp"
#include "experiments/optimality_tables.hpp"
#include "io/json.hpp"
#include "properties/claims_check.hpp"
#include "report/table.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"
#include "verify/bounds.hpp"
#include "verify/optimal.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {
namespace {

using verify::Verdict;

verify::Symmetry parse_symmetry(const std::string& s) {
  if (s == "clique") return verify::Symmetry::clique;
  if (s == "first") return verify::Symmetry::first;
  if (s == "none") return verify::Symmetry::none;
  throw InputError("--symmetry must be clique, first or none, not '" + s + "'");
}

// ---- optimal ----------------------------------------------------------------------------------

nlohmann::ordered_json steps_json(const std::vector<verify::OptimalStep>& steps) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const auto& step : steps)
    j.push_back({{"phases", step.phases}, {"answer", step.answer}, {"seconds", step.seconds}});
  return j;
}

int optimal_direct(const OptimalArgs& args, const Topology& model, Collective c,
                   std::ostream& out) {
  const auto bounds = verify::lower_bounds(model, c);
  const std::uint64_t lower = verify::best_bounds(bounds, true).first;
  const auto [upper, best] = properties::best_direct_algorithm(model, c);
  verify::OptimalOptions o;
  o.collective = c;
  o.lower = lower;
  o.upper = upper;
  o.timeout = args.timeout;
  o.symmetry = parse_symmetry(args.symmetry);
  o.encoding =
      args.encoding == "pairwise" ? verify::Encoding::pairwise : verify::Encoding::cardinality;
  o.smt2 = args.smt2;
  const verify::OptimalResult r = verify::optimal_phases(model, o);
  std::ostringstream body;  // printed below the verdict
  body << "  lower bound " << lower << " (docs/bounds.md)";
  if (r.clique > 1) body << "; " << r.clique << " messages pairwise conflict";
  body << "; best registered algorithm: "
       << (best.empty() ? "none valid here" : best + ", " + std::to_string(upper) + " phases")
       << "\n";
  for (const auto& step : r.steps)
    body << "  T = " << step.phases << ": " << step.answer << " (" << number(step.seconds)
         << " s)\n";
  // The library checked the witness before it could call the optimum proven.
  const bool witness_ok = r.witness_check.verdict != verify::Verdict::fail;
  if (r.witness) {
    body << "  witness: " << r.witness->phases.size() << " phases, checked by the verifier: "
         << (witness_ok ? "delivery and contention pass" : "FAILS: " + r.witness_check.summary)
         << "\n";
    if (!args.output.empty() && witness_ok)
      write_output(args.output, [&](std::ostream& os) { os << io::schedule_to_json(*r.witness); },
                   {args.topology});
  }
  // The solver gave up, but the best algorithm's schedule (direct, delivered, contention-free:
  // checked by the verifier in best_direct_algorithm) meets the lower bound: that proves it.
  const bool met_by_algorithm = !r.proven && !best.empty() && upper == lower;
  const Verdict verdict =
      met_by_algorithm && r.verdict() == Verdict::unknown ? Verdict::pass : r.verdict();
  const int exit_code = verdict == Verdict::pass ? 0 : 1;
  if (args.report == "json") {
    nlohmann::ordered_json j;
    j["command"] = "optimal";
    j["verdict"] = to_string(verdict);
    j["mode"] = "direct";
    j["topology"] = describe(model);
    j["source"] = input_name(args.topology);
    j["collective"] = to_string(c);
    j["lower_bound"] = lower;
    j["clique"] = r.clique;
    j["best_algorithm"] = best.empty() ? nlohmann::ordered_json(nullptr)
                                       : nlohmann::ordered_json{{"name", best}, {"phases", upper}};
    // Known: lower <= optimum <= upper; met_by_algorithm closes the gap with the bound.
    const std::uint64_t known_lower = met_by_algorithm ? upper : r.lower,
                        known_upper = met_by_algorithm ? upper : r.upper;
    j["optimum"] = {
        {"lower", known_lower},
        {"upper", known_upper},
        {"proven", verdict == Verdict::pass},
        {"proof", met_by_algorithm ? "the lower bound, met by " + best + "'s schedule" : r.why}};
    j["steps"] = steps_json(r.steps);
    j["witness"] = r.witness
                       ? nlohmann::ordered_json{{"phases", r.witness->phases.size()},
                                                {"check", reports::check_json(r.witness_check)}}
                       : nlohmann::ordered_json(nullptr);
    out << reports::json_text(j);
    return exit_code;
  }
  if (!witness_ok)
    out << "WITNESS FAILS  the solver's schedule in " << r.upper
        << " phases breaks the checks: an encoding bug";
  else if (r.proven)
    out << "PROVEN  optimum " << r.upper << " phases (" << r.why << ")";
  else if (met_by_algorithm)
    out << "PROVEN  optimum " << upper << " phases (the lower bound, met by " << best
        << "'s schedule; " << r.why << ")";
  else
    out << "UNKNOWN  " << r.lower << " <= optimum <= " << r.upper << " (" << r.why << ")";
  if (!best.empty() && r.proven && witness_ok)
    out << "; " << best << " is "
        << (upper == r.upper ? "optimal" : "off by " + std::to_string(upper - r.upper));
  out << "\n  direct " << c << " on " << describe(model) << "\n" << body.str();
  return exit_code;
}

int optimal_forwarding(const OptimalArgs& args, const Topology& model, Collective c,
                       std::ostream& out) {
  if (!args.smt2.empty() || !args.output.empty() || args.symmetry != "clique" ||
      args.encoding != "cardinality")
    throw InputError("--smt2, --output, --symmetry and --encoding are for --mode direct");
  verify::ForwardingOptions o;
  o.collective = c;
  o.max_transfer = args.max_transfer;
  o.timeout = args.timeout;
  const std::vector<experiments::BruckPoint> bruck = experiments::bruck_family(model, c);
  for (const auto& b : bruck)
    if (!o.max_transfer || experiments::largest_transfer(b.schedule) <= o.max_transfer)
      o.known.push_back({b.name, b.schedule});
  const verify::ForwardingResult r = verify::optimal_forwarding(model, o);
  const auto& f = std::get<FullyConnected>(model);

  Table frontier({"C1", "least C2", "proof", "Pareto", "seconds", "witness", "checked"});
  std::map<std::uint64_t, std::uint64_t> least;  // C1 -> least C2, where proven
  std::string points;                            // the Pareto points, "3:5 4:4"
  std::uint64_t previous = 0;
  for (const auto& point : r.frontier) {
    std::string checked = "-";
    if (point.witness) {  // checked by the library against the point's C1 and C2
      const bool ok = point.witness_check.verdict == Verdict::pass;
      checked = ok ? "C1 <= " + std::to_string(point.c1) + ", C2 " + std::to_string(point.c2_upper)
                   : "FAILS: " + point.witness_check.summary;
    }
    if (point.proven) least[point.c1] = point.c2_upper;
    const bool pareto = previous == 0 || point.c2_upper < previous;
    if (pareto)
      points += (points.empty() ? "" : " ") + std::to_string(point.c1) + ":" +
                experiments::known_range(point.c2_lower, point.c2_upper);
    previous = point.c2_upper;
    frontier.add({std::to_string(point.c1),
                  experiments::known_range(point.c2_lower, point.c2_upper),
                  point.proven ? point.proof : "unknown", pareto ? "yes" : "no",
                  number(point.seconds), point.source, checked});
  }

  Table family({"algorithm", "C1", "C2", "least C2 at its C1"});
  std::size_t bruck_optimal = 0;
  for (const auto& b : bruck) {
    const auto it = least.find(b.c1);
    const bool too_large =
        o.max_transfer && experiments::largest_transfer(b.schedule) > o.max_transfer;
    bruck_optimal += !too_large && it != least.end() && it->second == b.c2;
    family.add({b.name, std::to_string(b.c1), std::to_string(b.c2),
                too_large            ? "transfers too large"
                : it == least.end()  ? "-"
                : it->second == b.c2 ? "optimal"
                                     : "+" + std::to_string(b.c2 - it->second)});
  }

  if (args.report == "json") {
    nlohmann::ordered_json j;
    j["command"] = "optimal";
    j["verdict"] = to_string(r.verdict());
    j["mode"] = "forwarding";
    j["topology"] = describe(model);
    j["source"] = input_name(args.topology);
    j["collective"] = to_string(c);
    j["ranks"] = f.ranks;
    j["ports"] = f.ports;
    j["max_transfer"] = o.max_transfer ? nlohmann::ordered_json(o.max_transfer) : nullptr;
    j["least_C1"] = {{"lower", r.c1_lower},
                     {"proven", r.c1_proven},
                     {"proof", r.c1_proven ? nlohmann::ordered_json(r.c1_proof) : nullptr}};
    nlohmann::ordered_json points_json = nlohmann::ordered_json::array();
    std::uint64_t before = 0;
    for (const auto& point : r.frontier) {
      points_json.push_back(
          {{"C1", point.c1},
           {"C2", {{"lower", point.c2_lower}, {"upper", point.c2_upper}}},
           {"proven", point.proven},
           {"proof", point.proven ? nlohmann::ordered_json(point.proof) : nullptr},
           {"pareto", before == 0 || point.c2_upper < before},
           {"witness", point.source},
           {"check", reports::check_json(point.witness_check)},
           {"seconds", point.seconds}});
      before = point.c2_upper;
    }
    j["frontier"] = std::move(points_json);
    nlohmann::ordered_json family_json = nlohmann::ordered_json::array();
    for (const auto& b : bruck) {
      const auto it = least.find(b.c1);
      const bool too_large =
          o.max_transfer && experiments::largest_transfer(b.schedule) > o.max_transfer;
      family_json.push_back(
          {{"algorithm", b.name},
           {"C1", b.c1},
           {"C2", b.c2},
           {"least_C2_at_C1", too_large || it == least.end() ? nlohmann::ordered_json(nullptr)
                                                             : nlohmann::ordered_json(it->second)},
           {"fits_max_transfer", !too_large}});
    }
    j["bruck"] = std::move(family_json);
    j["why"] = r.why;
    j["steps"] = steps_json(r.steps);
    out << reports::json_text(j);
    return r.verdict() == Verdict::pass ? 0 : 1;
  }

  // Verdict first, then the frontier, then Bruck et al.'s family against it.
  out << (r.verdict() == Verdict::fail
              ? "WITNESS FAILS  a schedule breaks the checks: an encoding bug"
          : r.verdict() == Verdict::pass
              ? "PROVEN  Pareto frontier C1:C2 = " + points
              : "UNKNOWN  part of the frontier is open: C1:C2 = " + points)
      << "\n  forwarding " << c << " (" << (c == Collective::alltoall ? "index" : "concatenation")
      << ") on " << describe(model) << ", n = " << f.ranks << ", k = " << f.ports;
  if (o.max_transfer) out << ", at most " << o.max_transfer << " blocks per transfer";
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
  out << "\n";
  frontier.print(out);
  out << "  proof: bound = the witness meets the counting bound (docs/bounds.md, reach bound); "
         "unsat = the solver shows C2 - 1 impossible\n\n";
  family.print(out);
  double total = 0;
  for (const auto& step : r.steps) total += step.seconds;
  out << "\n"
      << bruck_optimal << " of " << bruck.size() << " "
      << (bruck.size() == 1 ? "schedule" : "schedules") << " of Bruck et al. optimal at their C1; "
      << r.steps.size() << (r.steps.size() == 1 ? " solver call, " : " solver calls, ")
      << number(total) << " s\n";
  return r.verdict() == Verdict::pass ? 0 : 1;
}

}  // namespace

int optimal(const OptimalArgs& args, std::ostream& out) {
  const Topology model = io::read_topology_file(args.topology);
  const Collective c = parse_collective(args.collective);
  check_timeout(args.timeout);
  // Before the bounds and the algorithms, which take long on a large machine.
  if (args.mode == "forwarding")
    check_ranks(ranks(model), verify::kMaxForwardingRanks, "optimal --mode forwarding",
                verify::kLargerMachines);
  else
    check_ranks(ranks(model), verify::kMaxOptimalRanks, "optimal", verify::kLargerMachines);
  return args.mode == "forwarding" ? optimal_forwarding(args, model, c, out)
                                   : optimal_direct(args, model, c, out);
}

// ---- whatif optimality ------------------------------------------------------------------------

int whatif_optimality(const WhatIfArgs& args, reports::TableFormat format, std::ostream& out) {
  check_timeout(args.timeout);
  std::optional<reports::TableReport> report;
  if (args.family == "kport") {
    experiments::KportOptimality k =
        experiments::kport_optimality(args.max_ranks, args.timeout, terminal_stderr());
    if (format == reports::TableFormat::text) {
      out << k.text;
      return k.report.verdict == verify::Verdict::pass ? 0 : 1;
    }
    report = std::move(k.report);
  } else if (args.family == "tree") {
    report = experiments::tree_optimality(args.max_machines, args.timeout, terminal_stderr());
  } else if (args.family == "cluster") {
    report = experiments::cluster_optimality(args.max_ranks, args.timeout, terminal_stderr());
  } else {
    throw InputError("whatif optimality: " +
                     unknown_name("family", args.family, {"cluster", "tree", "kport"}));
  }
  out << reports::render(*report, format);
  return report->verdict == verify::Verdict::pass ? 0 : 1;
}

}  // namespace phasecheck::cli
