// `phasecheck whatif QUESTION ...`: the options of each research question, the question asked of
// experiments/, and its table rendered by report/.

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/network_options.hpp"
#include "core/progress.hpp"
#include "core/suggest.hpp"
#include "experiments/optimality_tables.hpp"
#include "experiments/questions.hpp"
#include "io/json.hpp"
#include "report/optimal_report.hpp"
#include "report/table.hpp"
#include "schedules/registry.hpp"

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

/// The clusters of --sizes and --sizes-file, in that order.
std::vector<experiments::NamedCluster> given_clusters(const WhatIfArgs& args) {
  std::vector<experiments::NamedCluster> instances;
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
  return instances;
}

int whatif_hierarchical(const WhatIfArgs& args, reports::TableFormat format, std::ostream& out) {
  const std::vector<experiments::NamedCluster> instances = given_clusters(args);
  if (instances.empty())
    throw InputError("whatif hierarchical-factor: give --sizes or --sizes-file");
  const TableReport report = experiments::hierarchical_factor_steps(instances, terminal_stderr());
  out << reports::render(report, format);
  return report.verdict == verify::Verdict::pass ? 0 : 1;
}

/// hierarchical-factor against cluster-coloring: the given clusters, --random N of them up to
/// --max-ranks, or every cluster of 2..--max-ranks ranks.
int whatif_cluster(const WhatIfArgs& args, reports::TableFormat format, std::ostream& out) {
  std::vector<experiments::NamedCluster> instances = given_clusters(args);
  if (args.random > 0) {
    if (!instances.empty())
      throw InputError("whatif cluster: give --sizes/--sizes-file or --random, not both");
    instances = experiments::random_clusters(args.random, args.max_ranks, args.seed);
  } else if (instances.empty()) {
    instances = experiments::every_cluster(args.max_ranks);
  }
  const TableReport report = experiments::cluster_comparison(
      instances, experiments::kSolvedClusterRanks, args.timeout, terminal_stderr());
  out << reports::render(report, format);
  return report.verdict == verify::Verdict::fail ? 1 : 0;
}

/// Bruck et al., Section 3.5: which radix is best for this machine?
int whatif_bruck_index(const WhatIfArgs& args, reports::TableFormat format, std::ostream& out) {
  if (args.bytes.size() > 1) throw InputError("whatif bruck-index: one --bytes (the block size)");
  experiments::BruckRadixQuestion q;
  q.ranks = args.ranks;
  q.ports = args.ports;
  q.ts = args.ts;
  q.tw = args.tw;
  q.bytes = !args.bytes.empty()    ? double(args.bytes[0])
            : args.block_alias > 0 ? args.block_alias
                                   : 1;
  q.bytes_default = args.bytes.empty() && args.block_alias == 0;
  const TableReport report = experiments::bruck_radix(q, terminal_stderr());
  out << reports::render(report, format);
  return report.verdict == verify::Verdict::pass ? 0 : 1;
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
/// this network?
int whatif_congestion(const WhatIfArgs& args, reports::TableFormat format, std::ostream& out) {
  if (args.topology.empty()) throw InputError("whatif congestion: give --topology");
  experiments::CongestionQuestion q;
  q.model = io::read_topology_file(args.topology);
  q.source = input_name(args.topology);
  q.seeds = parse_seeds(args.seeds);
  q.seeds_text = args.seeds;
  if (args.bytes.size() > 1) throw InputError("whatif congestion: one --bytes");
  if (!args.bytes.empty()) q.bytes = args.bytes[0];
  std::string_view names = args.algorithms;
  while (!names.empty()) {
    const std::size_t comma = std::min(names.find(','), names.size());
    q.algorithms.emplace_back(names.substr(0, comma));
    schedules::require_algorithm(q.algorithms.back());  // every name before the first run
    names.remove_prefix(std::min(comma + 1, names.size()));
  }
  const TableReport report = experiments::randomized_congestion(q, terminal_stderr());
  out << reports::render(report, format);
  return report.verdict == verify::Verdict::pass ? 0 : 1;
}

/// One row per machine of the family, with the algorithm's count, the lower bound and the
/// optimum Z3 proves.
int whatif_optimality(const WhatIfArgs& args, reports::TableFormat format, std::ostream& out) {
  check_timeout(args.timeout);
  std::optional<TableReport> report;
  if (args.family == "kport") {
    experiments::KportOptimality k =
        experiments::kport_optimality(args.max_ranks, args.timeout, terminal_stderr());
    if (format == reports::TableFormat::text) {
      out << reports::kport_optimality_text(k);
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

}  // namespace

int whatif(const WhatIfArgs& args, std::ostream& out) {
  const reports::TableFormat format = reports::parse_table_format(args.report, "whatif");
  if (args.question == "optimality") return whatif_optimality(args, format, out);
  if (args.question == "experiment") return whatif_experiment(args, format, out);
  if (args.question == "congestion") return whatif_congestion(args, format, out);
  if (args.question == "hierarchical-factor") return whatif_hierarchical(args, format, out);
  if (args.question == "cluster") return whatif_cluster(args, format, out);
  if (args.question == "bruck-index") return whatif_bruck_index(args, format, out);
  throw InputError(unknown_name(
      "what-if question", args.question,
      {"hierarchical-factor", "cluster", "bruck-index", "congestion", "optimality", "experiment"}));
}

}  // namespace phasecheck::cli
