#include "verify/contention.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <variant>
#include <vector>

#include "core/overloaded.hpp"

namespace phasecheck::verify {
namespace {

struct Conflict {
  std::uint32_t first = 0, second = 0;  // transfer indices within the phase
  std::uint32_t resource = 0;           // link, node or rank
  /// A link's conflict knows only its second transfer: describe() finds the first.
  static Conflict on_link(std::uint32_t second, LinkId link) { return {kUnknown, second, link}; }
  static constexpr std::uint32_t kUnknown = std::numeric_limits<std::uint32_t>::max();
};

/// The first transfer of `phase` whose route uses link `l`: the one that took it before the
/// conflict's second (a route uses a link at most once).
std::uint32_t first_user(const Topology& model, const Phase& phase, LinkId l) {
  for (std::uint32_t i = 0; i < phase.size(); ++i) {
    if (phase[i].local()) continue;
    bool uses = false;
    for_each_link(model, phase[i].src, phase[i].dst, [&](LinkId k) { uses = uses || k == l; });
    if (uses) return i;
  }
  throw std::logic_error("contention: a conflict on a link no transfer uses");
}

OffendingTransfer offending(const Topology& model, const Phase& phase, std::uint32_t i) {
  const Transfer& t = phase[i];
  const auto blocks = phase.blocks(t);
  OffendingTransfer o{t.src, t.dst, {blocks.begin(), blocks.end()}, {}};
  for (NodeId n : route_nodes(model, t.src, t.dst)) o.route.push_back(node_name(model, n));
  return o;
}

std::string rank_range(const Cluster& c, std::uint32_t node) {
  const Rank first = c.first_rank(node), size = c.node_sizes()[node];
  return size == 1 ? "rank " + std::to_string(first)
                   : "ranks " + std::to_string(first) + "-" + std::to_string(first + size - 1);
}

/// Routed models: one stamp per directed link, the last phase that used it. A link of capacity c
/// (graphs with parallel links or multi-port hosts) takes c transfers per phase; the c + 1st is
/// the conflict. Models whose links all have capacity 1 never touch the counts. The stamps alone
/// (4 bytes a link; a tree's 8 bytes a node beside its parent and depth, 1 MiB for 65,536
/// machines) say whether a link is taken;
/// which transfer took it first is found again by routing the phase's earlier transfers, only
/// for the conflict that is drawn.
class LinkRule {
 public:
  explicit LinkRule(const Topology& model, LinkId links) {
    if (const auto* tree = std::get_if<Tree>(&model)) {
      nodes_.resize(tree->node_count());
      for (NodeId v = 0; v < tree->node_count(); ++v)
        nodes_[v] = {{0, 0}, tree->parent(v), tree->depth(v)};
      return;
    }
    stamps_.resize(links);
    if (const auto* g = std::get_if<Graph>(&model); g && !g->unit_capacity()) {
      capacity_.resize(links);
      for (LinkId l = 0; l < links; ++l) capacity_[l] = g->capacity(l);
      count_.resize(links);
    }
  }

  /// `transfers`: a phase's (Transfer or DirectTransfer: only the ranks are read).
  template <class Net, class T>
  std::uint64_t check(const Net& net, std::span<const T> transfers, std::uint32_t stamp,
                      std::optional<Conflict>& found) {
    const auto route = [this, &net](Rank src, Rank dst, auto&& visit) {
      net.route(src, dst, [&](LinkId l) { visit(l, stamps_[l]); });
    };
    return capacity_.empty() ? check_links<false>(transfers, stamp, found, route)
                             : check_links<true>(transfers, stamp, found, route);
  }
  /// A tree: Tree::walk over the rule's own copy of the parents and depths, each beside the
  /// stamps of the node's two links (16 bytes a node), so that a transfer's end reads one cache
  /// line, not one in each of four arrays: a phase's transfers leave from and reach machines all
  /// over the tree (Faraj-Yuan: one in every subtree). Every tree link has capacity 1.
  template <class T>
  std::uint64_t check(const Tree&, std::span<const T> transfers, std::uint32_t stamp,
                      std::optional<Conflict>& found) {
    const auto parent = [this](NodeId n) { return nodes_[n].parent; };
    const auto depth = [this](NodeId n) { return nodes_[n].depth; };
    const auto route = [&](Rank src, Rank dst, auto&& visit) {
      Tree::walk(src, dst, parent, depth, [&](NodeId n, bool down) {
        visit(2 * n + (down ? 1 : 0), nodes_[n].stamps[down ? 1 : 0]);
      });
    };
    return check_links<false>(transfers, stamp, found, route);
  }
  std::uint64_t hops() const { return hops_; }
  /// Forgets every stamp (the phase stamps wrapped around).
  void restart() {
    std::fill(stamps_.begin(), stamps_.end(), 0);
    for (Node& n : nodes_) n.stamps[0] = n.stamps[1] = 0;
  }

 private:
  /// Every transfer's links: route(src, dst, visit) calls visit(link, its stamp) for each.
  template <bool kCounted, class T, class Route>
  std::uint64_t check_links(std::span<const T> transfers, std::uint32_t stamp,
                            std::optional<Conflict>& found, const Route& route) {
    std::uint64_t hops = 0, conflicts = 0;
    for (std::uint32_t i = 0; i < transfers.size(); ++i) {
      const T& t = transfers[i];
      if (t.local()) continue;
      route(t.src, t.dst, [&](LinkId l, std::uint32_t& s) {
        ++hops;
        if (s != stamp) {
          s = stamp;
          if constexpr (kCounted) count_[l] = 1;
        } else if constexpr (kCounted) {
          if (++count_[l] > capacity_[l] && conflicts++ == 0) found = Conflict::on_link(i, l);
        } else if (conflicts++ == 0) {
          found = Conflict::on_link(i, l);
        }
      });
    }
    hops_ += hops;
    return conflicts;
  }

  /// A tree's node: the stamps of its links to and from its parent (link ids 2v and 2v + 1, in
  /// that order), its parent and its depth.
  struct Node {
    std::uint32_t stamps[2] = {0, 0};
    NodeId parent = 0;
    std::uint32_t depth = 0;
  };
  std::vector<Node> nodes_;                      // a tree's (then stamps_ is empty)
  std::vector<std::uint32_t> stamps_;            // per link, the other models'
  std::vector<std::uint32_t> capacity_, count_;  // empty when every capacity is 1
  std::uint64_t hops_ = 0;
};

/// Cluster: per node, the transfers it takes part in this phase.
class NodeRule {
 public:
  explicit NodeRule(const Cluster& c) : cluster_(c), used_(c.node_count()) {}

  template <class T>
  std::uint64_t check(std::span<const T> transfers, std::uint32_t stamp,
                      std::optional<Conflict>& found) {
    std::uint64_t conflicts = 0;
    const auto touch = [&](std::uint32_t node, std::uint32_t i) {
      Use& u = used_[node];
      if (u.stamp != stamp) {
        u = {stamp, 1, i};
        return;
      }
      // A second transfer is allowed only as the reverse half of an inter-node exchange.
      const T& a = transfers[u.first];
      const T& b = transfers[i];
      const bool exchange = u.count == 1 && a.src == b.dst && a.dst == b.src &&
                            cluster_.node_of(a.src) != cluster_.node_of(a.dst);
      if (!exchange && conflicts++ == 0) found = Conflict{u.first, i, node};
      ++u.count;
    };
    for (std::uint32_t i = 0; i < transfers.size(); ++i) {
      const T& t = transfers[i];
      if (t.local()) continue;
      const std::uint32_t from = cluster_.node_of(t.src), to = cluster_.node_of(t.dst);
      touch(from, i);
      if (to != from) touch(to, i);
    }
    work_ += transfers.size();
    return conflicts;
  }
  std::uint64_t work() const { return work_; }
  void restart() { std::fill(used_.begin(), used_.end(), Use{}); }

 private:
  struct Use {
    std::uint32_t stamp = 0, count = 0, first = 0;
  };
  const Cluster& cluster_;
  std::vector<Use> used_;
  std::uint64_t work_ = 0;
};

/// k-port: per rank, sends and receives this phase.
class PortRule {
 public:
  explicit PortRule(const FullyConnected& f) : ports_(f.ports), used_(f.ranks) {}

  /// On conflict, resource = rank, and `first` is the rank's first transfer in that direction;
  /// `sending` tells which direction overflowed.
  template <class T>
  std::uint64_t check(std::span<const T> transfers, std::uint32_t stamp,
                      std::optional<Conflict>& found, bool& sending) {
    std::uint64_t conflicts = 0;
    for (std::uint32_t i = 0; i < transfers.size(); ++i) {
      const T& t = transfers[i];
      if (t.local()) continue;
      for (const bool send : {true, false}) {
        Use& u = used_[send ? t.src : t.dst];
        if (u.stamp != stamp) u = {stamp, 0, 0};
        std::uint32_t& n = send ? u.sends : u.recvs;
        if (++n > ports_ && conflicts++ == 0) {
          found = Conflict{0, i, send ? t.src : t.dst};
          sending = send;
        }
      }
    }
    work_ += transfers.size();
    return conflicts;
  }
  std::uint64_t work() const { return work_; }
  void restart() { std::fill(used_.begin(), used_.end(), Use{}); }

 private:
  struct Use {
    std::uint32_t stamp = 0, sends = 0, recvs = 0;
  };
  Rank ports_;
  std::vector<Use> used_;
  std::uint64_t work_ = 0;
};

}  // namespace

struct ContentionChecker::Impl {
  const Topology& model;
  std::variant<LinkRule, NodeRule, PortRule> rule;  // make_rule's choice for `model`
  std::uint64_t phases = 0, bad_phases = 0, conflicts = 0;
  std::uint64_t epoch = 0;  // index / kStamps of the last phase seen
  std::optional<Counterexample> first;

  using Rule = std::variant<LinkRule, NodeRule, PortRule>;

  /// One rule per model kind, each named: a new kind does not compile until it has one.
  static Rule make_rule(const Topology& m) {
    const auto routed = [&m](const auto& net) -> Rule { return LinkRule(m, net.link_id_count()); };
    return std::visit(Overloaded{[](const Cluster& c) -> Rule { return NodeRule(c); },
                                 [](const FullyConnected& f) -> Rule { return PortRule(f); },
                                 [&](const Tree& t) { return routed(t); },
                                 [&](const Hypercube& h) { return routed(h); },
                                 [&](const Mesh& x) { return routed(x); },
                                 [&](const Ring& r) { return routed(r); },
                                 [&](const Graph& g) { return routed(g); }},
                      m);
  }

  Counterexample describe(std::size_t index, const Phase& phase, const Conflict& c,
                          bool sending) const {
    Counterexample x{index, phase.label(), phase.size(), {}, {}, {}};
    const std::uint32_t taker =  // the transfer that used the resource first
        c.first == Conflict::kUnknown ? first_user(model, phase, c.resource) : c.first;
    const std::string where = "phase " + std::to_string(index);
    const auto pair = [&] {
      x.transfers.push_back(offending(model, phase, taker));
      x.transfers.push_back(offending(model, phase, c.second));
    };
    if (const auto* cluster = std::get_if<Cluster>(&model)) {
      pair();
      x.resource =
          "node " + std::to_string(c.resource) + " (" + rank_range(*cluster, c.resource) + ")";
      x.explanation = "node " + std::to_string(c.resource) + " takes part in two operations in " +
                      where + "; a single-ported node does one exchange or one intra-node send";
    } else if (const auto* f = std::get_if<FullyConnected>(&model)) {
      // The k + 1 transfers of that rank in that direction, up to the one that overflowed.
      for (std::uint32_t i = 0; i <= c.second; ++i) {
        const Transfer& t = phase[i];
        if (!t.local() && (sending ? t.src : t.dst) == c.resource)
          x.transfers.push_back(offending(model, phase, i));
      }
      const std::string dir = sending ? "send" : "receive";
      x.resource = dir + " ports of rank " + std::to_string(c.resource) +
                   " (k = " + std::to_string(f->ports) + ")";
      x.explanation = "rank " + std::to_string(c.resource) + " must " + dir + " " +
                      std::to_string(x.transfers.size()) + " transfers in " + where + " but has " +
                      std::to_string(f->ports) + " " + dir + (f->ports == 1 ? " port" : " ports");
    } else if (const std::uint32_t capacity = link_capacity(model, c.resource); capacity > 1) {
      // The capacity + 1 transfers on that link, up to the one that overflowed.
      for (std::uint32_t i = taker; i <= c.second; ++i) {
        bool uses = false;
        for_each_link(model, phase[i].src, phase[i].dst,
                      [&](LinkId l) { uses = uses || l == c.resource; });
        if (uses && !phase[i].local()) x.transfers.push_back(offending(model, phase, i));
      }
      x.resource =
          "link " + link_name(model, c.resource) + " (capacity " + std::to_string(capacity) + ")";
      x.explanation = std::to_string(x.transfers.size()) + " transfers use the directed link " +
                      link_name(model, c.resource) + " in " + where + ", which carries " +
                      std::to_string(capacity) + " at a time (" + std::to_string(capacity) +
                      " parallel links or ports)";
    } else {
      pair();
      x.resource = "link " + link_name(model, c.resource);
      x.explanation = "transfers " + std::to_string(x.transfers[0].src) + " -> " +
                      std::to_string(x.transfers[0].dst) + " and " +
                      std::to_string(x.transfers[1].src) + " -> " +
                      std::to_string(x.transfers[1].dst) + " both use the directed link " +
                      link_name(model, c.resource) + " in " + where;
    }
    return x;
  }
};

ContentionChecker::ContentionChecker(const Topology& model)
    : impl_(new Impl{model, Impl::make_rule(model), 0, 0, 0, 0, std::nullopt}) {}
ContentionChecker::~ContentionChecker() = default;
ContentionChecker::ContentionChecker(ContentionChecker&&) noexcept = default;
ContentionChecker& ContentionChecker::operator=(ContentionChecker&&) noexcept = default;

void ContentionChecker::consume(std::size_t index, const Phase& phase) {
  judge_phase(index, phase.transfers(), [&]() -> const Phase& { return phase; });
}

void ContentionChecker::consume(std::size_t index, const DirectPhase& phase) {
  judge_phase(index, phase.transfers, PhaseOnDemand(phase));
}

template <class T, class PhaseOf>
void ContentionChecker::judge_phase(std::size_t index, std::span<const T> transfers,
                                    const PhaseOf& phase_of) {
  Impl& m = *impl_;
  // Stamps 1 .. 2^32 - 1, one per phase; when they come round again every slot is cleared, so
  // that a slot stamped 2^32 - 1 phases ago cannot pass for this phase's.
  constexpr std::uint64_t kStamps = std::numeric_limits<std::uint32_t>::max();
  const auto stamp = static_cast<std::uint32_t>(index % kStamps + 1);
  if (index / kStamps != m.epoch) {
    m.epoch = index / kStamps;
    std::visit([](auto& rule) { rule.restart(); }, m.rule);
  }
  std::optional<Conflict> found;
  bool sending = true;
  std::uint64_t conflicts = 0;
  // The rule was made for this model kind (make_rule), so each std::get below is the one held.
  const auto routed = [&](const auto& net) {
    return std::get<LinkRule>(m.rule).check(net, transfers, stamp, found);
  };
  conflicts = std::visit(
      Overloaded{
          [&](const Cluster&) { return std::get<NodeRule>(m.rule).check(transfers, stamp, found); },
          [&](const FullyConnected&) {
            return std::get<PortRule>(m.rule).check(transfers, stamp, found, sending);
          },
          [&](const Tree& t) { return routed(t); }, [&](const Hypercube& h) { return routed(h); },
          [&](const Mesh& x) { return routed(x); }, [&](const Ring& r) { return routed(r); },
          [&](const Graph& g) { return routed(g); }},
      m.model);
  ++m.phases;
  if (conflicts == 0) return;
  m.conflicts += conflicts;
  if (m.bad_phases++ == 0) m.first = m.describe(index, phase_of(), *found, sending);
}

ContentionChecker::Tally ContentionChecker::tally() const {
  const Impl& m = *impl_;
  return {m.phases, m.bad_phases, m.conflicts, work(), m.first};
}

void ContentionChecker::Tally::merge(const Tally& other) {
  phases += other.phases;
  bad_phases += other.bad_phases;
  conflicts += other.conflicts;
  work += other.work;
  if (other.first && (!first || *other.first->phase < *first->phase)) first = other.first;
}

CheckResult ContentionChecker::finish() const { return judge(impl_->model, tally()); }

CheckResult ContentionChecker::judge(const Topology& model, const Tally& t) {
  CheckResult r{CheckId::contention, Verdict::pass, {}, t.first};
  const std::string name = describe(model);
  if (t.bad_phases == 0) {
    r.summary = "every phase is contention-free on " + name;
  } else {
    r.verdict = Verdict::fail;
    r.summary = "contention in " + std::to_string(t.bad_phases) + " of " +
                std::to_string(t.phases) + " phases on " + name + " (" +
                std::to_string(t.conflicts) + " conflicts)";
  }
  return r;
}

std::uint64_t ContentionChecker::work() const {
  return std::visit(
      [](const auto& rule) -> std::uint64_t {
        if constexpr (requires { rule.hops(); })
          return rule.hops();
        else
          return rule.work();
      },
      impl_->rule);
}

}  // namespace phasecheck::verify
