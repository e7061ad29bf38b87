// `phasecheck whatif FAMILY ...`: the research questions, one table row per instance. Every figure
// printed comes from a generated schedule that went through all the checks.

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/network_options.hpp"
#include "core/progress.hpp"
#include "core/suggest.hpp"
#include "io/json.hpp"
#include "io/table.hpp"
#include "schedules/bruck.hpp"
#include "schedules/hierarchical_factor.hpp"
#include "schedules/randomized.hpp"
#include "schedules/registry.hpp"
#include "verify/bounds.hpp"
#include "verify/congestion.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {
namespace {

/// "8,8,4,1" -> {8, 8, 4, 1}; `where` names the source in errors.
std::vector<Rank> parse_sizes(std::string_view text, const std::string& where) {
  std::vector<Rank> sizes;
  for (const std::uint64_t value : parse_count_list(text, where)) {
    if (value < 1 || value > kMaxRanks)
      throw InputError(where + ": element " + std::to_string(sizes.size() + 1) + " '" +
                       std::to_string(value) + "' is not a node size (1 to " +
                       std::to_string(kMaxRanks) + ")");
    sizes.push_back(static_cast<Rank>(value));
  }
  return sizes;
}

struct Run {
  std::size_t steps = 0;
  std::uint64_t bound = 0;
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
  if (report.verdict() != verify::Verdict::pass) run.broken = report.broken_claims(true);
  return run;
}

int whatif_hierarchical(const WhatIfArgs& args, io::TableFormat format, std::ostream& out) {
  std::vector<std::pair<std::string, std::vector<Rank>>> instances;
  for (const std::string& s : args.sizes) instances.push_back({s, parse_sizes(s, "--sizes " + s)});
  if (!args.sizes_file.empty()) {
    InputFile file(args.sizes_file);
    std::istream& in = file.stream();
    std::string line;
    for (std::size_t number = 1; std::getline(in, line); ++number) {
      if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      line.erase(line.find_last_not_of(" \t\r") + 1);
      instances.push_back(
          {line, parse_sizes(line, args.sizes_file + ":" + std::to_string(number))});
    }
  }
  if (instances.empty())
    throw InputError("whatif hierarchical-factor: give --sizes or --sizes-file");

  io::Table table({{"sizes", "sizes"},
                   {"p", "p"},
                   {"steps", "steps"},
                   {"compact", "compact"},
                   {"bound", "bound"},
                   {"gap", "gap"},
                   {"compact_gap", "compact gap"},
                   {"inefficient", "inefficient"},
                   {"verified", "verified"}});
  bool all_verified = true;
  ProgressMeter progress(terminal_stderr(), "whatif hierarchical-factor", "clusters",
                         instances.size());
  for (const auto& [text, sizes] : instances) {
    progress.advance();
    const Cluster cluster(sizes);
    const Run plain = run_hierarchical(cluster, false), compact = run_hierarchical(cluster, true);
    const bool verified = plain.broken.empty() && compact.broken.empty();
    all_verified &= verified;
    const auto gap = [](const Run& r) -> io::Cell {
      if (r.steps >= r.bound) return std::uint64_t{r.steps - r.bound};
      return {};
    };
    table.add({text, std::uint64_t{cluster.ranks()}, std::uint64_t{plain.steps},
               std::uint64_t{compact.steps}, plain.bound, gap(plain), gap(compact),
               std::uint64_t{plain.inefficient},
               verified ? "yes" : "NO: " + plain.broken + compact.broken});
  }
  progress.finish();
  out << io::render(
      {"whatif hierarchical-factor", all_verified ? "pass" : "fail",
       "hierarchical-factor (Sanders & Traeff, Fig. 2) on SMP clusters", {}, std::move(table),
       "\nsteps = table phases of the plain algorithm; compact = self-loops in one factor when "
       "|A| is even, intra-node steps moved to the end;\nbound = lower bound on steps "
       "(docs/bounds.md); inefficient = steps (plain) in which a node paired with itself sends "
       "while two maximal nodes exchange;\nverified = every check passed for both schedules "
       "(delivery, contention, the invariant of Fig. 2, Theorem 1's step range).\n"},
      format);
  return all_verified ? 0 : 1;
}

/// Bruck et al., Section 3.5: which radix is best for this machine? Every radix 2..n generated
/// and verified on fully-connected(n, k); T = C1 t_s + C2 b t_w in the linear model.
int whatif_bruck_index(const WhatIfArgs& args, io::TableFormat format, std::ostream& out) {
  if (args.ranks < 2 || args.ranks > kMaxRanks)
    throw InputError("whatif bruck-index: --ranks must be in [2, " + std::to_string(kMaxRanks) +
                     "]");
  if (args.ports < 1) throw InputError("whatif bruck-index: --ports must be at least 1");
  if (args.bytes.size() > 1) throw InputError("whatif bruck-index: one --bytes (the block size)");
  const double block = !args.bytes.empty()    ? double(args.bytes[0])
                       : args.block_alias > 0 ? args.block_alias
                                              : 1;
  for (const auto& [value, name] :
       {std::pair{args.ts, "--ts"}, std::pair{args.tw, "--tw"}, std::pair{block, "--bytes"}})
    if (!std::isfinite(value) || value < 0)
      throw InputError(std::string("whatif bruck-index: ") + name +
                       " must be a finite non-negative number");
  const Rank n = args.ranks, k = args.ports;
  const FullyConnected machine(n, k);
  const auto& algorithm = *schedules::find_algorithm("bruck-index");
  struct Row {
    Rank r;
    std::uint64_t c1, c2;
    double t;
  };
  std::vector<Row> rows;
  io::Table table({{"radix", "radix"},
                   {"C1", "C1"},
                   {"C2", "C2 (blocks)"},
                   {"paper_C1", "paper C1 <="},
                   {"paper_C2", "paper C2 <="},
                   {"T", "T (s)"},
                   {"verified", "verified"}});
  bool all_verified = true;
  ProgressMeter progress(terminal_stderr(), "whatif bruck-index", "radixes", n - 1);
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
    const double t = double(c1) * args.ts + double(c2) * block * args.tw;
    rows.push_back({r, c1, c2, t});
    // Section 3.4: C1 <= ceil((r-1)/k) w and C2 <= ceil((r-1)/k) ceil(n/r) w (blocks).
    const std::uint64_t w = schedules::radix_digits(n, r), per = (r - 1 + k - 1) / k;
    const std::uint64_t paper_c1 = per * w, paper_c2 = per * ((n + r - 1) / r) * w;
    const auto paper = [](std::uint64_t bound, std::uint64_t value) -> io::Cell {
      if (value > bound) return std::to_string(bound) + " (exceeded)";
      return bound;
    };
    table.add({std::uint64_t{r}, c1, c2, paper(paper_c1, c1), paper(paper_c2, c2), t,
               verified ? "yes" : "NO: " + report.broken_claims(true)});
  }
  progress.finish();
  const Row& best = *std::min_element(rows.begin(), rows.end(),
                                      [](const Row& a, const Row& b) { return a.t < b.t; });
  const bool block_default = args.bytes.empty() && args.block_alias == 0;
  const bool undecided = args.ts == 0 && args.tw == 0;
  std::ostringstream heading, notes;
  heading << "bruck-index (Bruck et al., Section 3) on fully-connected(p=" << n << ", k=" << k
          << "): t_s = " << number(args.ts) << " s, t_w = " << number(args.tw)
          << " s per byte, block = " << number(block) << (block == 1 ? " byte" : " bytes")
          << (block_default ? " (default; --bytes)" : "");
  nlohmann::ordered_json facts;
  facts["ranks"] = n;
  facts["ports"] = k;
  facts["ts"] = args.ts;
  facts["tw"] = args.tw;
  facts["bytes"] = block;
  facts["bytes_default"] = block_default;
  facts["best_radix"] = undecided ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(best.r);
  facts["break_even_bytes"] = nullptr;
  if (undecided)
    notes << "\nT = 0 for every radix: without --ts and --tw (seconds per message, seconds per "
             "byte) the model cannot choose a radix";
  else
    notes << "\nbest radix: r = " << best.r << " (T = " << number(best.t) << " s)";
  const Row &two = rows.front(), &all = rows.back();
  if (two.c2 > all.c2 && all.c1 > two.c1 && args.tw > 0) {
    const double even = double(all.c1 - two.c1) * args.ts / (double(two.c2 - all.c2) * args.tw);
    facts["break_even_bytes"] = even;
    notes << "; r = 2 and r = n break even at a block of " << number(even)
          << " bytes: smaller blocks favour r = 2, larger ones r = n (Section 3.5, Fig. 5)";
  }
  notes << "\nC1 = rounds, C2 = sum over rounds of the largest message in blocks; T = C1 t_s + C2 "
           "block t_w; paper = the bounds of Section 3.4, marked where the table exceeds them;\n"
           "verified = every check passed (delivery, contention on k ports, the placement "
           "invariant, the exact C1 and C2 claims, the bounds).\n";
  out << io::render({"whatif bruck-index", all_verified ? "pass" : "fail", heading.str(),
                     std::move(facts), std::move(table), notes.str()},
                    format);
  return all_verified ? 0 : 1;
}

/// "1..20" or "3,5,8" -> seeds.
std::vector<std::uint64_t> parse_seeds(const std::string& text) {
  std::vector<std::uint64_t> seeds;
  const auto parse = [&](std::string_view s) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
      throw InputError("--seeds " + text + ": '" + std::string(s) + "' is not a seed");
    return v;
  };
  if (const auto dots = text.find(".."); dots != std::string::npos) {
    const std::uint64_t lo = parse(std::string_view(text).substr(0, dots)),
                        hi = parse(std::string_view(text).substr(dots + 2));
    if (hi < lo || hi - lo >= 10000) throw InputError("--seeds " + text + ": 1 to 10000 seeds");
    for (std::uint64_t i = 0; i <= hi - lo; ++i) seeds.push_back(lo + i);  // hi may be 2^64 - 1
    return seeds;
  }
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t comma = std::min(rest.find(','), rest.size());
    seeds.push_back(parse(rest.substr(0, comma)));
    rest.remove_prefix(std::min(comma + 1, rest.size()));
  }
  if (seeds.empty()) throw InputError("--seeds: give at least one seed");
  return seeds;
}

/// The Slim Fly paper's question: does randomizing the order lower the per-phase link load on
/// this network? Every algorithm (each seed of the randomized ones) generated, verified for
/// delivery, and measured.
int whatif_congestion(const WhatIfArgs& args, io::TableFormat format, std::ostream& out) {
  if (args.topology.empty()) throw InputError("whatif congestion: give --topology");
  const Topology model = io::read_topology_file(args.topology);
  const std::vector<std::uint64_t> seeds = parse_seeds(args.seeds);
  if (args.bytes.size() > 1) throw InputError("whatif congestion: one --bytes");
  io::Table table({{"algorithm", "algorithm"},
                   {"runs", "runs"},
                   {"phases", "phases"},
                   {"sum_of_max_min", "sum of max load: min"},
                   {"sum_of_max_median", "median"},
                   {"sum_of_max_mean", "mean"},
                   {"sum_of_max_max", "max"},
                   {"max_load_per_phase", "max load per phase"},
                   {"delivered", "delivered"}});
  bool all_delivered = true;
  std::string_view names = args.algorithms;
  while (!names.empty()) {
    const std::size_t comma = std::min(names.find(','), names.size());
    const std::string name(names.substr(0, comma));
    names.remove_prefix(std::min(comma + 1, names.size()));
    const auto* a = &schedules::require_algorithm(name);
    const bool seeded = std::string_view(a->parameters).find("seed=") != std::string_view::npos;
    std::vector<std::uint64_t> sums;
    std::size_t phases = 0;
    double per_phase = 0;
    bool delivered = true;
    std::string not_applicable;
    const std::vector<std::uint64_t> runs = seeded ? seeds : std::vector<std::uint64_t>{0};
    ProgressMeter progress(terminal_stderr(), "whatif congestion " + name, "runs", runs.size());
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
      delivered &= report.passed("delivery") && (!has_invariants || report.passed("invariants"));
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
  heading << "congestion on " << describe(model) << " (" << input_name(args.topology)
          << "), seeds " << args.seeds;
  nlohmann::ordered_json facts;
  facts["topology"] = describe(model);
  facts["source"] = input_name(args.topology);
  facts["seeds"] = seeds;
  facts["selection"] = nullptr;
  if (!args.bytes.empty()) {
    const auto choice = schedules::select_randomized(args.bytes[0], ranks(model));
    facts["selection"] = {{"bytes", args.bytes[0]},
                          {"algorithm", choice.algorithm},
                          {"reason", choice.reason}};
    notes << "\nthe paper's selection for " << args.bytes[0] << " bytes per message on "
          << ranks(model) << " processes: " << choice.algorithm << " (" << choice.reason << ")\n";
  }
  notes << "\nload = blocks on a directed link in a phase (per unit of capacity, rounded up, on a "
           "graph's parallel links and host ports); sum of max load = the sum over phases of "
           "the busiest link's load (at least the model's C2 bound: phasecheck congestion prints "
           "it);\nmax load per phase = "
           "its mean over phases and runs; delivered = every block exactly once and the "
           "algorithm's invariants hold, in every run.\n";
  out << io::render({"whatif congestion", all_delivered ? "pass" : "fail", heading.str(),
                     std::move(facts), std::move(table), notes.str()},
                    format);
  return all_delivered ? 0 : 1;
}

}  // namespace

int whatif(const WhatIfArgs& args, std::ostream& out) {
  const io::TableFormat format = io::parse_table_format(args.report, "whatif");
  if (args.question == "optimality") return whatif_optimality(args, format, out);
  if (args.question == "experiment") return whatif_experiment(args, format, out);
  if (args.question == "congestion") return whatif_congestion(args, format, out);
  if (args.question == "hierarchical-factor") return whatif_hierarchical(args, format, out);
  if (args.question == "bruck-index") return whatif_bruck_index(args, format, out);
  throw InputError(unknown_name(
      "what-if question", args.question,
      {"hierarchical-factor", "bruck-index", "congestion", "optimality", "experiment"}));
}

}  // namespace phasecheck::cli
