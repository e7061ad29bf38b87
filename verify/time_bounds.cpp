// Lower bounds in seconds from a graph's bandwidths (verify/time_bounds.hpp; proofs in
// docs/bounds.md, "Bounds in seconds").

#include "verify/time_bounds.hpp"

#include <algorithm>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/biconnected_components.hpp>
#include <boost/graph/connected_components.hpp>
#include <boost/graph/filtered_graph.hpp>

#include "core/table.hpp"

namespace phasecheck::verify {
namespace {

using RouterGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                          boost::property<boost::edge_index_t, std::size_t>>;

/// The hosts on side A of a cut: those of the routers marked in `routers`, or the one `host` when
/// `routers` is empty (a host's own link).
struct Side {
  std::vector<char> routers;
  Rank host = 0;
  bool contains(const Graph& g, Rank r) const {
    return routers.empty() ? r == host : routers[g.router_of(r)] != 0;
  }
};

/// One cut: its name, side A's description and its bandwidth each way (0 when a link that way
/// has no known bandwidth).
struct Cut {
  std::string name, side_a;
  Side side;
  double a_to_b = 0, b_to_a = 0;
};

/// The bytes that must cross a cut each way.
struct Crossing {
  double a_to_b = 0, b_to_a = 0;
  Rank hosts_a = 0;
};

class Bounder {
 public:
  Bounder(const Graph& g, std::span<const double> bw, Collective c, double m, const Traffic* t)
      : g_(g), bw_(bw), collective_(c), m_(m), traffic_(t) {}

  void consider(const Cut& cut) {
    const Crossing x = crossing(cut.side);
    const Rank p = g_.ranks();
    if (x.hosts_a == 0 || x.hosts_a == p) return;
    for (const bool outward : {true, false}) {
      const double bytes = outward ? x.a_to_b : x.b_to_a;
      const double capacity = outward ? cut.a_to_b : cut.b_to_a;
      ++bound_.cuts;
      if (capacity <= 0) {
        ++bound_.unusable;
        continue;
      }
      const double seconds = bytes / capacity;
      if (seconds <= bound_.seconds) continue;
      bound_.seconds = seconds;
      bound_.argument = cut.name + " (hosts " + std::to_string(x.hosts_a) + " | " +
                        std::to_string(p - x.hosts_a) + "): " + demand(bytes) + " must cross it " +
                        (outward ? "from " : "into ") + cut.side_a + " at " + figure(capacity) +
                        " bytes/s";
    }
  }

  TimeBound finish() {
    const double p = g_.ranks();
    if (traffic_) {
      double total = 0;
      for (Rank s = 0; s < g_.ranks(); ++s) total += double(sent_bytes(*traffic_, s));
      bound_.bytes = total;
    } else {
      bound_.bytes = p * (p - 1) * m_;
    }
    return bound_;
  }

 private:
  /// "7 blocks of m bytes" (m = 1: the bound per byte), "7 blocks of 1024 bytes", "7340 bytes".
  std::string demand(double bytes) const {
    if (traffic_) return figure(bytes) + " bytes";
    const double blocks = m_ > 0 ? bytes / m_ : 0;
    return figure(blocks) + (blocks == 1 ? " block" : " blocks") + " of " +
           (m_ == 1 ? std::string("m") : figure(m_)) + " bytes";
  }

  Crossing crossing(const Side& side) const {
    Crossing x;
    const Rank p = g_.ranks();
    if (side.routers.empty()) {
      x.hosts_a = 1;
    } else {
      for (std::uint32_t r = 0; r < g_.router_count(); ++r)
        if (side.routers[r]) x.hosts_a += g_.hosts()[r];
    }
    if (traffic_ && side.routers.empty()) {
      x.a_to_b = double(sent_bytes(*traffic_, side.host));
      x.b_to_a = double(received_bytes(*traffic_, side.host));
    } else if (traffic_) {
      for (Rank s = 0; s < p; ++s)
        for (Rank d = 0; d < p; ++d) {
          const bool sa = side.contains(g_, s), da = side.contains(g_, d);
          if (sa && !da) x.a_to_b += double(traffic_->bytes(s, d));
          if (!sa && da) x.b_to_a += double(traffic_->bytes(s, d));
        }
    } else {
      const double a = x.hosts_a, b = p - a;
      switch (collective_) {
        case Collective::alltoall:  // every block [o, d] with o and d on different sides
          x.a_to_b = x.b_to_a = a * b * m_;
          break;
        case Collective::allgather:  // every block of a side, needed on the other at least once
          x.a_to_b = a * m_;
          x.b_to_a = b * m_;
          break;
      }
    }
    return x;
  }

  const Graph& g_;
  std::span<const double> bw_;
  Collective collective_;
  double m_;
  const Traffic* traffic_;
  TimeBound bound_;
};

/// The bandwidth each way of the router links with exactly one end on side A (0 when one of them
/// that way has none).
void cut_capacity(const Graph& g, std::span<const double> bw, Cut& cut) {
  const Rank H = g.ranks();
  bool known_ab = true, known_ba = true;
  for (LinkId l = 2 * H; l < g.link_id_count(); ++l) {
    const auto [from, to] = g.link_ends(l);
    const bool from_a = cut.side.routers[from - H] != 0, to_a = cut.side.routers[to - H] != 0;
    if (from_a == to_a) continue;
    (from_a ? cut.a_to_b : cut.b_to_a) += bw[l];
    if (bw[l] <= 0) (from_a ? known_ab : known_ba) = false;
  }
  if (!known_ab) cut.a_to_b = 0;
  if (!known_ba) cut.b_to_a = 0;
}

/// Per router link: whether it is a bridge of the router graph (alone in its biconnected
/// component).
std::vector<char> bridges(const RouterGraph& rg, std::size_t links) {
  std::vector<std::size_t> component(links);
  const auto index = boost::get(boost::edge_index, rg);
  const std::size_t count = boost::biconnected_components(
      rg, boost::make_iterator_property_map(component.begin(), index));
  std::vector<std::size_t> size(count, 0);
  for (const std::size_t c : component) ++size[c];
  std::vector<char> bridge(links, 0);
  for (std::size_t e = 0; e < links; ++e) bridge[e] = size[component[e]] == 1;
  return bridge;
}

/// The edges a filtered_graph keeps: those `drop` does not mark (Boost wants a default
/// constructible, assignable predicate).
struct Kept {
  const std::vector<char>* drop = nullptr;
  boost::property_map<RouterGraph, boost::edge_index_t>::const_type index;
  bool operator()(RouterGraph::edge_descriptor e) const { return (*drop)[index[e]] == 0; }
};

/// Router graph without the edges `drop` marks: each router's connected component.
std::vector<int> components_without(const RouterGraph& rg, const std::vector<char>& drop) {
  const boost::filtered_graph<RouterGraph, Kept> kept(
      rg, Kept{&drop, boost::get(boost::edge_index, rg)});
  std::vector<int> component(boost::num_vertices(rg));
  boost::connected_components(kept, component.data());
  return component;
}

}  // namespace

std::vector<double> directed_bandwidths(const Graph& graph, double every_link) {
  std::vector<double> bw(graph.link_id_count());
  for (LinkId l = 0; l < bw.size(); ++l) bw[l] = every_link > 0 ? every_link : graph.bandwidth(l);
  return bw;
}

bool has_bandwidths(const Graph& graph) {
  for (LinkId l = 0; l < graph.link_id_count(); ++l)
    if (graph.bandwidth(l) > 0) return true;
  return false;
}

TimeBound time_lower_bound(const Graph& graph, std::span<const double> bandwidths,
                           Collective collective, double block_bytes, const Traffic* traffic) {
  Bounder bounder(graph, bandwidths, collective, block_bytes, traffic);
  const Rank H = graph.ranks();
  const std::uint32_t R = graph.router_count();

  // Each host's own link: everything it sends leaves through it, everything it needs arrives.
  for (Rank h = 0; h < H; ++h) {
    Cut cut{"host " + std::to_string(h) + "'s link into " + graph.routers()[graph.router_of(h)],
            "host " + std::to_string(h), Side{{}, h}, bandwidths[2 * h], bandwidths[2 * h + 1]};
    bounder.consider(cut);
  }

  // The router links of one router: its hosts against the rest.
  for (std::uint32_t r = 0; r < R; ++r) {
    if (graph.hosts()[r] == 0) continue;
    Cut cut{graph.routers()[r] + "'s router links", graph.routers()[r] + "'s hosts",
            Side{std::vector<char>(R, 0), 0}};
    cut.side.routers[r] = 1;
    cut_capacity(graph, bandwidths, cut);
    bounder.consider(cut);
  }

  // Bridges: removing one splits the routers in two. The 2-edge-connected pieces (the graph
  // without its bridges) form a tree whose edges are the bridges; without bridge e, that tree
  // falls in two, and so do the routers.
  const std::size_t links = graph.links().size();
  RouterGraph rg(R);
  for (std::size_t e = 0; e < links; ++e) {
    const auto [a, b] = graph.link_ends(2 * H + 2 * static_cast<LinkId>(e));
    boost::add_edge(a - H, b - H, e, rg);
  }
  const std::vector<char> bridge = bridges(rg, links);
  if (std::find(bridge.begin(), bridge.end(), 1) == bridge.end()) return bounder.finish();
  const std::vector<int> piece = components_without(rg, bridge);
  const int pieces = *std::max_element(piece.begin(), piece.end()) + 1;
  RouterGraph tree(static_cast<std::size_t>(pieces));
  std::vector<std::size_t> tree_edge_of(links, 0);
  std::size_t tree_edges = 0;
  for (std::size_t e = 0; e < links; ++e) {
    if (!bridge[e]) continue;
    const auto [a, b] = graph.link_ends(2 * H + 2 * static_cast<LinkId>(e));
    tree_edge_of[e] = tree_edges;
    boost::add_edge(piece[a - H], piece[b - H], tree_edges++, tree);
  }
  for (std::size_t e = 0; e < links; ++e) {
    if (!bridge[e]) continue;
    std::vector<char> drop(tree_edges, 0);
    drop[tree_edge_of[e]] = 1;
    const std::vector<int> half = components_without(tree, drop);
    const auto [a, b] = graph.link_ends(2 * H + 2 * static_cast<LinkId>(e));
    Cut cut{"link " + graph.node_name(a) + " - " + graph.node_name(b),
            "the side of " + graph.node_name(a), Side{std::vector<char>(R, 0), 0}};
    for (std::uint32_t r = 0; r < R; ++r)
      cut.side.routers[r] = half[piece[r]] == half[piece[a - H]];
    cut_capacity(graph, bandwidths, cut);
    bounder.consider(cut);
  }
  return bounder.finish();
}

}  // namespace phasecheck::verify
