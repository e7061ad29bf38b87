#include "core/topology.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/connected_components.hpp>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <type_traits>

#include "core/error.hpp"
#include "core/overloaded.hpp"

namespace phasecheck {
namespace {

using UndirectedGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

}  // namespace

Tree::Tree(std::vector<std::string> machines, std::vector<std::string> switches,
           std::vector<NamedLink> links)
    : machines_(std::move(machines)), switches_(std::move(switches)), links_(std::move(links)) {
  if (machines_.empty()) throw InputError("tree: needs at least one machine");
  if (machines_.size() > kMaxRanks)
    throw InputError("tree: " + std::to_string(machines_.size()) + " machines; at most " +
                     std::to_string(kMaxRanks) + " are supported");
  if (switches_.size() > kMaxSwitches)
    throw InputError("tree: " + std::to_string(switches_.size()) + " switches; at most " +
                     std::to_string(kMaxSwitches) + " are supported");

  std::map<std::string, NodeId, std::less<>> id;
  const auto add_node = [&](const std::string& name, NodeId n, const char* what) {
    if (name.empty()) throw InputError(std::string("tree: a ") + what + " has an empty name");
    if (!id.emplace(name, n).second)
      throw InputError("tree: the name '" + name + "' is used twice");
  };
  for (NodeId i = 0; i < machines_.size(); ++i) add_node(machines_[i], i, "machine");
  for (std::size_t i = 0; i < switches_.size(); ++i)
    add_node(switches_[i], static_cast<NodeId>(machines_.size() + i), "switch");
  const auto n = static_cast<NodeId>(id.size());

  UndirectedGraph g(n);
  std::set<std::pair<NodeId, NodeId>> seen;
  for (const auto& [a, b] : links_) {
    const auto ia = id.find(a), ib = id.find(b);
    if (ia == id.end() || ib == id.end())
      throw InputError("tree: link [" + a + ", " + b + "] names the unknown node '" +
                       (ia == id.end() ? a : b) + "'");
    if (ia->second == ib->second) throw InputError("tree: link [" + a + ", " + b + "] is a loop");
    const auto key = std::minmax(ia->second, ib->second);
    if (!seen.insert(key).second)
      throw InputError("tree: link [" + a + ", " + b + "] is listed twice");
    boost::add_edge(ia->second, ib->second, g);
  }

  std::vector<int> component(n);
  const int components = boost::connected_components(g, component.data());
  if (components > 1) {
    const auto far =
        std::find_if(component.begin(), component.end(), [&](int c) { return c != component[0]; });
    throw InputError("tree: not connected ('" +
                     node_name(static_cast<NodeId>(far - component.begin())) + "' cannot reach '" +
                     node_name(0) + "')");
  }
  if (boost::num_edges(g) != n - 1)
    throw InputError("tree: has a cycle (" + std::to_string(boost::num_edges(g)) + " links for " +
                     std::to_string(n) + " nodes; a tree has " + std::to_string(n - 1) + ")");
  if (n > 1)
    for (NodeId m = 0; m < machines_.size(); ++m)
      if (boost::out_degree(m, g) != 1)
        throw InputError("tree: machine '" + machines_[m] + "' has " +
                         std::to_string(boost::out_degree(m, g)) +
                         " links; machines must be leaves");

  // Root the tree at the first switch (or the only machine) and record parents and depths by BFS.
  const NodeId root = switches_.empty() ? 0 : static_cast<NodeId>(machines_.size());
  parent_.assign(n, root);
  std::vector<std::size_t> distance(n, 0);
  boost::breadth_first_search(
      g, boost::vertex(root, g),
      boost::visitor(boost::make_bfs_visitor(
          std::make_pair(boost::record_predecessors(parent_.data(), boost::on_tree_edge()),
                         boost::record_distances(distance.data(), boost::on_tree_edge())))));
  depth_.assign(distance.begin(), distance.end());
  if (const auto deepest = *std::max_element(distance.begin(), distance.end());
      deepest > kMaxTreeDepth)
    throw InputError("tree: " + std::to_string(deepest) + " levels below '" + node_name(root) +
                     "'; at most " + std::to_string(kMaxTreeDepth) + " are supported");

  // Machines below each node: accumulate from the deepest nodes up.
  std::vector<NodeId> order(n);
  for (NodeId i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](NodeId a, NodeId b) { return depth_[a] > depth_[b]; });
  below_.assign(n, 0);
  for (NodeId m = 0; m < machines_.size(); ++m) below_[m] = 1;
  for (NodeId v : order)
    if (v != root) below_[parent_[v]] += below_[v];
}

std::vector<Tree::Cut> Tree::cuts() const {
  std::vector<Cut> result;
  for (NodeId v = 0; v < node_count(); ++v)
    if (parent_[v] != v) result.push_back({v, parent_[v], below_[v], ranks() - below_[v]});
  return result;
}

Tree::Cut Tree::bottleneck() const {
  Cut worst{};
  std::uint64_t load = 0;
  for (const Cut& c : cuts())
    if (std::uint64_t{c.machines_a} * c.machines_b > load) {
      load = std::uint64_t{c.machines_a} * c.machines_b;
      worst = c;
    }
  return worst;
}

Cluster::Cluster(std::vector<Rank> node_sizes) : sizes_(std::move(node_sizes)) {
  if (sizes_.empty()) throw InputError("cluster: needs at least one node");
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < sizes_.size(); ++i) {
    if (sizes_[i] == 0) throw InputError("cluster: node " + std::to_string(i) + " has size 0");
    total += sizes_[i];
    if (total > kMaxRanks)
      throw InputError("cluster: more than " + std::to_string(kMaxRanks) + " ranks in all");
  }
  for (std::uint32_t node = 0; node < sizes_.size(); ++node) {
    first_.push_back(static_cast<Rank>(node_of_.size()));
    node_of_.insert(node_of_.end(), sizes_[node], node);
  }
}

FullyConnected::FullyConnected(Rank ranks_, Rank ports_) : ranks(ranks_), ports(ports_) {
  if (ranks < 1 || ranks > kMaxRanks)
    throw InputError("fully-connected: ranks must be in [1, " + std::to_string(kMaxRanks) +
                     "], not " + std::to_string(ranks));
  if (ports < 1) throw InputError("fully-connected: ports must be at least 1");
}

Hypercube::Hypercube(unsigned dimension_) : dimension(dimension_) {
  if (dimension > static_cast<unsigned>(std::bit_width(kMaxRanks) - 1))
    throw InputError("hypercube: dimension " + std::to_string(dimension) +
                     " is too large (at most " + std::to_string(std::bit_width(kMaxRanks) - 1) +
                     ")");
}

Mesh::Mesh(std::uint32_t rows_, std::uint32_t cols_, bool wraparound_)
    : rows(rows_), cols(cols_), wraparound(wraparound_) {
  if (rows < 1 || cols < 1) throw InputError("mesh: rows and cols must be at least 1");
  if (std::uint64_t{rows} * cols > kMaxRanks)
    throw InputError("mesh: " + std::to_string(rows) + " x " + std::to_string(cols) +
                     " is more than " + std::to_string(kMaxRanks) + " ranks");
}

std::pair<NodeId, NodeId> Mesh::link_ends(LinkId l) const {
  const NodeId n = l / 4;
  std::uint32_t r = n / cols, c = n % cols;
  switch (l % 4) {
    case 0:
      c = step(c, cols, true);
      break;
    case 1:
      c = step(c, cols, false);
      break;
    case 2:
      r = step(r, rows, true);
      break;
    default:
      r = step(r, rows, false);
      break;
  }
  return {n, r * cols + c};
}

Ring::Ring(Rank ranks_) : ranks(ranks_) {
  if (ranks < 1 || ranks > kMaxRanks)
    throw InputError("ring: ranks must be in [1, " + std::to_string(kMaxRanks) + "], not " +
                     std::to_string(ranks));
}

Graph::Graph(std::vector<std::string> routers, std::vector<NamedLink> links,
             std::vector<Rank> hosts, std::vector<std::uint32_t> capacities,
             std::vector<std::uint32_t> host_ports, LinkFacts facts)
    : routers_(std::move(routers)),
      links_(std::move(links)),
      hosts_(std::move(hosts)),
      capacities_(std::move(capacities)),
      host_ports_(std::move(host_ports)),
      facts_(std::move(facts)) {
  const std::size_t R = routers_.size();
  if (R == 0) throw InputError("graph: needs at least one router");
  if (R > kMaxRouters)
    throw InputError("graph: " + std::to_string(R) + " routers; at most " +
                     std::to_string(kMaxRouters) + " are supported");
  if (hosts_.size() != R)
    throw InputError("graph: hosts gives " + std::to_string(hosts_.size()) + " counts for " +
                     std::to_string(R) + " routers");
  const auto capacity_list = [&](std::vector<std::uint32_t>& v, std::size_t n, const char* what,
                                 const char* per) {
    if (v.empty()) v.assign(n, 1);
    if (v.size() != n)
      throw InputError(std::string("graph: ") + what + " gives " + std::to_string(v.size()) +
                       " values for " + std::to_string(n) + " " + per);
    for (std::size_t i = 0; i < n; ++i)
      if (v[i] < 1 || v[i] > kMaxLinkCapacity)
        throw InputError(std::string("graph: ") + what + "[" + std::to_string(i) +
                         "] = " + std::to_string(v[i]) + "; expected 1 to " +
                         std::to_string(kMaxLinkCapacity));
    unit_capacity_ =
        unit_capacity_ && std::all_of(v.begin(), v.end(), [](auto c) { return c == 1; });
  };
  capacity_list(capacities_, links_.size(), "link capacities", "links");
  capacity_list(host_ports_, R, "host_ports", "routers");
  const auto sized = [](std::size_t given, std::size_t n, const char* what, const char* per) {
    if (given != 0 && given != n)
      throw InputError(std::string("graph: ") + what + " gives " + std::to_string(given) +
                       " values for " + std::to_string(n) + " " + per);
  };
  const auto bandwidth_list = [&](const std::vector<double>& v, std::size_t n, const char* what,
                                  const char* per) {
    sized(v.size(), n, what, per);
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!(v[i] >= 0 && v[i] <= kMaxBandwidth))  // also refuses NaN
        throw InputError(std::string("graph: ") + what + "[" + std::to_string(i) +
                         "] is not a bandwidth in [0, 1e15] bytes per second");
  };
  bandwidth_list(facts_.bandwidths, links_.size(), "bandwidths", "links");
  bandwidth_list(facts_.host_bandwidths, R, "host_bandwidths", "routers");
  sized(facts_.labels.size(), links_.size(), "labels", "links");
  for (std::size_t i = 0; i < facts_.labels.size(); ++i)
    if (facts_.labels[i].size() > kMaxLinkLabel)
      throw InputError("graph: labels[" + std::to_string(i) + "] is longer than " +
                       std::to_string(kMaxLinkLabel) + " bytes");
  std::map<std::string, std::uint32_t, std::less<>> index;
  for (std::uint32_t r = 0; r < R; ++r) {
    if (routers_[r].empty()) throw InputError("graph: a router has an empty name");
    if (!index.emplace(routers_[r], r).second)
      throw InputError("graph: the router name '" + routers_[r] + "' is used twice");
  }
  std::uint64_t total = 0;
  for (std::uint32_t r = 0; r < R; ++r) {
    total += hosts_[r];
    if (total > kMaxRanks)
      throw InputError("graph: more than " + std::to_string(kMaxRanks) + " hosts in all");
    for (Rank h = 0; h < hosts_[r]; ++h) router_of_.push_back(r);
  }
  if (total == 0) throw InputError("graph: no hosts");
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  G g(R);
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  degree_.assign(R, 0);
  std::vector<std::vector<std::pair<std::uint32_t, LinkId>>> out(R);  // (neighbour, link)
  for (const auto& [a, b] : links_) {
    const auto ia = index.find(a), ib = index.find(b);
    if (ia == index.end() || ib == index.end())
      throw InputError("graph: link [" + a + ", " + b + "] names the unknown router '" +
                       (ia == index.end() ? a : b) + "'");
    if (ia->second == ib->second) throw InputError("graph: link [" + a + ", " + b + "] is a loop");
    if (!seen.insert(std::minmax(ia->second, ib->second)).second)
      throw InputError("graph: link [" + a + ", " + b + "] is listed twice");
    const auto e = static_cast<LinkId>(edges_.size());
    edges_.push_back({ia->second, ib->second});
    boost::add_edge(ia->second, ib->second, g);
    ++degree_[ia->second];
    ++degree_[ib->second];
    out[ia->second].push_back({ib->second, 2 * ranks() + 2 * e});
    out[ib->second].push_back({ia->second, 2 * ranks() + 2 * e + 1});
  }
  for (auto& o : out) std::sort(o.begin(), o.end());
  // Distances to every router by breadth-first search (Boost.Graph); the next hop is the smallest
  // neighbour one hop closer.
  constexpr std::uint32_t kFar = UINT32_MAX;
  dist_.assign(R * R, kFar);
  next_.assign(R * R, 0);
  hop_.assign(R * R, 0);
  std::vector<std::size_t> d(R);
  for (std::uint32_t to = 0; to < R; ++to) {
    std::fill(d.begin(), d.end(), 0);
    std::vector<boost::default_color_type> color(R);
    boost::breadth_first_search(g, boost::vertex(to, g),
                                boost::visitor(boost::make_bfs_visitor(boost::record_distances(
                                                   d.data(), boost::on_tree_edge())))
                                    .color_map(boost::make_iterator_property_map(
                                        color.begin(), boost::get(boost::vertex_index, g))));
    for (std::uint32_t at = 0; at < R; ++at)
      if (at == to || d[at] > 0) dist_[to * R + at] = static_cast<std::uint32_t>(d[at]);
    for (std::uint32_t at = 0; at < R; ++at) {
      if (at == to || dist_[to * R + at] == kFar) continue;
      for (const auto& [w, link] : out[at])
        if (dist_[to * R + w] + 1 == dist_[to * R + at]) {
          next_[to * R + at] = w;
          hop_[to * R + at] = link;
          break;
        }
    }
  }
  for (std::uint32_t a = 0; a < R; ++a)
    for (std::uint32_t b = 0; b < R; ++b)
      if (hosts_[a] > 0 && hosts_[b] > 0 && dist_[b * R + a] == kFar)
        throw InputError("graph: not connected (router '" + routers_[a] + "' cannot reach '" +
                         routers_[b] + "')");
}

std::pair<NodeId, NodeId> Graph::link_ends(LinkId l) const {
  const Rank H = ranks();
  if (l < 2 * H) {
    const Rank h = l / 2;
    const NodeId router = H + router_of_[h];
    return l % 2 == 0 ? std::pair{h, router} : std::pair{router, h};
  }
  const auto& e = edges_[(l - 2 * H) / 2];
  return l % 2 == 0 ? std::pair<NodeId, NodeId>{H + e[0], H + e[1]}
                    : std::pair<NodeId, NodeId>{H + e[1], H + e[0]};
}

std::string Graph::node_name(NodeId n) const {
  return n < ranks() ? "h" + std::to_string(n) : routers_[n - ranks()];
}

Rank ranks(const Topology& t) {
  return std::visit(
      Overloaded{
          [](const Tree& x) { return x.ranks(); }, [](const Cluster& x) { return x.ranks(); },
          [](const FullyConnected& x) { return x.ranks; },
          [](const Hypercube& x) { return x.ranks(); }, [](const Mesh& x) { return x.ranks(); },
          [](const Ring& x) { return x.ranks; }, [](const Graph& x) { return x.ranks(); }},
      t);
}

std::string kind(const Topology& t) {
  // Each alternative names itself: a new kind without kind_name does not compile.
  return std::visit(
      [](const auto& x) { return std::string(std::decay_t<decltype(x)>::kind_name); }, t);
}

std::string describe(const Topology& t) {
  std::ostringstream os;
  std::visit(
      Overloaded{[&](const Tree& x) {
                   os << "tree(machines=" << x.ranks() << ", switches=" << x.switches().size()
                      << ")";
                 },
                 [&](const Cluster& x) {
                   // Long size vectors are summarised, so that a report's first line stays
                   // short.
                   const auto& sizes = x.node_sizes();
                   if (sizes.size() <= 12) {
                     os << "cluster(sizes=";
                     for (std::size_t i = 0; i < sizes.size(); ++i)
                       os << (i ? "," : "") << sizes[i];
                     os << ")";
                   } else {
                     const auto [lo, hi] = std::minmax_element(sizes.begin(), sizes.end());
                     os << "cluster(nodes=" << sizes.size() << ", ranks=" << x.ranks() << ", sizes "
                        << *lo << "-" << *hi << ")";
                   }
                 },
                 [&](const FullyConnected& x) {
                   os << "fully-connected(p=" << x.ranks << ", k=" << x.ports << ")";
                 },
                 [&](const Hypercube& x) { os << "hypercube(d=" << x.dimension << ")"; },
                 [&](const Mesh& x) {
                   os << (x.wraparound ? "torus(" : "mesh(") << x.rows << "x" << x.cols << ")";
                 },
                 [&](const Ring& x) { os << "ring(p=" << x.ranks << ")"; },
                 [&](const Graph& x) {
                   os << "graph(routers=" << x.router_count() << ", hosts=" << x.ranks();
                   if (!x.unit_capacity()) {
                     const auto& c = x.capacities();
                     const auto& h = x.host_ports();
                     const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
                     const auto [hlo, hhi] = std::minmax_element(h.begin(), h.end());
                     const auto range = [&](auto a, auto b) {
                       return std::to_string(*a) + (*a == *b ? "" : "-" + std::to_string(*b));
                     };
                     if (!c.empty() && *hi > 1) os << ", links x" << range(lo, hi);
                     if (*hhi > 1) os << ", host ports " << range(hlo, hhi);
                   }
                   os << ")";
                 }},
      t);
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Topology& t) { return os << describe(t); }

std::string node_name(const Topology& t, NodeId n) {
  if (const auto* tree = std::get_if<Tree>(&t)) return tree->node_name(n);
  if (const auto* graph = std::get_if<Graph>(&t)) return graph->node_name(n);
  if (std::holds_alternative<Cluster>(t)) return "node " + std::to_string(n);
  return std::to_string(n);
}

std::string link_name(const Topology& t, LinkId l) {
  const auto ends =
      std::visit(Overloaded{[&](const Cluster&) { return std::pair<NodeId, NodeId>{}; },
                            [&](const FullyConnected&) { return std::pair<NodeId, NodeId>{}; },
                            [&](const auto& routed) { return routed.link_ends(l); }},
                 t);
  std::string name = node_name(t, ends.first) + " -> " + node_name(t, ends.second);
  if (const auto* graph = std::get_if<Graph>(&t); graph && !graph->label(l).empty())
    name += " (" + std::string(graph->label(l)) + ")";
  return name;
}

std::uint32_t link_capacity(const Topology& t, LinkId l) {
  const auto* graph = std::get_if<Graph>(&t);
  return graph ? graph->capacity(l) : 1;
}

std::vector<NodeId> route_nodes(const Topology& t, Rank src, Rank dst) {
  if (const auto* cluster = std::get_if<Cluster>(&t)) {
    const NodeId a = cluster->node_of(src), b = cluster->node_of(dst);
    return a == b ? std::vector<NodeId>{a} : std::vector<NodeId>{a, b};
  }
  std::vector<NodeId> nodes{src};
  if (src == dst) return nodes;
  std::visit(
      Overloaded{[&](const Cluster&) {}, [&](const FullyConnected&) { nodes.push_back(dst); },
                 [&](const Tree& tree) {
                   // Ascending links come out in path order; descending ones in reverse.
                   std::vector<NodeId> down;
                   tree.route(src, dst, [&](LinkId l) {
                     const auto [from, to] = tree.link_ends(l);
                     if (l % 2 == 0)
                       nodes.push_back(to);
                     else
                       down.push_back(to);
                   });
                   nodes.insert(nodes.end(), down.rbegin(), down.rend());
                 },
                 [&](const auto& routed) {
                   routed.route(src, dst,
                                [&](LinkId l) { nodes.push_back(routed.link_ends(l).second); });
                 }},
      t);
  return nodes;
}

bool for_each_link(const Topology& t, Rank src, Rank dst,
                   const std::function<void(LinkId)>& visit) {
  // Port models have no links; every other kind routes (a kind without route() does not compile).
  return std::visit(Overloaded{[](const Cluster&) { return false; },
                               [](const FullyConnected&) { return false; },
                               [&](const auto& routed) {
                                 routed.route(src, dst, visit);
                                 return true;
                               }},
                    t);
}

}  // namespace phasecheck
