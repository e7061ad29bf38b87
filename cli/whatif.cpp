// `phasecheck whatif FAMILY ...`: the research questions, one table row per instance. Every figure
// printed comes from a generated schedule that went through all the checks.

#include <charconv>
#include <fstream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "schedules/hierarchical_factor.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {
namespace {

/// "8,8,4,1" -> {8, 8, 4, 1}; `where` names the source in errors.
std::vector<Rank> parse_sizes(std::string_view text, const std::string& where) {
  std::vector<Rank> sizes;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || value < 1 ||
        value > kMaxRanks)
      throw InputError(where + ": '" + std::string(item) + "' is not a node size (1 to " +
                       std::to_string(kMaxRanks) + ")");
    sizes.push_back(static_cast<Rank>(value));
    start = comma + 1;
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

int whatif_hierarchical(const WhatIfArgs& args, std::ostream& out) {
  std::vector<std::pair<std::string, std::vector<Rank>>> instances;
  for (const std::string& s : args.sizes) instances.push_back({s, parse_sizes(s, "--sizes " + s)});
  if (!args.sizes_file.empty()) {
    std::ifstream in;
    open_input(in, args.sizes_file);
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

  Table table(
      {"sizes", "p", "steps", "compact", "bound", "gap", "compact gap", "inefficient", "verified"});
  bool all_verified = true;
  for (const auto& [text, sizes] : instances) {
    const Cluster cluster(sizes);
    const Run plain = run_hierarchical(cluster, false), compact = run_hierarchical(cluster, true);
    const bool verified = plain.broken.empty() && compact.broken.empty();
    all_verified &= verified;
    const auto gap = [](const Run& r) {
      return r.steps >= r.bound ? std::to_string(r.steps - r.bound) : "-";
    };
    table.add({text, std::to_string(cluster.ranks()), std::to_string(plain.steps),
               std::to_string(compact.steps), std::to_string(plain.bound), gap(plain), gap(compact),
               std::to_string(plain.inefficient),
               verified ? "yes" : "NO: " + plain.broken + compact.broken});
  }
  out << "hierarchical-factor (Sanders & Traeff, Fig. 2) on SMP clusters\n\n";
  table.print(out);
  out << "\nsteps = table phases of the plain algorithm; compact = self-loops in one factor when "
         "|A| is even, intra-node steps moved to the end;\nbound = lower bound on steps "
         "(docs/bounds.md); inefficient = steps (plain) in which a node paired with itself sends "
         "while two maximal nodes exchange;\nverified = every check passed for both schedules "
         "(delivery, contention, the invariant of Fig. 2, Theorem 1's step range).\n";
  return all_verified ? 0 : 1;
}

}  // namespace

int whatif(const WhatIfArgs& args, std::ostream& out) {
  if (args.family == "hierarchical-factor") return whatif_hierarchical(args, out);
  throw InputError("unknown what-if family '" + args.family + "' (known: hierarchical-factor)");
}

}  // namespace phasecheck::cli
