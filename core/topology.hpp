#pragma once
/// Machine models. Each is a plain value, validated once when it is built (InputError names the
/// problem), and knows its ranks. The routed models (tree, hypercube, mesh, ring) route every
/// message along one deterministic path of directed links; contention is a directed link used
/// twice in a phase. The port models (cluster, fully-connected) limit what each node or rank may
/// do in one phase. docs/models.md states each rule precisely.
///
/// Routing is a template so that the contention checker's inner loop inlines it; it only touches
/// small flat arrays (no Boost types in this header).

#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace phasecheck {

using Rank = std::uint32_t;
/// Directed link of a routed model; ids are dense in [0, link_id_count()).
using LinkId = std::uint32_t;
using NodeId = std::uint32_t;

/// The largest rank count any model accepts (2^20). What a command may do with that many ranks is
/// bounded by memory, checked before the work (core/limits.hpp): the streaming checkers keep
/// state per rank and link, not per pair (docs/performance.md, "What each checker keeps"); the
/// commands that do keep per-pair state (buffer programs, Z3, simulations) refuse earlier.
inline constexpr Rank kMaxRanks = Rank{1} << 20;
/// Switches in a tree, and any other count a file may give, are capped to keep hostile files from
/// allocating without bound.
inline constexpr std::uint32_t kMaxSwitches = 1u << 20;
/// Levels below a tree's root. A route has at most twice this many hops, which bounds the work per
/// transfer of the contention check (a chain of a million switches would make it hang).
inline constexpr std::uint32_t kMaxTreeDepth = 1024;

/// Switched Ethernet as in Faraj–Yuan: machines are leaves, switches inner nodes, every link full
/// duplex (two directed links). Rank i is machines()[i]. Nodes: machines 0..M-1, then switches.
class Tree {
 public:
  /// The kind's name in files and messages: kind() reads it.
  static constexpr std::string_view kind_name = "tree";
  using NamedLink = std::array<std::string, 2>;

  /// Throws InputError unless: at least one machine; names non-empty and unique; every link joins
  /// two known, distinct nodes and is listed once; the graph is connected and acyclic; every
  /// machine is a leaf.
  Tree(std::vector<std::string> machines, std::vector<std::string> switches,
       std::vector<NamedLink> links);

  Rank ranks() const { return static_cast<Rank>(machines_.size()); }
  const std::vector<std::string>& machines() const { return machines_; }
  const std::vector<std::string>& switches() const { return switches_; }
  const std::vector<NamedLink>& links() const { return links_; }

  std::uint32_t node_count() const { return static_cast<std::uint32_t>(parent_.size()); }
  /// A node's parent (the root's is itself) and its level below the root (the root's is 0): the
  /// walk route() takes, for a checker that keeps its own copy beside its per-link state.
  NodeId parent(NodeId n) const { return parent_[n]; }
  std::uint32_t depth(NodeId n) const { return depth_[n]; }
  const std::string& node_name(NodeId n) const {
    return n < machines_.size() ? machines_[n] : switches_[n - machines_.size()];
  }
  /// Directed link ids: 2v is v -> parent(v), 2v+1 is parent(v) -> v (the root's are unused).
  LinkId link_id_count() const { return 2 * node_count(); }
  std::pair<NodeId, NodeId> link_ends(LinkId l) const {
    const NodeId v = l / 2;
    return (l % 2 == 0) ? std::pair{v, parent_[v]} : std::pair{parent_[v], v};
  }

  /// Calls visit(LinkId) once for each directed link on the unique path src -> dst, in no
  /// particular order (route_nodes() gives the path in order); O(path length).
  template <class Visit>
  void route(Rank src, Rank dst, Visit&& visit) const;
  /// route()'s walk over any copy of the parents and depths (parent(NodeId), depth(NodeId)), for
  /// a checker that keeps its own beside its per-link state: visit(n, down) for the link between
  /// node n and its parent, towards n when `down` (link 2n + down). route()'s links, in its order.
  template <class Parent, class Depth, class Visit>
  static void walk(NodeId src, NodeId dst, const Parent& parent, const Depth& depth, Visit&& visit);

  /// One entry per undirected link: the machines on each side once the link is cut.
  struct Cut {
    NodeId a = 0, b = 0;
    std::uint32_t machines_a = 0, machines_b = 0;
  };
  std::vector<Cut> cuts() const;
  /// The busiest link of an all-to-all (Faraj & Yuan, Section 3): the cut with the largest
  /// |Mu| x |Mv|, the first of them in cuts() order; all zero without links. The one definition.
  Cut bottleneck() const;
  /// |Mu| x |Mv| of bottleneck(): the messages that cross it each way in an all-to-all.
  std::uint64_t bottleneck_load() const {
    const Cut c = bottleneck();
    return std::uint64_t{c.machines_a} * c.machines_b;
  }
  /// |M| (|M| - 1) / (|Mu| |Mv|): an all-to-all moves at most this many times a link's bandwidth
  /// in aggregate, since the bottleneck carries |Mu| |Mv| of its |M| (|M| - 1) messages each way
  /// (Faraj & Yuan, Section 3). 0 without links.
  double peak_throughput_factor() const {
    const double m = ranks(), load = double(bottleneck_load());
    return load > 0 ? m * (m - 1) / load : 0;
  }

  friend bool operator==(const Tree& x, const Tree& y) {
    return x.machines_ == y.machines_ && x.switches_ == y.switches_ && x.links_ == y.links_;
  }

 private:
  std::vector<std::string> machines_, switches_;
  std::vector<NamedLink> links_;
  std::vector<NodeId> parent_;  // root's parent is itself
  std::vector<std::uint32_t> depth_;
  std::vector<std::uint32_t> below_;  // machines in the subtree under each node
};

/// SMP nodes of the given sizes, single-ported as in Sanders–Träff. Ranks are numbered node by
/// node: node 0 holds ranks 0..size0-1, and so on.
class Cluster {
 public:
  /// The kind's name in files and messages: kind() reads it.
  static constexpr std::string_view kind_name = "cluster";
  /// Throws InputError unless there is at least one node, every size is >= 1, and the total is
  /// at most kMaxRanks.
  explicit Cluster(std::vector<Rank> node_sizes);
  Rank ranks() const { return static_cast<Rank>(node_of_.size()); }
  const std::vector<Rank>& node_sizes() const { return sizes_; }
  std::uint32_t node_count() const { return static_cast<std::uint32_t>(sizes_.size()); }
  std::uint32_t node_of(Rank r) const { return node_of_[r]; }
  Rank first_rank(std::uint32_t node) const { return first_[node]; }
  friend bool operator==(const Cluster& x, const Cluster& y) { return x.sizes_ == y.sizes_; }

 private:
  std::vector<Rank> sizes_;
  std::vector<std::uint32_t> node_of_;
  std::vector<Rank> first_;
};

/// Bruck et al.'s k-port model: per phase every rank sends at most k and receives at most k
/// transfers.
struct FullyConnected {
  /// The kind's name in files and messages: kind() reads it.
  static constexpr std::string_view kind_name = "fully-connected";
  /// Throws InputError unless 1 <= ranks <= kMaxRanks and ports >= 1.
  FullyConnected(Rank ranks, Rank ports);
  Rank ranks = 1;
  Rank ports = 1;
  friend bool operator==(const FullyConnected&, const FullyConnected&) = default;
};

/// A d-dimensional hypercube with e-cube routing: differing address bits are corrected from the
/// least significant up. Link id = node * d + dimension.
struct Hypercube {
  /// The kind's name in files and messages: kind() reads it.
  static constexpr std::string_view kind_name = "hypercube";
  /// Throws InputError unless 2^dimension <= kMaxRanks.
  explicit Hypercube(unsigned dimension);
  unsigned dimension = 0;
  Rank ranks() const { return Rank{1} << dimension; }
  LinkId link_id_count() const { return ranks() * dimension; }
  std::pair<NodeId, NodeId> link_ends(LinkId l) const {
    const NodeId n = l / dimension;
    return {n, n ^ (NodeId{1} << (l % dimension))};
  }
  template <class Visit>
  void route(Rank src, Rank dst, Visit&& visit) const {
    Rank cur = src;
    for (Rank diff = src ^ dst; diff != 0; diff &= diff - 1) {
      const unsigned bit = static_cast<unsigned>(std::countr_zero(diff));
      visit(cur * dimension + bit);
      cur ^= Rank{1} << bit;
    }
  }
  friend bool operator==(const Hypercube&, const Hypercube&) = default;
};

/// A rows x cols mesh (torus when wraparound) with XY routing: first along the row to the
/// destination column, then along the column. On a torus each dimension goes the shorter way
/// round; a tie goes in the + direction. Wraparound has no effect on a dimension of size <= 2.
/// Rank = row * cols + col. Link id = node * 4 + direction (0: col+1, 1: col-1, 2: row+1, 3:
/// row-1).
struct Mesh {
  /// The kind's name in files and messages: kind() reads it.
  static constexpr std::string_view kind_name = "mesh";
  /// Throws InputError unless rows, cols >= 1 and rows * cols <= kMaxRanks.
  Mesh(std::uint32_t rows, std::uint32_t cols, bool wraparound);
  std::uint32_t rows = 1, cols = 1;
  bool wraparound = false;
  Rank ranks() const { return rows * cols; }
  LinkId link_id_count() const { return ranks() * 4; }
  std::pair<NodeId, NodeId> link_ends(LinkId l) const;
  template <class Visit>
  void route(Rank src, Rank dst, Visit&& visit) const {
    std::uint32_t r = src / cols, c = src % cols;
    const std::uint32_t tr = dst / cols, tc = dst % cols;
    walk(c, tc, cols, [&](bool plus) {
      visit((r * cols + c) * 4 + (plus ? 0 : 1));
      c = step(c, cols, plus);
    });
    walk(r, tr, rows, [&](bool plus) {
      visit((r * cols + c) * 4 + (plus ? 2 : 3));
      r = step(r, rows, plus);
    });
  }
  friend bool operator==(const Mesh&, const Mesh&) = default;

 private:
  bool wraps(std::uint32_t size) const { return wraparound && size > 2; }
  static std::uint32_t step(std::uint32_t x, std::uint32_t size, bool plus) {
    return plus ? (x + 1 == size ? 0 : x + 1) : (x == 0 ? size - 1 : x - 1);
  }
  /// Calls move(plus) once per hop from `from` to `to` along a dimension of `size` positions.
  template <class Move>
  void walk(std::uint32_t from, std::uint32_t to, std::uint32_t size, Move&& move) const {
    if (from == to) return;
    std::uint32_t hops;
    bool plus;
    if (wraps(size)) {
      const std::uint32_t forward = (to + size - from) % size;
      plus = forward <= size - forward;
      hops = plus ? forward : size - forward;
    } else {
      plus = to > from;
      hops = plus ? to - from : from - to;
    }
    for (std::uint32_t i = 0; i < hops; ++i) move(plus);
  }
};

/// A bidirectional ring; messages go the shorter way round, a tie in the + direction.
/// Link id = node * 2 + (0: to node+1, 1: to node-1).
struct Ring {
  /// The kind's name in files and messages: kind() reads it.
  static constexpr std::string_view kind_name = "ring";
  /// Throws InputError unless 1 <= ranks <= kMaxRanks.
  explicit Ring(Rank ranks);
  Rank ranks = 1;
  LinkId link_id_count() const { return ranks * 2; }
  std::pair<NodeId, NodeId> link_ends(LinkId l) const {
    const NodeId n = l / 2;
    return {n, l % 2 == 0 ? (n + 1) % ranks : (n + ranks - 1) % ranks};
  }
  template <class Visit>
  void route(Rank src, Rank dst, Visit&& visit) const {
    const Rank forward = (dst + ranks - src) % ranks;
    const bool plus = forward <= ranks - forward;
    const Rank hops = plus ? forward : ranks - forward;
    Rank cur = src;
    for (Rank i = 0; i < hops; ++i) {
      visit(cur * 2 + (plus ? 0 : 1));
      cur = plus ? (cur + 1 == ranks ? 0 : cur + 1) : (cur == 0 ? ranks - 1 : cur - 1);
    }
  }
  friend bool operator==(const Ring&, const Ring&) = default;
};

/// Routers in a graph topology: the routing tables take 12 bytes per pair of routers.
inline constexpr std::uint32_t kMaxRouters = 2048;
/// The most parallel physical links between two routers, and the most ports of one host.
inline constexpr std::uint32_t kMaxLinkCapacity = 1024;

/// What a graph's links are, beyond the capacities the contention check counts: their bandwidths
/// (a machine imported from NCCL's topology file, docs/models.md) and what each link is. They
/// change no route and no contention verdict; the bounds in seconds and `cost` on the machine
/// read the bandwidths (verify/time_bounds.hpp), reports name links by their labels.
struct LinkFacts {
  /// Per router link as listed: the bytes per second the whole link (all its parallel physical
  /// links) carries in each direction; 0 where not known. Empty: none known.
  std::vector<double> bandwidths;
  /// Per router link as listed: what it is ("NVLink", "xGMI", "PCIe 4.0 x16", ...); empty where
  /// nothing is said. Empty: no labels.
  std::vector<std::string> labels;
  /// Per router: the bytes per second of the link of each of its hosts into it, each direction;
  /// 0 where not known. Empty: none known.
  std::vector<double> host_bandwidths;
  bool empty() const { return bandwidths.empty() && labels.empty() && host_bandwidths.empty(); }
  friend bool operator==(const LinkFacts&, const LinkFacts&) = default;
};

/// The longest label of a link a file may give (it is drawn and printed, never interpreted).
inline constexpr std::size_t kMaxLinkLabel = 256;
/// The largest bandwidth a link may have, in bytes per second (10^15: a petabyte per second).
inline constexpr double kMaxBandwidth = 1e15;

/// A low-diameter network (Slim Fly, Dragonfly, or any connected graph): routers joined by
/// full-duplex links, hosts attached to routers (the concentration), and minimal routing: the
/// shortest router path, at every hop to the smallest-numbered router that is one hop closer
/// (deterministic; no ECMP). Nodes: hosts 0..H-1 (host = rank, numbered router by router), then
/// the routers. Links: 2h host -> router, 2h+1 router -> host; 2H + 2e and 2H + 2e + 1 the two
/// directions of router link e as listed.
///
/// Capacities (GPU machines, docs/models.md): router link e may bundle capacities[e] parallel
/// physical links (two NVLinks between a pair of GPUs), and each host of router r may have
/// host_ports[r] ports into it (a GPU driving all its links at once). A directed link of
/// capacity c carries at most c transfers in one phase. Both default to 1 everywhere.
class Graph {
 public:
  /// The kind's name in files and messages: kind() reads it.
  static constexpr std::string_view kind_name = "graph";
  using NamedLink = std::array<std::string, 2>;
  /// Throws InputError unless: 1 to kMaxRouters uniquely named routers; links join two distinct
  /// known routers, each pair once; hosts[i] per router i, 1 to kMaxRanks in all; every router
  /// with hosts reachable from every other; `capacities` empty or one per link and `host_ports`
  /// empty or one per router, each in [1, kMaxLinkCapacity]; `facts`' lists empty or one per link
  /// (per router for host_bandwidths), bandwidths in [0, kMaxBandwidth], labels at most
  /// kMaxLinkLabel bytes.
  Graph(std::vector<std::string> routers, std::vector<NamedLink> links, std::vector<Rank> hosts,
        std::vector<std::uint32_t> capacities = {}, std::vector<std::uint32_t> host_ports = {},
        LinkFacts facts = {});

  Rank ranks() const { return static_cast<Rank>(router_of_.size()); }
  const std::vector<std::string>& routers() const { return routers_; }
  const std::vector<NamedLink>& links() const { return links_; }
  const std::vector<Rank>& hosts() const { return hosts_; }
  std::uint32_t router_of(Rank host) const { return router_of_[host]; }
  std::uint32_t router_count() const { return static_cast<std::uint32_t>(routers_.size()); }
  /// Hops between two routers on the minimal route.
  std::uint32_t distance(std::uint32_t a, std::uint32_t b) const {
    return dist_[std::size_t{b} * router_count() + a];
  }
  /// The number of router neighbours of router r.
  std::uint32_t degree(std::uint32_t r) const { return degree_[r]; }
  /// Per router link as listed: its parallel physical links (1 unless given).
  const std::vector<std::uint32_t>& capacities() const { return capacities_; }
  /// Per router: the ports of each of its hosts (1 unless given).
  const std::vector<std::uint32_t>& host_ports() const { return host_ports_; }
  /// Whether every link and host port has capacity 1 (the contention check's fast path).
  bool unit_capacity() const { return unit_capacity_; }
  /// Transfers directed link l carries at once.
  std::uint32_t capacity(LinkId l) const {
    return l < 2 * ranks() ? host_ports_[router_of_[l / 2]] : capacities_[(l - 2 * ranks()) / 2];
  }

  /// Bandwidths and labels (empty unless given).
  const LinkFacts& facts() const { return facts_; }
  /// Bytes per second directed link l carries (0: not known).
  double bandwidth(LinkId l) const {
    if (l < 2 * ranks())
      return facts_.host_bandwidths.empty() ? 0 : facts_.host_bandwidths[router_of_[l / 2]];
    return facts_.bandwidths.empty() ? 0 : facts_.bandwidths[(l - 2 * ranks()) / 2];
  }
  /// What directed link l is ("" for host links and where no label was given).
  std::string_view label(LinkId l) const {
    if (l < 2 * ranks() || facts_.labels.empty()) return {};
    return facts_.labels[(l - 2 * ranks()) / 2];
  }

  LinkId link_id_count() const { return 2 * ranks() + 2 * static_cast<LinkId>(edges_.size()); }
  std::pair<NodeId, NodeId> link_ends(LinkId l) const;
  std::string node_name(NodeId n) const;

  template <class Visit>
  void route(Rank src, Rank dst, Visit&& visit) const {
    visit(2 * src);
    const std::size_t R = router_count();
    std::uint32_t at = router_of_[src];
    const std::uint32_t to = router_of_[dst];
    while (at != to) {
      visit(hop_[to * R + at]);
      at = next_[to * R + at];
    }
    visit(2 * dst + 1);
  }
  friend bool operator==(const Graph& x, const Graph& y) {
    return x.routers_ == y.routers_ && x.links_ == y.links_ && x.hosts_ == y.hosts_ &&
           x.capacities_ == y.capacities_ && x.host_ports_ == y.host_ports_ && x.facts_ == y.facts_;
  }

 private:
  std::vector<std::string> routers_;
  std::vector<NamedLink> links_;
  std::vector<Rank> hosts_;
  std::vector<std::uint32_t> capacities_;  // per link
  std::vector<std::uint32_t> host_ports_;  // per router
  LinkFacts facts_;
  bool unit_capacity_ = true;
  std::vector<std::uint32_t> router_of_;             // per host
  std::vector<std::array<std::uint32_t, 2>> edges_;  // per link: the two routers
  std::vector<std::uint32_t> degree_;                // per router
  std::vector<std::uint32_t> next_, dist_;           // [to * R + at]
  std::vector<LinkId> hop_;                          // [to * R + at]: the link at -> next
};

using Topology = std::variant<Tree, Cluster, FullyConnected, Hypercube, Mesh, Ring, Graph>;

Rank ranks(const Topology& t);
/// The kind as written in topology files: "tree", "cluster", "fully-connected", ...
std::string kind(const Topology& t);
/// A short name that carries the parameters: "tree(machines=6, switches=4)", "hypercube(d=3)".
std::string describe(const Topology& t);
/// A node's printable name: the machine or switch name in a tree, "node 2" for an SMP node of a
/// cluster, the rank elsewhere.
std::string node_name(const Topology& t, NodeId n);
std::ostream& operator<<(std::ostream& os, const Topology& t);
/// The nodes on the routed path src -> dst, both ends included (for reports; not a hot path).
/// In a cluster the nodes are the SMP nodes of src and dst (one when they share it); in the
/// fully-connected model, which does not route, it is {src, dst}.
std::vector<NodeId> route_nodes(const Topology& t, Rank src, Rank dst);
/// Calls visit(LinkId) for each directed link of src -> dst on a routed model (tree, hypercube,
/// mesh, ring) and returns true; returns false for models that do not route. Through a
/// std::function: for checks over whole tables, not the contention checker's hot loop.
bool for_each_link(const Topology& t, Rank src, Rank dst, const std::function<void(LinkId)>& visit);
/// "a -> b" for a directed link of a routed model; "a -> b (label)" for a graph's labelled link.
std::string link_name(const Topology& t, LinkId l);
/// The transfers directed link l of a routed model carries in one phase: 1 except in graphs with
/// parallel links or multi-port hosts.
std::uint32_t link_capacity(const Topology& t, LinkId l);

template <class Parent, class Depth, class Visit>
void Tree::walk(NodeId src, NodeId dst, const Parent& parent, const Depth& depth, Visit&& visit) {
  NodeId u = src, v = dst;
  while (depth(u) > depth(v)) {
    visit(u, false);
    u = parent(u);
  }
  while (depth(v) > depth(u)) {
    visit(v, true);
    v = parent(v);
  }
  while (u != v) {
    visit(u, false);
    visit(v, true);
    u = parent(u);
    v = parent(v);
  }
}

template <class Visit>
void Tree::route(Rank src, Rank dst, Visit&& visit) const {
  const auto parent = [this](NodeId n) { return parent_[n]; };
  const auto depth = [this](NodeId n) { return depth_[n]; };
  walk(src, dst, parent, depth, [&visit](NodeId n, bool down) { visit(2 * n + (down ? 1 : 0)); });
}

}  // namespace phasecheck
