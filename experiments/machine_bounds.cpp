#include "experiments/machine_bounds.hpp"

#include <tuple>
#include <utility>

#include "core/error.hpp"
#include "schedules/faraj_yuan.hpp"
#include "verify/bounds.hpp"

namespace phasecheck::experiments {
namespace {

TreeFigures tree_figures(const Tree& tree, double bandwidth) {
  TreeFigures f;
  const Tree::Cut worst = tree.bottleneck();
  f.link_a = tree.node_name(worst.a);
  f.link_b = tree.node_name(worst.b);
  f.machines_a = worst.machines_a;
  f.machines_b = worst.machines_b;
  f.load = tree.bottleneck_load();
  f.peak_throughput_factor = tree.peak_throughput_factor();
  f.bandwidth = bandwidth;
  if (bandwidth > 0) f.peak_throughput = f.peak_throughput_factor * bandwidth;
  if (tree.ranks() >= 2) {
    const schedules::FarajYuanPlan plan = schedules::faraj_yuan_plan(tree);
    FarajYuanFigures fy;
    if (plan.root) fy.root = tree.node_name(*plan.root);
    for (const auto& t : plan.t) fy.subtrees.push_back(t.size());
    fy.phases = plan.phases();
    f.faraj_yuan = std::move(fy);
  }
  return f;
}

/// A graph's bounds in seconds, when its links have bandwidths or `bandwidth` gives them.
std::optional<SecondsFigures> seconds_figures(const Topology& model, Collective collective,
                                              double bandwidth, double block_bytes) {
  const Graph* graph = std::get_if<Graph>(&model);
  const bool own = graph && verify::has_bandwidths(*graph);
  if (own && bandwidth > 0)
    throw InputError("--bandwidth: the topology gives its links' bandwidths (" + describe(model) +
                     "); leave it out");
  if (!own && !(graph && bandwidth > 0)) {
    if (block_bytes > 0)
      throw InputError(
          "--bytes: the bound in seconds needs a graph whose links have bandwidths "
          "(topology format 2) or --bandwidth; " +
          describe(model) + " has none");
    return std::nullopt;
  }
  SecondsFigures s;
  s.bandwidth = own ? 0 : bandwidth;
  const std::vector<double> bw = verify::directed_bandwidths(*graph, s.bandwidth);
  s.per_byte = verify::time_lower_bound(*graph, bw, collective, 1);
  s.block_bytes = block_bytes;
  if (block_bytes > 0) s.bound = verify::time_lower_bound(*graph, bw, collective, block_bytes);
  return s;
}

}  // namespace

MachineBounds machine_bounds(const Topology& model, Collective collective, double bandwidth,
                             double block_bytes) {
  MachineBounds b;
  b.topology = describe(model);
  b.kind = kind(model);
  b.ranks = ranks(model);
  b.collective = collective;
  b.bounds = verify::lower_bounds(model, collective);
  b.direct_phases = verify::best_bounds(b.bounds, true).first;
  std::tie(b.c1, b.c2) = verify::best_bounds(b.bounds, false);
  if (const auto* tree = std::get_if<Tree>(&model)) b.tree = tree_figures(*tree, bandwidth);
  b.seconds = seconds_figures(model, collective, bandwidth, block_bytes);
  return b;
}

}  // namespace phasecheck::experiments
