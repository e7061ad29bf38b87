#include "experiments/questions.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/progress.hpp"
#include "schedules/bruck.hpp"
#include "schedules/hierarchical_factor.hpp"
#include "schedules/randomized.hpp"
#include "schedules/registry.hpp"
#include "verify/congestion.hpp"
#include "verify/gap.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::experiments {
namespace {

struct Run {
  std::size_t steps = 0;
  std::uint64_t bound = 0;
  std::optional<std::uint64_t> gap;  ///< verify::gap on C1
  std::size_t inefficient = 0;
  std::string broken;  // empty when every check passes
};

Run run_hierarchical(const Cluster& cluster, bool compact) {
  const auto& algorithm = *schedules::find_algorithm("hierarchical-factor");
  Parameters params;
  params.set("compact", compact ? "true" : "false");
  const ScheduleHeader header = schedules::make_header(algorithm, cluster, params);
  verify::Verifier verifier(header, header.topology, algorithm.claims(header));
  Run run;
  algorithm.generate(header, [&](const Phase& step) {
    run.inefficient += schedules::inefficient_step(cluster, step);
    verifier.consume(step);
  });
  const verify::Report report = verifier.finish();
  run.steps = report.counts.phases;
  run.bound = report.bound_c1;
  run.gap = verify::gap(report).c1;
  if (report.verdict() != verify::Verdict::pass) run.broken = report.broken_claims(true);
  return run;
}

}  // namespace

void check_cluster_ranks(const std::vector<NamedCluster>& clusters, Rank max_ranks,
                         std::string_view command, std::string_view instead) {
  for (const auto& [text, sizes] : clusters) {
    std::uint64_t total = 0;
    for (const Rank size : sizes) total += size;
    const std::string name = text.size() > 40 ? text.substr(0, 40) + "..." : text;
    check_ranks(total, max_ranks, std::string(command) + " (cluster " + name + ")", instead);
  }
}

TableReport hierarchical_factor_steps(const std::vector<NamedCluster>& instances,
                                      std::ostream* progress_out) {
  Table table({{"sizes", "sizes"},
               {"p", "p"},
               {"steps", "steps"},
               {"compact", "compact"},
               {"bound", "bound"},
               {"gap", "gap"},
               {"compact_gap", "compact gap"},
               {"inefficient", "inefficient"},
               {"verified", "verified"}});
  check_cluster_ranks(
      instances, kMaxHierarchicalRanks, "whatif hierarchical-factor",
      "`phasecheck check hierarchical-factor --topology T` checks one cluster of any size");
  bool all_verified = true;
  ProgressMeter progress(progress_out, "whatif hierarchical-factor", "clusters", instances.size());
  for (const auto& [text, sizes] : instances) {
    progress.advance();
    const Cluster cluster(sizes);
    const Run plain = run_hierarchical(cluster, false), compact = run_hierarchical(cluster, true);
    const bool verified = plain.broken.empty() && compact.broken.empty();
    all_verified &= verified;
    const auto gap = [](const Run& r) { return r.gap ? Cell{*r.gap} : Cell{}; };
    table.add({text, std::uint64_t{cluster.ranks()}, std::uint64_t{plain.steps},
               std::uint64_t{compact.steps}, plain.bound, gap(plain), gap(compact),
               std::uint64_t{plain.inefficient},
               verified ? "yes" : "NO: " + plain.broken + compact.broken});
  }
  progress.finish();
  return {"whatif hierarchical-factor",
          all_verified ? verify::Verdict::pass : verify::Verdict::fail,
          "hierarchical-factor (Sanders & Traeff, Fig. 2) on SMP clusters",
          {},
          std::move(table),
          "\nsteps = table phases of the plain algorithm; compact = self-loops in one factor when "
          "|A| is even, intra-node steps moved to the end;\nbound = lower bound on steps "
          "(docs/bounds.md); inefficient = steps (plain) in which a node paired with itself sends "
          "while two maximal nodes exchange;\nverified = every check passed for both schedules "
          "(delivery, contention, the invariant of Fig. 2, Theorem 1's step range).\n"};
}

/// Bruck et al., Section 3.5: which radix is best for this machine? Every radix 2..n generated
/// and verified on fully-connected(n, k); T = C1 t_s + C2 b t_w in the linear model.
TableReport bruck_radix(const BruckRadixQuestion& q, std::ostream* progress_out) {
  if (q.ranks < 2 || q.ranks > kMaxBruckRadixRanks)
    throw InputError("whatif bruck-index: --ranks must be in [2, " +
                     std::to_string(kMaxBruckRadixRanks) +
                     "] (every radix is generated and verified; `phasecheck check bruck-index "
                     "--set radix=R` checks one radix on any size)");
  if (q.ports < 1) throw InputError("whatif bruck-index: --ports must be at least 1");
  const double block = q.bytes;
  for (const auto& [value, name] :
       {std::pair{q.ts, "--ts"}, std::pair{q.tw, "--tw"}, std::pair{block, "--bytes"}})
    if (!std::isfinite(value) || value < 0)
      throw InputError(std::string("whatif bruck-index: ") + name +
                       " must be a finite non-negative number");
  const Rank n = q.ranks, k = q.ports;
  const FullyConnected machine(n, k);
  const auto& algorithm = *schedules::find_algorithm("bruck-index");
  struct Row {
    Rank r;
    std::uint64_t c1, c2;
    double t;
  };
  std::vector<Row> rows;
  Table table({{"radix", "radix"},
               {"C1", "C1"},
               {"C2", "C2 (blocks)"},
               {"paper_C1", "paper C1 <="},
               {"paper_C2", "paper C2 <="},
               {"T", "T (s)"},
               {"verified", "verified"}});
  bool all_verified = true;
  ProgressMeter progress(progress_out, "whatif bruck-index", "radixes", n - 1);
  for (Rank r = 2; r <= n; ++r) {
    progress.advance();
    Parameters params;
    params.set("radix", std::to_string(r));
    const ScheduleHeader header = schedules::make_header(algorithm, machine, params);
    verify::Verifier verifier(header, header.topology, algorithm.claims(header));
    algorithm.generate(header, verifier.sink());
    const verify::Report report = verifier.finish();
    const bool verified = report.verdict() == verify::Verdict::pass;
    all_verified &= verified;
    const std::uint64_t c1 = report.counts.c1, c2 = report.counts.c2;
    const double t = double(c1) * q.ts + double(c2) * block * q.tw;
    rows.push_back({r, c1, c2, t});
    // Section 3.4: C1 <= ceil((r-1)/k) w and C2 <= ceil((r-1)/k) ceil(n/r) w (blocks).
    const std::uint64_t w = schedules::radix_digits(n, r), per = (r - 1 + k - 1) / k;
    const std::uint64_t paper_c1 = per * w, paper_c2 = per * ((n + r - 1) / r) * w;
    const auto paper = [](std::uint64_t bound, std::uint64_t value) -> Cell {
      if (value > bound) return std::to_string(bound) + " (exceeded)";
      return bound;
    };
    table.add({std::uint64_t{r}, c1, c2, paper(paper_c1, c1), paper(paper_c2, c2), t,
               verified ? "yes" : "NO: " + report.broken_claims(true)});
  }
  progress.finish();
  const Row& best = *std::min_element(rows.begin(), rows.end(),
                                      [](const Row& a, const Row& b) { return a.t < b.t; });
  const bool block_default = q.bytes_default;
  const bool undecided = q.ts == 0 && q.tw == 0;
  std::ostringstream heading, notes;
  heading << "bruck-index (Bruck et al., Section 3) on fully-connected(p=" << n << ", k=" << k
          << "): t_s = " << figure(q.ts) << " s, t_w = " << figure(q.tw)
          << " s per byte, block = " << figure(block) << (block == 1 ? " byte" : " bytes")
          << (block_default ? " (default; --bytes)" : "");
  nlohmann::ordered_json facts;
  facts["ranks"] = n;
  facts["ports"] = k;
  facts["ts"] = q.ts;
  facts["tw"] = q.tw;
  facts["bytes"] = block;
  facts["bytes_default"] = block_default;
  facts["best_radix"] =
      undecided ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(best.r);
  facts["break_even_bytes"] = nullptr;
  if (undecided)
    notes << "\nT = 0 for every radix: without --ts and --tw (seconds per message, seconds per "
             "byte) the model cannot choose a radix";
  else
    notes << "\nbest radix: r = " << best.r << " (T = " << figure(best.t) << " s)";
  const Row &two = rows.front(), &all = rows.back();
  if (two.c2 > all.c2 && all.c1 > two.c1 && q.tw > 0) {
    const double even = double(all.c1 - two.c1) * q.ts / (double(two.c2 - all.c2) * q.tw);
    facts["break_even_bytes"] = even;
    notes << "; r = 2 and r = n break even at a block of " << figure(even)
          << " bytes: smaller blocks favour r = 2, larger ones r = n (Section 3.5, Fig. 5)";
  }
  notes << "\nC1 = rounds, C2 = sum over rounds of the largest message in blocks; T = C1 t_s + C2 "
           "block t_w; paper = the bounds of Section 3.4, marked where the table exceeds them;\n"
           "verified = every check passed (delivery, contention on k ports, the placement "
           "invariant, the exact C1 and C2 claims, the bounds).\n";
  return {"whatif bruck-index", all_verified ? verify::Verdict::pass : verify::Verdict::fail,
          heading.str(),        std::move(facts),
          std::move(table),     notes.str()};
}

/// The Slim Fly paper's question: does randomizing the order lower the per-phase link load on
/// this network? Every algorithm (each seed of the randomized ones) generated, verified for
/// delivery, and measured.
TableReport randomized_congestion(const CongestionQuestion& q, std::ostream* progress_out) {
  const Topology& model = q.model;
  check_ranks(ranks(model), kMaxCongestionRanks, q.source + ": whatif congestion",
              "each algorithm and seed is generated and verified; `phasecheck generate ALG "
              "--topology T | phasecheck congestion -` measures one on any size");
  const std::vector<std::uint64_t>& seeds = q.seeds;
  std::uint64_t all_runs = 0;
  for (const std::string& name : q.algorithms)
    all_runs +=
        find_spec(schedules::require_algorithm(name).parameter_specs, "seed") ? seeds.size() : 1;
  const std::uint64_t per_run = std::uint64_t{ranks(model)} * (ranks(model) - 1);
  if (all_runs * per_run > kMaxCongestionMessages)
    throw InputError(q.source + ": whatif congestion: " + std::to_string(all_runs) + " runs of " +
                     std::to_string(per_run) + " messages each, " +
                     std::to_string(all_runs * per_run) + " in all, more than the " +
                     std::to_string(kMaxCongestionMessages) +
                     " a table may cost (about two minutes): fewer seeds or a smaller machine");
  Table table({{"algorithm", "algorithm"},
               {"runs", "runs"},
               {"phases", "phases"},
               {"sum_of_max_min", "sum of max load: min"},
               {"sum_of_max_median", "median"},
               {"sum_of_max_mean", "mean"},
               {"sum_of_max_max", "max"},
               {"max_load_per_phase", "max load per phase"},
               {"delivered", "delivered"}});
  bool all_delivered = true;
  for (const std::string& name : q.algorithms) {
    const auto* a = &schedules::require_algorithm(name);
    const bool seeded = find_spec(a->parameter_specs, "seed") != nullptr;
    std::vector<std::uint64_t> sums;
    std::size_t phases = 0;
    double per_phase = 0;
    bool delivered = true;
    std::string not_applicable;
    const std::vector<std::uint64_t> runs = seeded ? seeds : std::vector<std::uint64_t>{0};
    ProgressMeter progress(progress_out, "whatif congestion " + name, "runs", runs.size());
    for (std::uint64_t seed : runs) {
      progress.advance();
      Parameters params;
      if (seeded) params.set("seed", std::to_string(seed));
      const ScheduleHeader header = schedules::make_header(*a, model, params);
      Claims claims;
      try {
        claims = a->claims(header);
        a->generate(header, [](const Phase&) {});  // throws here when it does not apply
      } catch (const InputError& e) {
        not_applicable = e.what();  // e.g. a power of two needed
        break;
      }
      const bool has_invariants = !claims.invariants.empty();
      verify::Verifier verifier(header, header.topology, claims);
      verify::CongestionMeter meter(model);
      a->generate(header, [&](const Phase& p) {
        verifier.consume(p);
        meter.consume(p);
      });
      const verify::Report report = verifier.finish();
      delivered &= report.passed(CheckId::delivery) && (!has_invariants || report.passed(CheckId::invariants));
      sums.push_back(meter.sum_of_max());
      phases = meter.phase_count();
      per_phase += meter.mean_of_max();
    }
    if (!not_applicable.empty()) {
      table.add({name, std::uint64_t{0}, {}, {}, {}, {}, {}, {}, "n/a: " + not_applicable});
      continue;
    }
    all_delivered &= delivered;
    std::vector<std::uint64_t> sorted = sums;
    std::sort(sorted.begin(), sorted.end());
    double mean = 0;
    for (std::uint64_t v : sums) mean += double(v);
    mean /= double(sums.size());
    table.add({name, std::uint64_t{sums.size()}, std::uint64_t{phases}, sorted.front(),
               sorted[sorted.size() / 2], mean, sorted.back(), per_phase / double(sums.size()),
               std::string(delivered ? "yes" : "NO")});
  }
  std::ostringstream heading, notes;
  heading << "congestion on " << describe(model) << " (" << q.source << "), seeds " << q.seeds_text;
  nlohmann::ordered_json facts;
  facts["topology"] = describe(model);
  facts["source"] = q.source;
  facts["seeds"] = seeds;
  facts["selection"] = nullptr;
  if (q.bytes) {
    const auto choice = schedules::select_randomized(*q.bytes, ranks(model));
    facts["selection"] = {
        {"bytes", *q.bytes}, {"algorithm", choice.algorithm}, {"reason", choice.reason}};
    notes << "\nthe paper's selection for " << *q.bytes << " bytes per message on " << ranks(model)
          << " processes: " << choice.algorithm << " (" << choice.reason << ")\n";
  }
  notes << "\nload = blocks on a directed link in a phase (per unit of capacity, rounded up, on a "
           "graph's parallel links and host ports); sum of max load = the sum over phases of "
           "the busiest link's load (at least the model's C2 bound: phasecheck congestion prints "
           "it);\nmax load per phase = "
           "its mean over phases and runs; delivered = every block exactly once and the "
           "algorithm's invariants hold, in every run.\n";
  return {"whatif congestion", all_delivered ? verify::Verdict::pass : verify::Verdict::fail,
          heading.str(),       std::move(facts),
          std::move(table),    notes.str()};
}

}  // namespace phasecheck::experiments
