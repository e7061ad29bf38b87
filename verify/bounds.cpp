#include "verify/bounds.hpp"

#include "core/cluster_bound.hpp"

#include <algorithm>
#include <string>

namespace phasecheck::verify {
namespace {

using u64 = std::uint64_t;

u64 ceil_div(u64 a, u64 b) { return b == 0 ? 0 : (a + b - 1) / b; }

/// Smallest c with base^c >= n: the rounds needed when the holders of a block can multiply by at
/// most `base` per phase.
u64 ceil_log(u64 base, u64 n) {
  u64 c = 0;
  for (u64 reach = 1; reach < n; reach *= base) ++c;
  return c;
}

/// Sum over ordered pairs of positions of their distance along one dimension of `n` positions.
u64 pair_distance_sum(u64 n, bool wraps) {
  if (!wraps) return (n * n * n - n) / 3;
  u64 s = 0;
  for (u64 k = 0; k < n; ++k) s += std::min(k, n - k);
  return n * s;
}

Bound dissemination(u64 p, u64 fanout, const std::string& why) {
  return {Metric::c1, fanout == 0 ? 0 : ceil_log(fanout + 1, p),
          "a rank sends at most " + std::to_string(fanout) +
              (fanout == 1 ? " transfer" : " transfers") + " per phase (" + why +
              "), so the ranks holding anything of rank o grow at most " +
              std::to_string(fanout + 1) + "-fold per phase: ceil(log_" +
              std::to_string(fanout + 1) + " " + std::to_string(p) + ")",
          false};
}

Bound receive(u64 p, u64 ports, const std::string& who) {
  return {Metric::c2, ceil_div(p - 1, ports),
          who + " must receive " + std::to_string(p - 1) + " blocks over at most " +
              std::to_string(ports) + (ports == 1 ? " incoming transfer" : " incoming transfers") +
              " per phase: ceil(" + std::to_string(p - 1) + "/" + std::to_string(ports) + ")",
          false};
}

/// Routed models other than the tree: the traffic bound (total link-hops over directed links)
/// and the per-rank receive bound.
void routed(std::vector<Bound>& out, Collective c, u64 p, u64 links, u64 alltoall_hops,
            u64 min_in_degree, u64 max_out_degree) {
  if (p <= 1) return;
  const u64 hops = c == Collective::alltoall ? alltoall_hops : p * (p - 1);
  out.push_back({Metric::c2, ceil_div(hops, links),
                 (c == Collective::alltoall ? "the messages need " + std::to_string(hops) +
                                                  " link-hops at least (sum of "
                                                  "route lengths)"
                                            : "each of the " + std::to_string(p * (p - 1)) +
                                                  " deliveries needs a link-hop") +
                     " and the directed links carry " + std::to_string(links) +
                     " transfers per phase in all (one per link and unit of capacity)",
                 false});
  out.push_back(receive(p, min_in_degree,
                        "a rank with " + std::to_string(min_in_degree) +
                            (min_in_degree == 1 ? " in-link" : " in-links")));
  out.push_back(dissemination(p, max_out_degree, "one per out-link"));
}

/// The bounds of each model kind, one overload each: lower_bounds visits them, so a new kind
/// without its bounds does not compile.
void model_bounds(std::vector<Bound>& out, const Tree& tree, Collective c, u64 p) {
  // The busiest link: |Mu| x |Mv| messages cross it each way (alltoall); for allgather the
  // larger side's blocks must cross at least once with forwarding, every pair without.
  const Tree::Cut worst = tree.bottleneck();
  const u64 load = tree.bottleneck_load();
  u64 side = 0;
  for (const Tree::Cut& cut : tree.cuts())
    if (cut.machines_a && cut.machines_b)
      side = std::max<u64>(side, std::max(cut.machines_a, cut.machines_b));
  const std::string link = "link " + tree.node_name(worst.a) + " - " + tree.node_name(worst.b) +
                           " splits the machines " + std::to_string(worst.machines_a) + " | " +
                           std::to_string(worst.machines_b);
  if (c == Collective::alltoall) {
    out.push_back({Metric::c2, load,
                   link + ": " + std::to_string(load) +
                       " blocks must cross it each way, one transfer per phase (Faraj-Yuan "
                       "bottleneck load)",
                   false});
  } else {
    out.push_back({Metric::c2, side,
                   "some link has " + std::to_string(side) +
                       " machines on one side, whose blocks must all cross it, one transfer per "
                       "phase",
                   false});
    out.push_back({Metric::c2, load,
                   link + ": without forwarding " + std::to_string(load) +
                       " messages cross it each way, one per phase",
                   true});
  }
  out.push_back(dissemination(p, 1, "one link per machine"));
}

void model_bounds(std::vector<Bound>& out, const Cluster& cluster, Collective, u64 p) {
  const ClusterBound b = cluster_bound(cluster.node_sizes());
  out.push_back({Metric::c2, b.node_ops,
                 "a node of " + std::to_string(b.largest) + " processors must receive " +
                     std::to_string(b.largest) + " x " + std::to_string(p - 1) +
                     " blocks, and in each phase only one of its processors receives "
                     "(Sanders-Traeff single-port)",
                 false});
  const u64 nodes = cluster.node_count();
  if (b.pair_phases > 0)
    out.push_back({Metric::c2, b.pair_phases,
                   std::to_string(b.exchanges) +
                       " pairs of processors on different nodes need an exchange each, and a "
                       "phase pairs at most " +
                       std::to_string(b.per_phase) + " of the " + std::to_string(nodes) + " nodes" +
                       (nodes % 2 ? " (one node always idles or works alone)" : ""),
                   true});
  out.push_back(dissemination(p, 1, "one operation per node"));
}

void model_bounds(std::vector<Bound>& out, const FullyConnected& fc, Collective, u64 p) {
  const u64 k = std::min<u64>(fc.ports, p - 1);
  out.push_back(receive(p, k, "every rank"));
  out.push_back(dissemination(p, k, "k ports"));
}

void model_bounds(std::vector<Bound>& out, const Hypercube& cube, Collective c, u64 p) {
  const u64 d = cube.dimension;
  routed(out, c, p, p * d, p * d * (p / 2), d, d);
}

void model_bounds(std::vector<Bound>& out, const Mesh& mesh, Collective c, u64 p) {
  const auto dim = [&](u64 size, u64 lines, u64& links, u64& hops, u64& min_deg, u64& max_deg) {
    if (size <= 1) return;
    const bool wraps = mesh.wraparound && size > 2;
    links += lines * 2 * (wraps ? size : size - 1);
    hops += lines * lines * pair_distance_sum(size, wraps);
    min_deg += wraps ? 2 : 1;
    max_deg += size == 2 ? 1 : 2;
  };
  u64 links = 0, hops = 0, min_deg = 0, max_deg = 0;
  dim(mesh.cols, mesh.rows, links, hops, min_deg, max_deg);
  dim(mesh.rows, mesh.cols, links, hops, min_deg, max_deg);
  routed(out, c, p, links, hops, min_deg, max_deg);
}

void model_bounds(std::vector<Bound>& out, const Graph& graph, Collective c, u64 p) {
  // Every route is host -> router, the router path, router -> host: distance + 2 hops.
  u64 hops = 0;
  const auto& h = graph.hosts();
  for (std::uint32_t a = 0; a < graph.router_count(); ++a)
    for (std::uint32_t b = 0; b < graph.router_count(); ++b) {
      const u64 pairs = u64{h[a]} * h[b] - (a == b ? h[a] : 0);
      hops += pairs * (graph.distance(a, b) + 2);
    }
  // A link of capacity c counts as c links; a host of k ports receives and sends k at a time.
  u64 capacity = 0;
  for (LinkId l = 0; l < graph.link_id_count(); ++l) capacity += graph.capacity(l);
  u64 min_ports = UINT64_MAX, max_ports = 0;
  for (std::uint32_t r = 0; r < graph.router_count(); ++r)
    if (h[r] > 0) {
      min_ports = std::min<u64>(min_ports, graph.host_ports()[r]);
      max_ports = std::max<u64>(max_ports, graph.host_ports()[r]);
    }
  routed(out, c, p, capacity, hops, min_ports, max_ports);
}

void model_bounds(std::vector<Bound>& out, const Ring&, Collective c, u64 p) {
  const u64 degree = p == 2 ? 1 : 2;
  routed(out, c, p, p * degree, pair_distance_sum(p, true), degree, degree);
}

}  // namespace

std::vector<Bound> lower_bounds(const Topology& model, Collective c) {
  std::vector<Bound> out;
  const u64 p = ranks(model);
  if (p <= 1) return out;
  std::visit([&](const auto& net) { model_bounds(out, net, c, p); }, model);
  return out;
}

std::vector<Bound> compound_bounds(const Topology& model, Collective collective,
                                   const Counts& counts) {
  std::vector<Bound> out;
  const auto* fc = std::get_if<FullyConnected>(&model);
  if (!fc || collective != Collective::alltoall) return out;
  const u64 n = fc->ranks, k = std::min<u64>(fc->ports, n - 1);
  if (n < 2 || k == 0) return out;
  // Theorem 2.5: the binomial spanning trees forced by C1 = log_{k+1} n carry n d k/(k+1)
  // blocks each, n of them over n k ports.
  u64 power = 1, d = 0;
  while (power < n) power *= k + 1, ++d;
  const bool theorem_2_5 = power == n && counts.c1 == d;
  if (theorem_2_5)
    out.push_back({Metric::c2, n * d / (k + 1),
                   "Theorem 2.5 (Bruck et al.): n = " + std::to_string(k + 1) + "^" +
                       std::to_string(d) + " and C1 = " + std::to_string(d) +
                       " = log_{k+1} n, so C2 >= n log_{k+1} n / (k + 1)",
                   false});
  // Where Theorem 2.5 applies the reach bound equals it; elsewhere it generalizes it.
  if (const u64 reach = reach_c2_bound(n, k, counts.c1); reach > 0 && !theorem_2_5)
    out.push_back({Metric::c2, reach,
                   "reach (Theorem 2.5 for any n): in C1 = " + std::to_string(counts.c1) +
                       " rounds few blocks go direct, the rest take more hops",
                   false});
  // Theorem 2.6: C2 at its bound forces every block to travel directly.
  if ((n - 1) % k == 0 && counts.c2 == (n - 1) / k)
    out.push_back({Metric::c1, (n - 1) / k,
                   "Theorem 2.6 (Bruck et al.): C2 = (n - 1)/k = " + std::to_string((n - 1) / k) +
                       ", so C1 >= (n - 1)/k",
                   false});
  return out;
}

std::uint64_t reach_c2_bound(std::uint64_t n, std::uint64_t k, std::uint64_t d) {
  if (n < 2 || k == 0) return 0;
  k = std::min(k, n - 1);
  // reached = sum_{i=1}^{j} C(d, i) k^i, capped at n; once it covers n - 1 the terms are 0, so
  // C(d, j - 1) k^(j - 1) < n whenever C(d, j) is computed: no overflow.
  u64 sum = 0, reached = 0, choose = 1, power = 1;  // C(d, j), k^j
  for (u64 j = 0; j < d; ++j) {
    if (j > 0) {
      choose = choose * (d - j + 1) / j;  // exact: C(d, j) = C(d, j - 1) (d - j + 1) / j
      power = std::min<u64>(power * k, n);
      reached = std::min<u64>(reached + std::min<u64>(choose * power, n), n);
    }
    if (reached >= n - 1) break;
    sum += n - 1 - reached;
  }
  // Everything reachable within d hops: (k + 1)^d - 1 ranks at most.
  u64 all = 1;
  for (u64 j = 0; j < d && all < n; ++j) all *= k + 1;
  if (all < n) return 0;
  return (sum + k - 1) / k;
}

std::pair<std::uint64_t, std::uint64_t> best_bounds(const std::vector<Bound>& bounds, bool direct) {
  u64 c1 = 0, c2 = 0;
  for (const Bound& b : bounds) {
    if (b.direct_only && !direct) continue;
    (b.metric == Metric::c1 ? c1 : c2) = std::max(b.metric == Metric::c1 ? c1 : c2, b.value);
  }
  if (direct) c1 = c2 = std::max(c1, c2);
  return {c1, c2};
}

CheckResult check_bounds(const Counts& counts, std::uint64_t bound_c1, std::uint64_t bound_c2) {
  CheckResult r{CheckId::bounds, Verdict::pass, {}, {}};
  const auto row = [](const char* name, u64 value, u64 bound) {
    std::string s = std::string(name) + " = " + std::to_string(value) + " (lower bound " +
                    std::to_string(bound) + ", ";
    if (value < bound) return s + "below it)";
    return s + (value == bound ? "optimal)" : "gap " + std::to_string(value - bound) + ")");
  };
  if (counts.direct) {
    r.summary = row("phases with communication", counts.c1, bound_c1);
  } else {
    r.summary = row("C1", counts.c1, bound_c1) + ", " + row("C2", counts.c2, bound_c2);
  }
  if (counts.c1 < bound_c1 || counts.c2 < bound_c2) {
    r.verdict = Verdict::fail;
    const bool c1 = counts.c1 < bound_c1;
    Counterexample x;
    x.explanation = std::string(c1 ? "C1 = " : "C2 = ") +
                    std::to_string(c1 ? counts.c1 : counts.c2) + " is below the lower bound " +
                    std::to_string(c1 ? bound_c1 : bound_c2) +
                    ", which every valid schedule on this model meets: some phase overloads a "
                    "link or port, or some block is never delivered";
    r.counterexample = std::move(x);
  }
  return r;
}

}  // namespace phasecheck::verify
