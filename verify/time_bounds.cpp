// Lower bounds in seconds from a graph's bandwidths (verify/time_bounds.hpp; proofs in
// docs/bounds.md, "Bounds in seconds").

#include "verify/time_bounds.hpp"

#include <algorithm>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/biconnected_components.hpp>  // also articulation_points
#include <boost/graph/connected_components.hpp>
#include <boost/graph/filtered_graph.hpp>

#include "core/table.hpp"

namespace phasecheck::verify {
namespace {

using RouterGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                          boost::property<boost::edge_index_t, std::size_t>>;

/// One cut: what it is, side A's hosts, the cut's bandwidth each way (0 when a link that way has
/// no known bandwidth) and, for an alltoallv, the bytes of the messages from A to B and back.
struct Cut {
  std::string name, side_a;
  Rank hosts_a = 0;
  double a_to_b = 0, b_to_a = 0;
  double bytes_a_to_b = 0, bytes_b_to_a = 0;
};

/// Keeps the strongest cut.
class Bounder {
 public:
  Bounder(Rank p, Collective c, double m, const Traffic* t)
      : p_(p), collective_(c), m_(m), traffic_(t) {}

  void consider(const Cut& cut) {
    if (cut.hosts_a == 0 || cut.hosts_a == p_) return;
    for (const bool outward : {true, false}) {
      const double bytes = must_cross(cut, outward);
      const double capacity = outward ? cut.a_to_b : cut.b_to_a;
      ++bound_.cuts;
      if (capacity <= 0) {
        ++bound_.unusable;
        continue;
      }
      const double seconds = bytes / capacity;
      if (seconds <= bound_.seconds) continue;
      bound_.seconds = seconds;
      bound_.argument = cut.name + " (hosts " + std::to_string(cut.hosts_a) + " | " +
                        std::to_string(p_ - cut.hosts_a) + "): " + demand(bytes) +
                        " must cross it " + (outward ? "from " : "into ") + cut.side_a + " at " +
                        figure(capacity) + " bytes/s";
    }
  }

  TimeBound finish() {
    if (traffic_) {
      double total = 0;
      for (Rank s = 0; s < p_; ++s) total += double(sent_bytes(*traffic_, s));
      bound_.bytes = total;
    } else {
      bound_.bytes = double(p_) * double(p_ - 1) * m_;
    }
    return bound_;
  }

 private:
  /// The bytes that must cross the cut from A to B (outward) or from B to A.
  double must_cross(const Cut& cut, bool outward) const {
    if (traffic_) return outward ? cut.bytes_a_to_b : cut.bytes_b_to_a;
    const double a = cut.hosts_a, b = double(p_) - a;
    switch (collective_) {
      case Collective::alltoall:  // every block [o, d] with o and d on different sides
        return a * b * m_;
      case Collective::allgather:  // every block of a side, needed on the other at least once
        return (outward ? a : b) * m_;
    }
    return 0;
  }

  /// "7 blocks of m bytes" (m = 1: the bound per byte), "7 blocks of 1024 bytes", "7340 bytes".
  std::string demand(double bytes) const {
    if (traffic_) return figure(bytes) + " bytes";
    const double blocks = m_ > 0 ? bytes / m_ : 0;
    return figure(blocks) + (blocks == 1 ? " block" : " blocks") + " of " +
           (m_ == 1 ? std::string("m") : figure(m_)) + " bytes";
  }

  Rank p_;
  Collective collective_;
  double m_;
  const Traffic* traffic_;
  TimeBound bound_;
};

/// An alltoallv's bytes per directed link when every message takes its route, and per router the
/// bytes its hosts send to and receive from other routers' hosts. A bridge carries exactly the
/// messages between its two sides (a route, a simple path, crosses it at most once, and every
/// path between the sides crosses it), so its load is what must cross it.
struct TrafficLoads {
  std::vector<double> link;                   // per directed link
  std::vector<double> router_out, router_in;  // per router
};

TrafficLoads traffic_loads(const Graph& g, const Traffic& t) {
  TrafficLoads loads{std::vector<double>(g.link_id_count(), 0),
                     std::vector<double>(g.router_count(), 0),
                     std::vector<double>(g.router_count(), 0)};
  for (Rank s = 0; s < g.ranks(); ++s)
    for (Rank d = 0; d < g.ranks(); ++d) {
      const double bytes = double(t.bytes(s, d));
      if (bytes == 0 || s == d) continue;
      g.route(s, d, [&](LinkId l) { loads.link[l] += bytes; });
      if (g.router_of(s) == g.router_of(d)) continue;
      loads.router_out[g.router_of(s)] += bytes;
      loads.router_in[g.router_of(d)] += bytes;
    }
  return loads;
}

/// Per router, the summed bandwidth of its router links out of it and into it; 0 when one of
/// them that way has none (the cut is unusable that way).
struct RouterCapacity {
  std::vector<double> out, in;
};

RouterCapacity router_capacity(const Graph& g, std::span<const double> bw) {
  const Rank H = g.ranks();
  RouterCapacity c{std::vector<double>(g.router_count(), 0),
                   std::vector<double>(g.router_count(), 0)};
  std::vector<char> unknown_out(g.router_count(), 0), unknown_in(g.router_count(), 0);
  for (LinkId l = 2 * H; l < g.link_id_count(); ++l) {
    const auto [from, to] = g.link_ends(l);
    c.out[from - H] += bw[l];
    c.in[to - H] += bw[l];
    if (bw[l] <= 0) unknown_out[from - H] = unknown_in[to - H] = 1;
  }
  for (std::uint32_t r = 0; r < g.router_count(); ++r) {
    if (unknown_out[r]) c.out[r] = 0;
    if (unknown_in[r]) c.in[r] = 0;
  }
  return c;
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

/// Bridges: removing one splits the routers in two. The 2-edge-connected pieces (the graph
/// without its bridges) form a tree whose edges are the bridges; without bridge e, that tree
/// falls in two, and so do the routers.
void consider_bridges(const Graph& graph, const RouterGraph& rg, const std::vector<char>& bridge,
                      std::span<const double> bandwidths, const TrafficLoads* loads,
                      Bounder& bounder) {
  if (std::find(bridge.begin(), bridge.end(), 1) == bridge.end()) return;
  const Rank H = graph.ranks();
  const std::uint32_t R = graph.router_count();
  const std::size_t links = graph.links().size();
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
    const LinkId a_to_b = 2 * H + 2 * static_cast<LinkId>(e);  // its first end's side is A
    const auto [a, b] = graph.link_ends(a_to_b);
    // The bridge is the only link between its sides.
    Cut cut{"link " + graph.node_name(a) + " - " + graph.node_name(b),
            "the side of " + graph.node_name(a), 0, bandwidths[a_to_b], bandwidths[a_to_b + 1]};
    for (std::uint32_t r = 0; r < R; ++r)
      if (half[piece[r]] == half[piece[a - H]]) cut.hosts_a += graph.hosts()[r];
    if (loads) {
      cut.bytes_a_to_b = loads->link[a_to_b];
      cut.bytes_b_to_a = loads->link[a_to_b + 1];
    }
    bounder.consider(cut);
  }
}

/// The bytes of `t` from the hosts `inside` marks to the others, and back. From each side's row
/// and column sums less the bytes within the smaller side: O(smaller side^2), not O(p^2).
std::pair<double, double> crossing_bytes(const Traffic& t, const std::vector<char>& inside,
                                         const std::vector<double>& sent,
                                         const std::vector<double>& received) {
  std::vector<Rank> in, out;
  for (Rank h = 0; h < inside.size(); ++h) (inside[h] ? in : out).push_back(h);
  const std::vector<Rank>& small = in.size() <= out.size() ? in : out;
  double within = 0;  // the messages between two hosts of the smaller side
  for (const Rank s : small)
    for (const Rank d : small)
      if (s != d) within += double(t.bytes(s, d));
  double sent_small = 0, received_small = 0;
  for (const Rank h : small) {
    sent_small += sent[h];
    received_small += received[h];
  }
  // From the smaller side: its row sums less what stays inside; into it: its column sums less.
  const double leaving = sent_small - within, arriving = received_small - within;
  return &small == &in ? std::pair{leaving, arriving} : std::pair{arriving, leaving};
}

/// Articulation routers: removing router r splits the others into pieces, and a piece's only
/// links out are its links to r (a multi-node machine's nodes around its network switch, which
/// no single link separates when a node has several NICs). Each piece with hosts is a cut. For an
/// alltoallv the bytes that must cross come from the matrix, not from the routes: a route between
/// two hosts of one piece may leave it through r and come back (when that is shorter), and bytes
/// routed so need not cross a cut at all.
void consider_articulations(const Graph& graph, const RouterGraph& rg,
                            std::span<const double> bandwidths, const Traffic* traffic,
                            Bounder& bounder) {
  const Rank H = graph.ranks();
  const std::uint32_t R = graph.router_count();
  std::vector<double> sent, received;  // per host, an alltoallv's
  if (traffic)
    for (Rank h = 0; h < H; ++h) {
      sent.push_back(double(sent_bytes(*traffic, h)));
      received.push_back(double(received_bytes(*traffic, h)));
    }
  std::vector<std::size_t> cut_routers;
  boost::articulation_points(rg, std::back_inserter(cut_routers));
  std::sort(cut_routers.begin(), cut_routers.end());  // the same argument whatever Boost's order
  for (const std::size_t r : cut_routers) {
    std::vector<char> drop(graph.links().size(), 0);
    for (std::size_t e = 0; e < drop.size(); ++e) {
      const auto [a, b] = graph.link_ends(2 * H + 2 * static_cast<LinkId>(e));
      drop[e] = a - H == r || b - H == r;
    }
    const std::vector<int> piece = components_without(rg, drop);
    const int pieces = *std::max_element(piece.begin(), piece.end()) + 1;
    struct Side {
      Rank hosts = 0;
      double out = 0, in = 0;
      bool unknown_out = false, unknown_in = false;
      std::uint32_t first = 0;  // its first router, which names it
      bool named = false;
    };
    std::vector<Side> sides(static_cast<std::size_t>(pieces));
    for (std::uint32_t x = 0; x < R; ++x) {
      if (x == r) continue;
      Side& side = sides[static_cast<std::size_t>(piece[x])];
      side.hosts += graph.hosts()[x];
      if (!side.named) side.first = x, side.named = true;
    }
    for (std::size_t e = 0; e < drop.size(); ++e) {
      if (!drop[e]) continue;
      const LinkId forward = 2 * H + 2 * static_cast<LinkId>(e);
      for (const LinkId l : {forward, forward + 1}) {
        const auto [from, to] = graph.link_ends(l);
        const bool outward = to - H == r;  // from the piece into r
        Side& side = sides[static_cast<std::size_t>(piece[(outward ? from : to) - H])];
        (outward ? side.out : side.in) += bandwidths[l];
        if (bandwidths[l] <= 0) (outward ? side.unknown_out : side.unknown_in) = true;
      }
    }
    for (std::size_t i = 0; i < sides.size(); ++i) {
      const Side& side = sides[i];
      if (side.hosts == 0) continue;
      const std::string& name = graph.routers()[side.first];
      Cut cut{"the links from " + name + "'s side to " + graph.routers()[r], name + "'s side",
              side.hosts, side.unknown_out ? 0 : side.out, side.unknown_in ? 0 : side.in};
      if (traffic) {
        std::vector<char> inside(H, 0);
        for (Rank h = 0; h < H; ++h)
          inside[h] = graph.router_of(h) != r && piece[graph.router_of(h)] == int(i);
        const auto crossing = crossing_bytes(*traffic, inside, sent, received);
        cut.bytes_a_to_b = crossing.first;
        cut.bytes_b_to_a = crossing.second;
      }
      bounder.consider(cut);
    }
  }
}

}  // namespace

std::vector<double> directed_bandwidths(const Graph& graph, double every_link) {
  std::vector<double> bw(graph.link_id_count());
  // "Every link B" is every physical link: a bundle of c links, or a host's c ports, carries c B.
  for (LinkId l = 0; l < bw.size(); ++l)
    bw[l] = every_link > 0 ? every_link * graph.capacity(l) : graph.bandwidth(l);
  return bw;
}

bool has_bandwidths(const Graph& graph) {
  for (LinkId l = 0; l < graph.link_id_count(); ++l)
    if (graph.bandwidth(l) > 0) return true;
  return false;
}

TimeBound time_lower_bound(const Graph& graph, std::span<const double> bandwidths,
                           Collective collective, double block_bytes, const Traffic* traffic) {
  Bounder bounder(graph.ranks(), collective, block_bytes, traffic);
  const Rank H = graph.ranks();
  const std::uint32_t R = graph.router_count();
  const TrafficLoads loads = traffic ? traffic_loads(graph, *traffic) : TrafficLoads{};
  const RouterCapacity capacity = router_capacity(graph, bandwidths);

  // Each host's own link: everything it sends leaves through it, everything it needs arrives.
  for (Rank h = 0; h < H; ++h) {
    Cut cut{"host " + std::to_string(h) + "'s link into " + graph.routers()[graph.router_of(h)],
            "host " + std::to_string(h), 1, bandwidths[2 * h], bandwidths[2 * h + 1]};
    if (traffic) {
      cut.bytes_a_to_b = double(sent_bytes(*traffic, h));
      cut.bytes_b_to_a = double(received_bytes(*traffic, h));
    }
    bounder.consider(cut);
  }

  // The router links of one router: its hosts against the rest.
  for (std::uint32_t r = 0; r < R; ++r) {
    if (graph.hosts()[r] == 0) continue;
    Cut cut{graph.routers()[r] + "'s router links", graph.routers()[r] + "'s hosts",
            graph.hosts()[r], capacity.out[r], capacity.in[r]};
    if (traffic) {
      cut.bytes_a_to_b = loads.router_out[r];
      cut.bytes_b_to_a = loads.router_in[r];
    }
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
  consider_bridges(graph, rg, bridge, bandwidths, traffic ? &loads : nullptr, bounder);
  consider_articulations(graph, rg, bandwidths, traffic, bounder);
  return bounder.finish();
}

}  // namespace phasecheck::verify
