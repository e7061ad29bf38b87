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
#include "io/json.hpp"
#include "io/report.hpp"
#include "io/table.hpp"
#include "core/suggest.hpp"
#include "properties/claims_check.hpp"
#include "schedules/registry.hpp"
#include "verify/bounds.hpp"
#include "verify/optimal.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

verify::Symmetry parse_symmetry(const std::string& s) {
  if (s == "clique") return verify::Symmetry::clique;
  if (s == "first") return verify::Symmetry::first;
  if (s == "none") return verify::Symmetry::none;
  throw InputError("--symmetry must be clique, first or none, not '" + s + "'");
}

// ---- Bruck's family, measured -----------------------------------------------------------------

struct BruckPoint {
  std::string name;  ///< "bruck-index r=3" or "bruck-concat"
  std::uint64_t c1 = 0, c2 = 0;
  Schedule schedule;
};

/// Bruck et al.'s algorithms on n ranks with k ports, C1 and C2 as the verifier measures them:
/// bruck-index for every radix 2..n (alltoall), or bruck-concat (allgather). Only schedules that
/// pass delivery and contention are listed.
std::vector<BruckPoint> bruck_family(const Topology& model, Collective c) {
  std::vector<BruckPoint> family;
  const auto* f = std::get_if<FullyConnected>(&model);
  if (!f) return family;  // not a k-port machine: optimal_forwarding says so
  const auto add = [&](const char* algorithm, Parameters p, std::string label) {
    const Schedule s = schedules::generate(*schedules::find_algorithm(algorithm), model, p);
    const verify::Report r = verify::verify(s, model);
    if (r.passed("delivery") && r.passed("contention"))
      family.push_back({std::move(label), r.counts.c1, r.counts.c2, s});
  };
  const auto ports = [f] {
    Parameters p;
    p.set("ports", std::to_string(f->ports));
    return p;
  };
  if (c == Collective::allgather) {
    add("bruck-concat", ports(), "bruck-concat");
    return family;
  }
  for (Rank r = 2; r <= f->ranks; ++r) {
    Parameters p = ports();
    p.set("radix", std::to_string(r));
    add("bruck-index", p, "bruck-index r=" + std::to_string(r));
  }
  return family;
}

std::size_t largest_transfer(const Schedule& s) {
  std::size_t largest = 0;
  for (const Phase& phase : s.phases)
    for (const Transfer& t : phase.transfers()) largest = std::max(largest, phase.blocks(t).size());
  return largest;
}

/// "9" when proven, "7..9" otherwise.
std::string range(std::uint64_t lo, std::uint64_t hi) {
  return lo == hi ? std::to_string(hi) : std::to_string(lo) + ".." + std::to_string(hi);
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
  const int exit_code = !witness_ok ? 1 : r.proven || met_by_algorithm ? 0 : 1;
  if (args.report == "json") {
    nlohmann::ordered_json j;
    j["command"] = "optimal";
    j["verdict"] = !witness_ok ? "fail" : exit_code == 0 ? "pass" : "unknown";
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
    j["optimum"] = {{"lower", known_lower},
                    {"upper", known_upper},
                    {"proven", exit_code == 0},
                    {"proof", met_by_algorithm ? "the lower bound, met by " + best + "'s schedule"
                                               : r.why}};
    j["steps"] = steps_json(r.steps);
    j["witness"] = r.witness ? nlohmann::ordered_json{{"phases", r.witness->phases.size()},
                                                      {"check", io::check_json(r.witness_check)}}
                             : nlohmann::ordered_json(nullptr);
    out << io::json_text(j);
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
  const std::vector<BruckPoint> bruck = bruck_family(model, c);
  for (const auto& b : bruck)
    if (!o.max_transfer || largest_transfer(b.schedule) <= o.max_transfer)
      o.known.push_back({b.name, b.schedule});
  const verify::ForwardingResult r = verify::optimal_forwarding(model, o);
  const auto& f = std::get<FullyConnected>(model);

  Table frontier({"C1", "least C2", "proof", "Pareto", "seconds", "witness", "checked"});
  bool all_ok = true, all_proven = r.c1_proven;
  std::map<std::uint64_t, std::uint64_t> least;  // C1 -> least C2, where proven
  std::string points;                            // the Pareto points, "3:5 4:4"
  std::uint64_t previous = 0;
  for (const auto& point : r.frontier) {
    std::string checked = "-";
    if (point.witness) {  // checked by the library against the point's C1 and C2
      const bool ok = point.witness_check.verdict == verify::Verdict::pass;
      all_ok &= ok;
      checked = ok ? "C1 <= " + std::to_string(point.c1) + ", C2 " + std::to_string(point.c2_upper)
                   : "FAILS: " + point.witness_check.summary;
    }
    all_proven &= point.proven;
    if (point.proven) least[point.c1] = point.c2_upper;
    const bool pareto = previous == 0 || point.c2_upper < previous;
    if (pareto)
      points += (points.empty() ? "" : " ") + std::to_string(point.c1) + ":" +
                range(point.c2_lower, point.c2_upper);
    previous = point.c2_upper;
    frontier.add({std::to_string(point.c1), range(point.c2_lower, point.c2_upper),
                  point.proven ? point.proof : "unknown", pareto ? "yes" : "no",
                  number(point.seconds), point.source, checked});
  }

  Table family({"algorithm", "C1", "C2", "least C2 at its C1"});
  std::size_t bruck_optimal = 0;
  for (const auto& b : bruck) {
    const auto it = least.find(b.c1);
    const bool too_large = o.max_transfer && largest_transfer(b.schedule) > o.max_transfer;
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
    j["verdict"] = !all_ok ? "fail" : all_proven ? "pass" : "unknown";
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
           {"check", io::check_json(point.witness_check)},
           {"seconds", point.seconds}});
      before = point.c2_upper;
    }
    j["frontier"] = std::move(points_json);
    nlohmann::ordered_json family_json = nlohmann::ordered_json::array();
    for (const auto& b : bruck) {
      const auto it = least.find(b.c1);
      const bool too_large = o.max_transfer && largest_transfer(b.schedule) > o.max_transfer;
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
    out << io::json_text(j);
    return all_ok && all_proven ? 0 : 1;
  }

  // Verdict first, then the frontier, then Bruck et al.'s family against it.
  out << (!all_ok      ? "WITNESS FAILS  a schedule breaks the checks: an encoding bug"
          : all_proven ? "PROVEN  Pareto frontier C1:C2 = " + points
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
  if (!all_proven) out << "  " << r.why << "\n";
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
  return all_ok && all_proven ? 0 : 1;
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

namespace {

/// Node-size vectors (largest first) of every cluster of `left` ranks.
void partitions(Rank left, Rank largest, std::vector<Rank>& now,
                std::vector<std::vector<Rank>>& all) {
  if (left == 0) {
    if (now.size() >= 1) all.push_back(now);
    return;
  }
  for (Rank s = std::min(left, largest); s >= 1; --s) {
    now.push_back(s);
    partitions(left - s, s, now, all);
    now.pop_back();
  }
}

/// A tree of switches with machines on them: every switch-to-switch link and each switch's
/// machine count. Machines are leaves, as in the tree model.
struct SwitchTree {
  std::vector<Rank> machines;                     ///< per switch
  std::vector<std::vector<std::uint32_t>> links;  ///< switch adjacency

  Rank machine_count() const {
    Rank n = 0;
    for (const Rank m : machines) n += m;
    return n;
  }
  /// The shape seen from switch `s`: "[m,S1,S2]" with m its machines (left out when 0) and S its
  /// neighbours' shapes, sorted. Equal for isomorphic rooted trees.
  std::string rooted(std::uint32_t s, std::uint32_t parent) const {
    std::vector<std::string> parts;
    for (const auto t : links[s])
      if (t != parent) parts.push_back(rooted(t, s));
    std::sort(parts.begin(), parts.end());
    std::string text = "[" + (machines[s] ? std::to_string(machines[s]) : "");
    for (const auto& p : parts) text += (text.size() > 1 ? "," : "") + p;
    return text + "]";
  }
  /// The least rooted shape over all switches: equal for isomorphic trees.
  std::string canonical() const {
    std::string best;
    for (std::uint32_t s = 0; s < machines.size(); ++s) {
      const std::string r = rooted(s, std::uint32_t(-1));
      if (best.empty() || r < best) best = r;
    }
    return best;
  }
  /// No switch of degree 2 or less (one alone excepted): such a switch only lengthens a cable
  /// and leaves every path's set of links, and so contention, as it is.
  bool reduced() const {
    if (machines.size() == 1) return true;
    for (std::size_t s = 0; s < machines.size(); ++s)
      if (machines[s] + links[s].size() < 3) return false;
    return true;
  }
  Topology topology() const {
    std::vector<std::string> machine_names, switch_names;
    std::vector<Tree::NamedLink> cables;
    for (std::uint32_t s = 0; s < machines.size(); ++s) {
      switch_names.push_back("s" + std::to_string(s));
      for (Rank m = 0; m < machines[s]; ++m) {
        machine_names.push_back("m" + std::to_string(machine_names.size()));
        cables.push_back({machine_names.back(), switch_names.back()});
      }
    }
    for (std::uint32_t s = 0; s < machines.size(); ++s)
      for (const auto t : links[s])
        if (s < t) cables.push_back({"s" + std::to_string(s), "s" + std::to_string(t)});
    return Tree(std::move(machine_names), std::move(switch_names), std::move(cables));
  }
};

/// Every tree of switches with n machines, up to isomorphism and without degree-2 switches, in
/// the order of their canonical shapes. Rooted shapes are built from smaller ones (a switch holds
/// m machines and a multiset of subtrees, at least two children), then rerooted to deduplicate.
std::vector<SwitchTree> tree_shapes(Rank n) {
  struct Rooted {
    Rank machines;
    std::vector<std::size_t> subtrees;  // indices into `all`, non-increasing
    Rank leaves;
  };
  std::vector<Rooted> all;
  std::vector<std::size_t> first_with(n + 2, 0);  // shapes with >= L leaves start here
  for (Rank L = 2; L <= n; ++L) {
    first_with[L] = all.size();
    const std::size_t before = all.size();
    for (Rank m = 0; m <= L; ++m) {
      std::vector<std::size_t> chosen;
      // Subtree multisets with `left` leaves from shapes [0, below), in non-increasing index.
      const auto pick = [&](auto&& self, Rank left, std::size_t below) -> void {
        if (left == 0) {
          if (m + chosen.size() >= 2) all.push_back({m, chosen, L});
          return;
        }
        for (std::size_t i = below; i-- > 0;)
          if (all[i].leaves <= left) {
            chosen.push_back(i);
            self(self, left - all[i].leaves, i + 1);
            chosen.pop_back();
          }
      };
      pick(pick, L - m, before);
    }
  }
  std::map<std::string, SwitchTree> unique;
  for (std::size_t i = first_with[n]; i < all.size(); ++i) {
    if (all[i].leaves != n) continue;
    SwitchTree t;
    const auto expand = [&](auto&& self, std::size_t shape) -> std::uint32_t {
      const auto s = static_cast<std::uint32_t>(t.machines.size());
      t.machines.push_back(all[shape].machines);
      t.links.emplace_back();
      for (const auto sub : all[shape].subtrees) {
        const std::uint32_t c = self(self, sub);
        t.links[s].push_back(c);
        t.links[c].push_back(s);
      }
      return s;
    };
    expand(expand, i);
    if (t.reduced()) unique.emplace(t.canonical(), std::move(t));
  }
  std::vector<SwitchTree> shapes;
  for (auto& [text, t] : unique) shapes.push_back(std::move(t));
  return shapes;
}

constexpr const char* kProofLegend =
    "proof of optimum - 1 impossible: clique = that many messages pairwise conflict, each pair "
    "checked by Z3;\nunsat = a Z3 UNSAT answer; bound = Z3 timed out there and the lower bound "
    "(docs/bounds.md) alone proves it; trivial = one phase. Every optimum has a Z3 witness checked "
    "by the verifier.\n";

struct Row {
  std::uint64_t algorithm = 0, lower = 0;
  verify::OptimalResult result;
  bool witness_ok = true;
  double seconds = 0;
};

/// The optimum of one machine, searched between the model's bound and the algorithm's count; the
/// solver also shows one phase below it impossible (the bound is not taken on trust).
Row solve(const Topology& model, std::uint64_t algorithm, double timeout) {
  Row row;
  row.algorithm = algorithm;
  verify::OptimalOptions o;
  o.lower = row.lower =
      verify::best_bounds(verify::lower_bounds(model, Collective::alltoall), true).first;
  o.upper = algorithm;
  o.timeout = timeout;
  const auto start = std::chrono::steady_clock::now();
  row.result = verify::optimal_phases(model, o);
  row.seconds = seconds_since(start);
  row.witness_ok = row.result.witness_check.verdict != verify::Verdict::fail;
  return row;
}

/// The row's last columns: lower bound, optimum, proof, gap, seconds. The proof is how the
/// solver showed one phase fewer impossible: "clique" (that many messages pairwise conflict, each
/// pair checked), "unsat" (a full solver call), or "bound" when that call timed out and the
/// model's lower bound (docs/bounds.md) alone proves the optimum.
const std::vector<io::Column> kSolvedColumns = {{"lower_bound", "lower bound"},
                                                {"optimum", "optimum"},
                                                {"proof", "proof"},
                                                {"gap", "gap"},
                                                {"seconds", "seconds"}};

std::vector<io::Cell> solved_columns(const Row& r) {
  const auto& o = r.result;
  std::string proof = !o.proven ? "unknown" : o.upper == 1 ? "trivial" : "bound";
  for (const auto& step : o.steps)
    if (o.proven && step.phases + 1 == o.upper && step.answer.rfind("unsat", 0) == 0)
      proof = step.answer == "unsat" ? "unsat" : "clique";
  return {r.lower, o.proven ? io::Cell{o.upper} : io::Cell{range(o.lower, o.upper)},
          r.witness_ok ? proof : "WITNESS FAILS",
          o.proven ? io::Cell{r.algorithm - o.upper} : io::Cell{}, r.seconds};
}

/// The leading columns, then the solver's.
io::Table solved_table(std::vector<io::Column> columns) {
  columns.insert(columns.end(), kSolvedColumns.begin(), kSolvedColumns.end());
  return io::Table(std::move(columns));
}

std::uint64_t phases_of(const char* algorithm, const Topology& model, Parameters p = {}) {
  const auto& a = *schedules::find_algorithm(algorithm);
  const Schedule s = schedules::generate(a, model, p);
  const verify::Report r = verify::verify(s, model, a.claims(s.header));
  if (!r.passed("delivery") || !r.passed("contention"))
    throw std::logic_error(std::string(algorithm) + " fails its checks on " + describe(model));
  return r.counts.c1;
}

int whatif_clusters(const WhatIfArgs& args, io::TableFormat format, std::ostream& out) {
  if (args.max_ranks < 2 || args.max_ranks > 12)
    throw InputError("whatif optimality --family cluster: --max-ranks must be in [2, 12]");
  std::vector<std::vector<Rank>> all;
  for (Rank n = 2; n <= args.max_ranks; ++n) {
    std::vector<Rank> now;
    partitions(n, n, now, all);
  }
  io::Table table = solved_table({{"sizes", "sizes"},
                                  {"p", "p"},
                                  {"hierarchical_factor", "hierarchical-factor"},
                                  {"compact", "compact"}});
  bool all_known = true;
  ProgressMeter progress(terminal_stderr(), "whatif optimality", "clusters", all.size());
  for (const auto& sizes : all) {
    progress.advance();
    const Topology model = Cluster(sizes);
    Parameters plain, compact;
    plain.set("compact", "false");
    compact.set("compact", "true");
    const std::uint64_t a = phases_of("hierarchical-factor", model, plain),
                        b = phases_of("hierarchical-factor", model, compact);
    const Row r = solve(model, std::min(a, b), args.timeout);
    all_known &= r.result.proven && r.witness_ok;
    std::string text;
    for (std::size_t i = 0; i < sizes.size(); ++i)
      text += (i ? "," : "") + std::to_string(sizes[i]);
    std::vector<io::Cell> row = {text, std::uint64_t{ranks(model)}, a, b};
    for (auto& c : solved_columns(r)) row.push_back(std::move(c));
    table.add(std::move(row));
  }
  progress.finish();
  nlohmann::ordered_json facts;
  facts["family"] = "cluster";
  facts["max_ranks"] = args.max_ranks;
  out << io::render({"whatif optimality", all_known ? "pass" : "unknown",
                     "optimality of hierarchical-factor on every cluster of up to " +
                         std::to_string(args.max_ranks) +
                         " ranks (direct alltoall; optimum by Z3, witness verified)",
                     std::move(facts), std::move(table),
                     "\ngap = min(plain, compact) - optimum; " + std::string(kProofLegend)},
                    format);
  return all_known ? 0 : 1;
}

int whatif_trees(const WhatIfArgs& args, io::TableFormat format, std::ostream& out) {
  if (args.max_machines < 2 || args.max_machines > 10)
    throw InputError("whatif optimality --family tree: --max-machines must be in [2, 10]");
  io::Table table =
      solved_table({{"tree", "tree"}, {"machines", "machines"}, {"faraj_yuan", "faraj-yuan"}});
  bool all_known = true;
  ProgressMeter progress(terminal_stderr(), "whatif optimality", "trees");
  for (Rank n = 2; n <= args.max_machines; ++n)
    for (const SwitchTree& shape : tree_shapes(n)) {
      progress.advance();
      const Topology model = shape.topology();
      const Row r = solve(model, phases_of("faraj-yuan", model), args.timeout);
      all_known &= r.result.proven && r.witness_ok;
      std::vector<io::Cell> row = {shape.canonical(), std::uint64_t{n}, r.algorithm};
      for (auto& c : solved_columns(r)) row.push_back(std::move(c));
      table.add(std::move(row));
    }
  progress.finish();
  nlohmann::ordered_json facts;
  facts["family"] = "tree";
  facts["max_machines"] = args.max_machines;
  out << io::render({"whatif optimality", all_known ? "pass" : "unknown",
                     "optimality of faraj-yuan on every tree of up to " +
                         std::to_string(args.max_machines) +
                         " machines (direct alltoall; optimum by Z3, witness verified)",
                     std::move(facts), std::move(table),
                     "\ntree: [m,S1,S2] is a switch with m machines and the subtrees S (one "
                     "shape per isomorphism class, no switch of degree 2);\nlower bound = the "
                     "busiest link's load; gap = faraj-yuan - optimum; " +
                         std::string(kProofLegend)},
                    format);
  return all_known ? 0 : 1;
}

int whatif_kport(const WhatIfArgs& args, io::TableFormat format, std::ostream& out) {
  if (args.max_ranks < 2 || args.max_ranks > 8)
    throw InputError("whatif optimality --family kport: --max-ranks must be in [2, 8]");
  bool all_known = true;
  // Text: one table per collective; JSON and CSV: one table with the collective as its first
  // column.
  const std::vector<io::Column> columns = {{"n", "n"},
                                           {"k", "k"},
                                           {"direct", "direct"},
                                           {"least_C1", "least C1"},
                                           {"least_C2", "least C2 at it"},
                                           {"bruck_C2", "Bruck at it"},
                                           {"gap", "gap"},
                                           {"frontier", "frontier C1:C2"},
                                           {"seconds", "seconds"}};
  std::vector<io::Column> all_columns = {{"collective", "collective"}};
  all_columns.insert(all_columns.end(), columns.begin(), columns.end());
  io::Table all(all_columns);
  std::ostringstream text;
  for (const Collective c : {Collective::alltoall, Collective::allgather}) {
    io::Table table(columns);
    ProgressMeter progress(terminal_stderr(), "whatif optimality " + std::string(to_string(c)),
                           "machines");
    for (Rank n = 2; n <= args.max_ranks; ++n)
      for (Rank k = 1; k + 1 < n || k == 1; ++k) {
        progress.advance();
        const Topology model = FullyConnected(n, k);
        verify::ForwardingOptions o;
        o.collective = c;
        o.timeout = args.timeout;
        const std::vector<BruckPoint> bruck = bruck_family(model, c);
        for (const auto& b : bruck) o.known.push_back({b.name, b.schedule});
        const auto start = std::chrono::steady_clock::now();
        const verify::ForwardingResult r = verify::optimal_forwarding(model, o);
        const double seconds = seconds_since(start);
        std::string frontier;
        bool ok = r.c1_proven;
        std::uint64_t previous = 0;
        for (const auto& p : r.frontier) {
          ok &= p.proven && p.witness_check.verdict != verify::Verdict::fail;
          if (previous && p.c2_upper >= previous) continue;  // dominated
          previous = p.c2_upper;
          frontier += (frontier.empty() ? "" : " ") + std::to_string(p.c1) + ":" +
                      range(p.c2_lower, p.c2_upper);
        }
        all_known &= ok;
        io::Cell least_c1, least_c2, bruck_c2, gap;
        if (!r.frontier.empty()) {
          const auto& first = r.frontier.front();
          least_c1 = r.c1_proven ? io::Cell{first.c1} : io::Cell{"<= " + std::to_string(first.c1)};
          least_c2 = first.c2_lower == first.c2_upper ? io::Cell{first.c2_upper}
                                                      : io::Cell{range(first.c2_lower,
                                                                       first.c2_upper)};
          std::uint64_t best = 0;
          for (const auto& b : bruck)
            if (b.c1 == first.c1 && (best == 0 || b.c2 < best)) best = b.c2;
          if (best) {
            bruck_c2 = best;
            if (first.proven) gap = best - first.c2_upper;
          }
        }
        std::vector<io::Cell> row = {std::uint64_t{n}, std::uint64_t{k},
                                     std::uint64_t{(n - 2 + k) / k}, least_c1, least_c2, bruck_c2,
                                     gap, frontier, seconds};
        table.add(row);
        row.insert(row.begin(), std::string(to_string(c)));
        all.add(std::move(row));
      }
    progress.finish();
    text << "forwarding "
         << (c == Collective::alltoall ? "index (alltoall)" : "concatenation (allgather)")
         << " on k-port machines of up to " << args.max_ranks
         << " ranks: least rounds C1, least C2 (blocks) for it, and Bruck et al.'s best at that "
            "C1\n\n"
         << table.text() << "\n";
  }
  text << "direct = ceil((n-1)/k) rounds without forwarding; frontier = the Pareto points (least "
          "C2 for each C1, dominated ones left out), a..b where unknown;\nBruck at it = the least "
          "C2 over bruck-index radices (alltoall) or bruck-concat (allgather) with that C1, as "
          "measured by the verifier; gap = Bruck - least C2.\n";
  if (format == io::TableFormat::text) {
    out << text.str();
  } else {
    nlohmann::ordered_json facts;
    facts["family"] = "kport";
    facts["max_ranks"] = args.max_ranks;
    out << io::render({"whatif optimality", all_known ? "pass" : "unknown", "", std::move(facts),
                       std::move(all), ""},
                      format);
  }
  return all_known ? 0 : 1;
}

}  // namespace

int whatif_optimality(const WhatIfArgs& args, io::TableFormat format, std::ostream& out) {
  check_timeout(args.timeout);
  if (args.family == "tree") return whatif_trees(args, format, out);
  if (args.family == "kport") return whatif_kport(args, format, out);
  if (args.family == "cluster") return whatif_clusters(args, format, out);
  throw InputError("whatif optimality: " +
                   unknown_name("family", args.family, {"cluster", "tree", "kport"}));
}

}  // namespace phasecheck::cli
