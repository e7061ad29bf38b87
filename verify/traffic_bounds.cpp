// The load bound of an alltoallv, per machine model (verify/traffic_bounds.hpp).

#include "verify/traffic_bounds.hpp"

#include <algorithm>
#include <vector>

#include "core/limits.hpp"

namespace phasecheck::verify {
namespace {

using u64 = std::uint64_t;

u64 ceil_div(u64 a, u64 b) { return b == 0 ? 0 : (a + b - 1) / b; }

/// "1234 bytes (1.2 KiB)".
std::string bytes_text(u64 bytes) {
  std::string text = std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
  const std::string short_form = format_bytes(bytes);
  return short_form.find("byte") == std::string::npos ? text + " (" + short_form + ")" : text;
}

/// The per-rank bound: rank r sends sent(r) bytes over ports(r) out-links and receives
/// received(r) over as many in-links; the largest quotient.
template <class Ports>
LoadBound per_rank(const Traffic& traffic, Ports&& ports, const char* port_name) {
  LoadBound best;
  for (Rank r = 0; r < traffic.ranks; ++r) {
    const u64 k = ports(r);
    for (const bool sends : {true, false}) {
      const u64 total = sends ? sent_bytes(traffic, r) : received_bytes(traffic, r);
      const u64 bound = ceil_div(total, k);
      if (bound <= best.bytes) continue;
      best.bytes = bound;
      best.argument = "rank " + std::to_string(r) + (sends ? " sends " : " receives ") +
                      bytes_text(total) + (sends ? " to" : " from") + " other ranks over " +
                      std::to_string(k) + " " + port_name + (k == 1 ? "" : "s") +
                      ", one transfer each per phase: ceil(" + std::to_string(total) + "/" +
                      std::to_string(k) + ")";
    }
  }
  return best;
}

/// A position's neighbours along one dimension of `n` positions.
u64 neighbours(u64 position, u64 n, bool wraparound) {
  if (n <= 1) return 0;
  if (n == 2) return 1;
  if (wraparound) return 2;
  return position == 0 || position == n - 1 ? 1 : 2;
}

LoadBound model_bound(const FullyConnected& fc, const Traffic& traffic) {
  const u64 k = std::max<u64>(1, std::min<u64>(fc.ports, traffic.ranks - 1));
  return per_rank(traffic, [k](Rank) { return k; }, "port");
}

LoadBound model_bound(const Hypercube& cube, const Traffic& traffic) {
  return per_rank(traffic, [&](Rank) { return u64{cube.dimension}; }, "link");
}

LoadBound model_bound(const Ring& ring, const Traffic& traffic) {
  return per_rank(traffic, [&](Rank) { return u64{ring.ranks == 2 ? 1u : 2u}; }, "link");
}

LoadBound model_bound(const Mesh& mesh, const Traffic& traffic) {
  return per_rank(
      traffic,
      [&](Rank r) {
        return neighbours(r % mesh.cols, mesh.cols, mesh.wraparound) +
               neighbours(r / mesh.cols, mesh.rows, mesh.wraparound);
      },
      "link");
}

LoadBound model_bound(const Graph& graph, const Traffic& traffic) {
  return per_rank(
      traffic, [&](Rank r) { return u64{graph.host_ports()[graph.router_of(r)]}; }, "port");
}

LoadBound model_bound(const Cluster& cluster, const Traffic& traffic) {
  LoadBound best = per_rank(traffic, [](Rank) { return u64{1}; }, "port");
  std::vector<u64> sent(cluster.node_count(), 0), received(cluster.node_count(), 0);
  for (Rank r = 0; r < traffic.ranks; ++r) {
    sent[cluster.node_of(r)] += sent_bytes(traffic, r);
    received[cluster.node_of(r)] += received_bytes(traffic, r);
  }
  for (std::uint32_t n = 0; n < cluster.node_count(); ++n)
    for (const bool sends : {true, false}) {
      const u64 total = sends ? sent[n] : received[n];
      if (total <= best.bytes) continue;
      best.bytes = total;
      best.argument = "node " + std::to_string(n) + "'s " +
                      std::to_string(cluster.node_sizes()[n]) + " processors" +
                      (sends ? " send " : " receive ") + bytes_text(total) +
                      ", and the node sends or receives one transfer per phase (Sanders-Traeff "
                      "single-port)";
    }
  return best;
}

LoadBound model_bound(const Tree& tree, const Traffic& traffic) {
  LoadBound best = per_rank(traffic, [](Rank) { return u64{1}; }, "link");
  std::vector<u64> load(tree.link_id_count(), 0);
  for (Rank s = 0; s < traffic.ranks; ++s)
    for (Rank d = 0; d < traffic.ranks; ++d)
      if (const u64 bytes = traffic.bytes(s, d); bytes > 0 && s != d)
        tree.route(s, d, [&](LinkId l) { load[l] += bytes; });
  for (LinkId l = 0; l < load.size(); ++l) {
    if (load[l] <= best.bytes) continue;
    const auto [from, to] = tree.link_ends(l);
    best.bytes = load[l];
    best.argument = bytes_text(load[l]) + " must cross link " + tree.node_name(from) + " -> " +
                    tree.node_name(to) + ", one transfer per phase (the heaviest cut)";
  }
  return best;
}

}  // namespace

LoadBound load_bound(const Topology& model, const Traffic& traffic) {
  if (traffic.ranks <= 1) return {0, "one rank: nothing to send"};
  LoadBound bound = std::visit([&](const auto& net) { return model_bound(net, traffic); }, model);
  if (bound.argument.empty()) bound.argument = "no rank sends or receives anything";
  return bound;
}

std::uint64_t transfer_bytes(const Phase& phase, const Transfer& t, const Traffic& traffic,
                             Pieces pieces) {
  u64 elements = 0;
  for (const Block& b : phase.blocks(t))
    elements += pieces.elements(traffic.count(b.origin, b.dest), b.part);
  return elements * traffic.element_bytes;
}

CheckResult check_load_bound(const Counts& counts, const ByteFigures& bytes) {
  CheckResult r{CheckId::bounds, Verdict::pass, {}, {}};
  r.summary = "cost " + std::to_string(bytes.cost) + " bytes (load bound " +
              std::to_string(bytes.load_bound) + ", ";
  if (bytes.cost < bytes.load_bound)
    r.summary += "below it)";
  else if (bytes.cost == bytes.load_bound)
    r.summary += "optimal)";
  else
    r.summary += "gap " + std::to_string(bytes.cost - bytes.load_bound) + ")";
  r.summary += " in " + std::to_string(counts.c1) + " phases with communication";
  if (bytes.cost < bytes.load_bound) {
    r.verdict = Verdict::fail;
    Counterexample x;
    x.explanation = "the cost of " + std::to_string(bytes.cost) +
                    " bytes is below the load bound, which every valid schedule meets (" +
                    bytes.argument +
                    "): some phase overloads a link or port, or some block is never delivered";
    r.counterexample = std::move(x);
  }
  return r;
}

}  // namespace phasecheck::verify
