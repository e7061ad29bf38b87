#include "experiments/optimality_tables.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/cluster_bound.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/progress.hpp"
#include "experiments/bruck_family.hpp"
#include "experiments/switch_trees.hpp"
#include "schedules/registry.hpp"
#include "verify/bounds.hpp"
#include "verify/gap.hpp"
#include "verify/optimal.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::experiments {
namespace {

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
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  row.witness_ok = row.result.witness_check.verdict != verify::Verdict::fail;
  return row;
}

/// The row's last columns: lower bound, optimum, proof, gap, seconds. The proof is how the
/// solver showed one phase fewer impossible: "clique" (that many messages pairwise conflict, each
/// pair checked), "unsat" (a full solver call), or "bound" when that call timed out and the
/// model's lower bound (docs/bounds.md) alone proves the optimum.
const std::vector<Column> kSolvedColumns = {{"lower_bound", "lower bound"},
                                            {"optimum", "optimum"},
                                            {"proof", "proof"},
                                            {"gap", "gap"},
                                            {"seconds", "seconds"}};

Cell optional_cell(std::optional<std::uint64_t> v) { return v ? Cell{*v} : Cell{}; }

std::vector<Cell> solved_columns(const Row& r) {
  const auto& o = r.result;
  std::string proof = !o.proven ? "unknown" : o.upper == 1 ? "trivial" : "bound";
  for (const auto& step : o.steps)
    if (o.proven && step.phases + 1 == o.upper && step.answer.rfind("unsat", 0) == 0)
      proof = step.answer == "unsat" ? "unsat" : "clique";
  return {r.lower, o.proven ? Cell{o.upper} : Cell{known_range(o.lower, o.upper)},
          r.witness_ok ? proof : "WITNESS FAILS",
          optional_cell(verify::gap(r.algorithm, o.proven ? std::optional{o.upper} : std::nullopt)),
          r.seconds};
}

/// The leading columns, then the solver's.
Table solved_table(std::vector<Column> columns) {
  columns.insert(columns.end(), kSolvedColumns.begin(), kSolvedColumns.end());
  return Table(std::move(columns));
}

std::string sizes_text(const std::vector<Rank>& sizes) {
  std::string text;
  for (std::size_t i = 0; i < sizes.size(); ++i) text += (i ? "," : "") + std::to_string(sizes[i]);
  return text;
}

std::uint64_t phases_of(const char* algorithm, const Topology& model, Parameters p = {}) {
  const auto& a = *schedules::find_algorithm(algorithm);
  const Schedule s = schedules::generate(a, model, p);
  const verify::Report r = verify::verify(s, model, a.claims(s.header));
  if (!r.passed(CheckId::delivery) || !r.passed(CheckId::contention))
    throw std::logic_error(std::string(algorithm) + " fails its checks on " + describe(model));
  return r.counts.c1;
}

}  // namespace

std::string known_range(std::uint64_t lo, std::uint64_t hi) {
  return lo == hi ? std::to_string(hi) : std::to_string(lo) + ".." + std::to_string(hi);
}

TableReport cluster_optimality(Rank max_ranks, double timeout, std::ostream* progress_out) {
  if (max_ranks < 2 || max_ranks > 12)
    throw InputError("whatif optimality --family cluster: --max-ranks must be in [2, 12]");
  const std::vector<std::vector<Rank>> all = cluster_shapes(max_ranks);
  Table table = solved_table({{"sizes", "sizes"},
                              {"p", "p"},
                              {"hierarchical_factor", "hierarchical-factor"},
                              {"compact", "compact"},
                              {"cluster_coloring", "cluster-coloring"}});
  bool all_known = true;
  ProgressMeter progress(progress_out, "whatif optimality", "clusters", all.size());
  for (const auto& sizes : all) {
    progress.advance();
    const Topology model = Cluster(sizes);
    Parameters plain, compact;
    plain.set("compact", "false");
    compact.set("compact", "true");
    const std::uint64_t a = phases_of("hierarchical-factor", model, plain),
                        b = phases_of("hierarchical-factor", model, compact),
                        c = phases_of("cluster-coloring", model);
    // The solver's upper end is the best of them; its gap column is hierarchical-factor's.
    Row r = solve(model, std::min({a, b, c}), timeout);
    r.algorithm = std::min(a, b);
    all_known &= r.result.proven && r.witness_ok;
    std::vector<Cell> row = {sizes_text(sizes), std::uint64_t{ranks(model)}, a, b, c};
    for (auto& cell : solved_columns(r)) row.push_back(std::move(cell));
    table.add(std::move(row));
  }
  progress.finish();
  nlohmann::ordered_json facts;
  facts["family"] = "cluster";
  facts["max_ranks"] = max_ranks;
  return {"whatif optimality",
          all_known ? verify::Verdict::pass : verify::Verdict::unknown,
          "optimality of hierarchical-factor and cluster-coloring on every cluster of up to " +
              std::to_string(max_ranks) +
              " ranks (direct alltoall; optimum by Z3, witness verified)",
          std::move(facts),
          std::move(table),
          "\ngap = min(plain, compact) - optimum (hierarchical-factor's); " +
              std::string(kProofLegend)};
}

TableReport cluster_comparison(const std::vector<NamedCluster>& clusters, Rank solve_up_to,
                               double timeout, std::ostream* progress_out) {
  check_cluster_ranks(
      clusters, kMaxClusterComparisonRanks, "whatif cluster",
      "`phasecheck check cluster-coloring --topology T` checks one cluster of any size");
  Table table({{"sizes", "sizes"},
               {"p", "p"},
               {"nodes", "nodes"},
               {"hierarchical_factor", "hierarchical-factor"},
               {"cluster_coloring", "cluster-coloring"},
               {"bound", "bound"},
               {"optimum", "optimum"},
               {"hf_gap", "hf gap"},
               {"cc_gap", "cc gap"},
               {"verified", "verified"}});
  bool all_verified = true, all_known = true;
  ProgressMeter progress(progress_out, "whatif cluster", "clusters", clusters.size());
  for (const auto& [text, sizes] : clusters) {
    progress.advance();
    const Cluster cluster(sizes);
    const Topology model = cluster;
    Parameters plain, compact;
    plain.set("compact", "false");
    compact.set("compact", "true");
    const std::uint64_t hf = std::min(phases_of("hierarchical-factor", model, plain),
                                      phases_of("hierarchical-factor", model, compact));
    const auto& coloring = *schedules::find_algorithm("cluster-coloring");
    const Schedule s = schedules::generate(coloring, model, {});
    const verify::Report r = verify::verify(s, model, coloring.claims(s.header));
    const bool verified = r.verdict() == verify::Verdict::pass;
    all_verified &= verified;
    const std::uint64_t cc = r.counts.c1, bound = cluster_bound(sizes).value();

    Cell optimum;
    if (cluster.ranks() <= solve_up_to) {
      const Row o = solve(model, std::min(hf, cc), timeout);
      all_known &= o.result.proven && o.witness_ok;
      optimum = o.result.proven && o.witness_ok ? Cell{o.result.upper}
                                                : Cell{known_range(o.result.lower, o.result.upper)};
    }
    table.add({text, std::uint64_t{cluster.ranks()}, std::uint64_t{cluster.node_count()}, hf, cc,
               bound, std::move(optimum), optional_cell(verify::gap(hf, bound)),
               optional_cell(verify::gap(r, {bound, bound}).c1),
               verified ? "yes" : "NO: " + r.broken_claims(true)});
  }
  progress.finish();
  return {
      "whatif cluster",
      !all_verified ? verify::Verdict::fail
      : all_known   ? verify::Verdict::pass
                    : verify::Verdict::unknown,
      "hierarchical-factor and cluster-coloring on SMP clusters, against the counting bound",
      {},
      std::move(table),
      "\nhierarchical-factor = the better of plain and compact (phases); cluster-coloring = its "
      "phases, every check passed (verified);\nbound = max(n_max (p - 1), ceil(exchanges / "
      "floor(nodes / 2))) (docs/bounds.md); optimum = Z3's, for clusters of at most " +
          std::to_string(solve_up_to) +
          " ranks (witness verified);\nhf gap, cc gap = phases - bound.\n"};
}

std::vector<NamedCluster> every_cluster(Rank max_ranks) {
  if (max_ranks < 2 || max_ranks > kMaxEveryClusterRanks)
    throw InputError("whatif cluster: --max-ranks must be in [2, " +
                     std::to_string(kMaxEveryClusterRanks) +
                     "] for every cluster (--random N draws larger ones)");
  std::vector<NamedCluster> out;
  for (auto& sizes : cluster_shapes(max_ranks))
    out.push_back({sizes_text(sizes), std::move(sizes)});
  return out;
}

std::vector<NamedCluster> random_clusters(std::size_t count, Rank max_ranks, std::uint64_t seed) {
  if (max_ranks < 2 || max_ranks > kMaxClusterComparisonRanks)
    throw InputError("whatif cluster --random: --max-ranks must be in [2, " +
                     std::to_string(kMaxClusterComparisonRanks) + "]");
  std::mt19937_64 random(seed);  // the engine's output is fixed by the standard: same table
  std::vector<NamedCluster> out;
  for (std::size_t i = 0; i < count; ++i) {
    const auto p = static_cast<Rank>(2 + random() % (max_ranks - 1));
    // Three shapes in turn: nodes of 1 to 4 processors, of any size, of up to p / 8.
    std::vector<Rank> sizes;
    for (Rank left = p; left > 0;) {
      const Rank most = i % 3 == 0   ? std::min<Rank>(left, 4)
                        : i % 3 == 1 ? left
                                     : std::min<Rank>(left, std::max<Rank>(1, p / 8));
      const auto n = static_cast<Rank>(1 + random() % most);
      sizes.push_back(n);
      left -= n;
    }
    std::sort(sizes.rbegin(), sizes.rend());  // largest first, as a person writes a cluster
    out.push_back({sizes_text(sizes), std::move(sizes)});
  }
  return out;
}

TableReport tree_optimality(Rank max_machines, double timeout, std::ostream* progress_out) {
  if (max_machines < 2 || max_machines > 10)
    throw InputError("whatif optimality --family tree: --max-machines must be in [2, 10]");
  Table table =
      solved_table({{"tree", "tree"}, {"machines", "machines"}, {"faraj_yuan", "faraj-yuan"}});
  bool all_known = true;
  ProgressMeter progress(progress_out, "whatif optimality", "trees");
  for (Rank n = 2; n <= max_machines; ++n)
    for (const SwitchTree& shape : tree_shapes(n)) {
      progress.advance();
      const Topology model = shape.topology();
      const Row r = solve(model, phases_of("faraj-yuan", model), timeout);
      all_known &= r.result.proven && r.witness_ok;
      std::vector<Cell> row = {shape.canonical(), std::uint64_t{n}, r.algorithm};
      for (auto& c : solved_columns(r)) row.push_back(std::move(c));
      table.add(std::move(row));
    }
  progress.finish();
  nlohmann::ordered_json facts;
  facts["family"] = "tree";
  facts["max_machines"] = max_machines;
  return {"whatif optimality",
          all_known ? verify::Verdict::pass : verify::Verdict::unknown,
          "optimality of faraj-yuan on every tree of up to " + std::to_string(max_machines) +
              " machines (direct alltoall; optimum by Z3, witness verified)",
          std::move(facts),
          std::move(table),
          "\ntree: [m,S1,S2] is a switch with m machines and the subtrees S (one "
          "shape per isomorphism class, no switch of degree 2);\nlower bound = the "
          "busiest link's load; gap = faraj-yuan - optimum; " +
              std::string(kProofLegend)};
}

KportOptimality kport_optimality(Rank max_ranks, double timeout, std::ostream* progress_out) {
  if (max_ranks < 2 || max_ranks > 8)
    throw InputError("whatif optimality --family kport: --max-ranks must be in [2, 8]");
  bool all_known = true;
  // Text: one table per collective; JSON and CSV: one table with the collective as its first
  // column.
  const std::vector<Column> columns = {{"n", "n"},
                                       {"k", "k"},
                                       {"direct", "direct"},
                                       {"least_C1", "least C1"},
                                       {"least_C2", "least C2 at it"},
                                       {"bruck_C2", "Bruck at it"},
                                       {"gap", "gap"},
                                       {"frontier", "frontier C1:C2"},
                                       {"seconds", "seconds"}};
  std::vector<Column> all_columns = {{"collective", "collective"}};
  all_columns.insert(all_columns.end(), columns.begin(), columns.end());
  Table all(all_columns);
  std::vector<std::pair<Collective, Table>> per_collective;
  for (const Collective c : {Collective::alltoall, Collective::allgather}) {
    Table table(columns);
    ProgressMeter progress(progress_out, "whatif optimality " + std::string(to_string(c)),
                           "machines");
    for (Rank n = 2; n <= max_ranks; ++n)
      for (Rank k = 1; k + 1 < n || k == 1; ++k) {
        progress.advance();
        const Topology model = FullyConnected(n, k);
        verify::ForwardingOptions o;
        o.collective = c;
        o.timeout = timeout;
        const std::vector<BruckPoint> bruck = bruck_family(model, c);
        for (const auto& b : bruck) o.known.push_back({b.name, b.schedule});
        const auto start = std::chrono::steady_clock::now();
        const verify::ForwardingResult r = verify::optimal_forwarding(model, o);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::string frontier;
        bool ok = r.c1_proven;
        std::uint64_t previous = 0;
        for (const auto& p : r.frontier) {
          ok &= p.proven && p.witness_check.verdict != verify::Verdict::fail;
          if (previous && p.c2_upper >= previous) continue;  // dominated
          previous = p.c2_upper;
          frontier += (frontier.empty() ? "" : " ") + std::to_string(p.c1) + ":" +
                      known_range(p.c2_lower, p.c2_upper);
        }
        all_known &= ok;
        Cell least_c1, least_c2, bruck_c2, gap;
        if (!r.frontier.empty()) {
          const auto& first = r.frontier.front();
          least_c1 = r.c1_proven ? Cell{first.c1} : Cell{"<= " + std::to_string(first.c1)};
          least_c2 = first.c2_lower == first.c2_upper
                         ? Cell{first.c2_upper}
                         : Cell{known_range(first.c2_lower, first.c2_upper)};
          std::uint64_t best = 0;
          for (const auto& b : bruck)
            if (b.c1 == first.c1 && (best == 0 || b.c2 < best)) best = b.c2;
          if (best) {
            bruck_c2 = best;
            gap = optional_cell(verify::gap(
                best, first.proven ? std::optional{first.c2_upper} : std::nullopt));
          }
        }
        std::vector<Cell> row = {std::uint64_t{n},
                                 std::uint64_t{k},
                                 std::uint64_t{(n - 2 + k) / k},
                                 least_c1,
                                 least_c2,
                                 bruck_c2,
                                 gap,
                                 frontier,
                                 seconds};
        table.add(row);
        row.insert(row.begin(), std::string(to_string(c)));
        all.add(std::move(row));
      }
    progress.finish();
    per_collective.emplace_back(c, std::move(table));
  }
  nlohmann::ordered_json facts;
  facts["family"] = "kport";
  facts["max_ranks"] = max_ranks;
  return {{"whatif optimality", all_known ? Verdict::pass : Verdict::unknown, "", std::move(facts),
           std::move(all),
           "direct = ceil((n-1)/k) rounds without forwarding; frontier = the Pareto points (least "
           "C2 for each C1, dominated ones left out), a..b where unknown;\nBruck at it = the "
           "least C2 over bruck-index radices (alltoall) or bruck-concat (allgather) with that C1, "
           "as measured by the verifier; gap = Bruck - least C2.\n"},
          max_ranks,
          std::move(per_collective)};
}

}  // namespace phasecheck::experiments
