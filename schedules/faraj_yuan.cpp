// Faraj and Yuan, "Message Scheduling for All-to-all Personalized Communication on Ethernet
// Switched Clusters", Section 4 (names as in the paper: the root, subtrees t_i with |Mi|
// machines t_i,0 .. t_i,|Mi|-1, the extended ring of Section 4.2, the rotate and broadcast
// patterns, Table 3's mapping and the six steps of Fig. 4).

#include "schedules/faraj_yuan.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <utility>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules {
namespace {

using u64 = std::uint64_t;

constexpr ParameterSpec kRoot{"root", Text{"SWITCH"}, InWords{"Section 4.1's choice"},
                              "the root switch; it must meet the two conditions of Section 4"};
constexpr ParameterSpec kParameters[] = {kCollective, kRoot};

/// The tree as an undirected graph with the machine count of every branch.
struct Branches {
  explicit Branches(const Tree& tree) : machines(tree.ranks()) {
    const NodeId n = tree.node_count();
    parent.resize(n);
    below.assign(n, machines);  // the internal root sees every machine below it
    next.resize(n);
    for (NodeId v = 0; v < n; ++v) parent[v] = tree.link_ends(2 * v).second;
    for (const Tree::Cut& c : tree.cuts()) below[c.a] = c.machines_a;
    for (NodeId v = 0; v < n; ++v)
      if (parent[v] != v) {
        next[v].push_back(parent[v]);
        next[parent[v]].push_back(v);
      }
  }
  /// Machines in the branch of `v` that starts with its neighbour `w`.
  u64 machines_via(NodeId v, NodeId w) const {
    return parent[w] == v && w != v ? below[w] : machines - below[v];
  }
  u64 load(NodeId v, NodeId w) const {
    const u64 side = machines_via(v, w);
    return side * (machines - side);
  }

  Rank machines;
  std::vector<NodeId> parent;
  std::vector<u64> below;
  std::vector<std::vector<NodeId>> next;
};

/// The subtrees of `root` with machines, as rank lists, ordered as the plan wants them.
std::vector<std::vector<Rank>> subtrees_of(const Branches& g, NodeId root) {
  std::vector<std::vector<Rank>> t;
  std::vector<NodeId> stack;
  for (NodeId first : g.next[root]) {
    if (g.machines_via(root, first) == 0) continue;
    std::vector<Rank>& machines = t.emplace_back();
    stack.assign(1, first);
    std::vector<NodeId> from(1, root);
    while (!stack.empty()) {  // depth-first, iterative: trees can be deep
      const NodeId v = stack.back(), back = from.back();
      stack.pop_back();
      from.pop_back();
      if (v < g.machines) machines.push_back(v);
      for (NodeId w : g.next[v])
        if (w != back) {
          stack.push_back(w);
          from.push_back(v);
        }
    }
    std::sort(machines.begin(), machines.end());
  }
  // A total order (the subtrees are disjoint, so their first machines differ): std::sort gives
  // what a stable sort would, without libstdc++'s deprecated get_temporary_buffer (clang warns).
  std::sort(t.begin(), t.end(), [](const auto& a, const auto& b) {
    return a.size() != b.size() ? a.size() > b.size() : a.front() < b.front();
  });
  return t;
}

u64 mod(std::int64_t a, u64 m) {
  const auto r = a % static_cast<std::int64_t>(m);
  return static_cast<u64>(r < 0 ? r + static_cast<std::int64_t>(m) : r);
}

/// Walks every subtree's outgoing groups t_i -> t_j in ring order (j = i+1, ..., k-1, 0, ...,
/// i-1), whose start phases increase (Lemma 2). At each phase, active() holds the subtrees that
/// send a global message in it. O(k) memory, O(log k) per group, nothing per phase but the walk
/// over the active groups.
class GroupWalk {
 public:
  explicit GroupWalk(const FarajYuanPlan& plan) : plan_(plan), k_(plan.t.size()) {
    cursor_.assign(k_, 0);
    start_.assign(k_, 0);
    if (k_ < 2) return;
    for (std::size_t i = 0; i < k_; ++i) schedule(i);
  }
  /// Moves to phase p (consecutive from 0): groups starting at p become active. Whether any did.
  bool enter(u64 p) {
    bool started = false;
    while (!waiting_.empty() && waiting_.top().first == p) {
      started = true;
      const std::size_t i = waiting_.top().second;
      active_.insert(std::upper_bound(active_.begin(), active_.end(), i), i);
      ends_.push({start_[i] + plan_.size(i) * plan_.size(to(i)), i});
      waiting_.pop();
    }
    if (!waiting_.empty() && waiting_.top().first < p)
      throw std::logic_error("faraj-yuan: groups of one subtree overlap (Lemma 2 violated)");
    return started;
  }
  /// Leaves phase p: groups ending with it are done; their subtree waits for its next group.
  void leave(u64 p) {
    ended_.clear();
    while (!ends_.empty() && ends_.top().first == p + 1) {
      ended_.push_back(ends_.top().second);
      ends_.pop();
    }
    std::sort(ended_.begin(), ended_.end());  // in subtree order, as the invariant reports them
    for (std::size_t i : ended_) {
      active_.erase(std::lower_bound(active_.begin(), active_.end(), i));
      ++cursor_[i];
      schedule(i);
    }
  }
  /// The subtrees sending in this phase, in increasing order.
  const std::vector<std::size_t>& active() const { return active_; }
  /// The groups that ended with the last leave(): (i, j) for each i listed.
  const std::vector<std::size_t>& ended() const { return ended_; }
  /// The receiving subtree of i's current group, and the group's first phase.
  std::size_t to(std::size_t i) const { return ring(i, cursor_[i]); }
  u64 start(std::size_t i) const { return start_[i]; }
  std::size_t previous(std::size_t i) const { return ring(i, cursor_[i] - 1); }

 private:
  std::size_t ring(std::size_t i, std::size_t c) const {
    return c < k_ - 1 - i ? i + 1 + c : c - (k_ - 1 - i);
  }
  void schedule(std::size_t i) {
    if (cursor_[i] >= k_ - 1) return;
    start_[i] = plan_.start(i, to(i));
    waiting_.push({start_[i], i});
  }

  const FarajYuanPlan& plan_;
  std::size_t k_;
  std::vector<std::size_t> cursor_;
  std::vector<u64> start_;
  using Queue = std::priority_queue<std::pair<u64, std::size_t>,
                                    std::vector<std::pair<u64, std::size_t>>, std::greater<>>;
  Queue waiting_;                    // (first phase, i) of each subtree's next group
  Queue ends_;                       // (phase after the last, i) of each active group
  std::vector<std::size_t> active_;  // sorted: few changes, one pass per phase
  std::vector<std::size_t> ended_;
};

}  // namespace

u64 FarajYuanPlan::phases() const { return t.empty() ? 0 : size(0) * (machines - size(0)); }

u64 FarajYuanPlan::start(std::size_t i, std::size_t j) const {
  u64 sum = 0;  // |M_{lo}| + ... + |M_{hi}|
  const auto sizes = [&](std::size_t lo, std::size_t hi) {
    sum = 0;
    for (std::size_t x = lo; x <= hi && x < t.size(); ++x) sum += size(x);
    return sum;
  };
  if (j > i) return i + 1 > j - 1 ? 0 : size(i) * sizes(i + 1, j - 1);
  return phases() - size(j) * sizes(j + 1, i);
}

std::vector<NodeId> root_candidates(const Tree& tree) {
  std::vector<NodeId> roots;
  if (tree.ranks() <= 2) return roots;
  const Branches g(tree);
  const u64 bottleneck = tree.bottleneck_load();
  for (const Tree::Cut& c : tree.cuts()) {
    if (u64{c.machines_a} * c.machines_b != bottleneck) continue;
    for (auto [u, v] : {std::pair{c.a, c.b}, std::pair{c.b, c.a}}) {
      if (g.machines_via(v, u) < g.machines_via(u, v)) continue;  // need |Mu| >= |Mv|
      NodeId from = v;
      for (;;) {  // Section 4.1: follow the only branch with machines until there are several
        std::vector<NodeId> loaded;
        for (NodeId w : g.next[u])
          if (w != from && g.machines_via(u, w) > 0) loaded.push_back(w);
        if (loaded.size() != 1) break;
        from = std::exchange(u, loaded[0]);
      }
      roots.push_back(u);
    }
  }
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  return roots;
}

FarajYuanPlan faraj_yuan_plan(const Tree& tree, const std::optional<std::string>& root_name) {
  FarajYuanPlan plan;
  plan.machines = tree.ranks();
  if (plan.machines <= 2) {
    if (root_name) throw InputError("faraj-yuan: with 2 machines or fewer there is no root");
    for (Rank r = 0; r < plan.machines; ++r) plan.t.push_back({r});
    return plan;
  }
  const Branches g(tree);
  if (root_name) {
    NodeId root = tree.node_count();
    for (NodeId v = tree.ranks(); v < tree.node_count(); ++v)
      if (tree.node_name(v) == *root_name) root = v;
    if (root == tree.node_count())
      throw InputError("faraj-yuan: root=" + *root_name + " is not a switch of the tree");
    const u64 bottleneck = tree.bottleneck_load();
    bool on_bottleneck = false;
    for (NodeId w : g.next[root]) {
      on_bottleneck |= g.load(root, w) == bottleneck;
      if (2 * g.machines_via(root, w) > plan.machines)
        throw InputError("faraj-yuan: root=" + *root_name + " has a subtree with " +
                         std::to_string(g.machines_via(root, w)) + " of the " +
                         std::to_string(plan.machines) + " machines, more than half (Lemma 1)");
    }
    if (!on_bottleneck)
      throw InputError("faraj-yuan: root=" + *root_name + " is not on a bottleneck link");
    plan.root = root;
  } else {
    const auto candidates = root_candidates(tree);
    std::size_t best_subtrees = SIZE_MAX;
    for (NodeId r : candidates) {
      const std::size_t n = subtrees_of(g, r).size();
      if (n < best_subtrees) {
        best_subtrees = n;
        plan.root = r;
      }
    }
  }
  plan.t = subtrees_of(g, *plan.root);
  return plan;
}

namespace {

/// Subtree t_i's machine x: t[i][x] (Machines::listed), or t[i][0] + x when every subtree's
/// machines are consecutive ranks (Machines::consecutive, the usual numbering): then the phase
/// loop below reads no list, whose entries a phase takes from every subtree (a cache miss each).
enum class Machines { listed, consecutive };

template <Machines kMachines>
void faraj_yuan_phases(const FarajYuanPlan& plan, Collective collective, const DirectSink& out,
                       PhaseRange range) {
  const std::size_t k = plan.t.size();
  const u64 P = plan.phases(), end = std::min(P, range.last);
  if (k < 2) return;
  const u64 M0 = plan.size(0);
  GroupWalk walk(plan);
  // A phase's messages: at most one global and one local message per subtree and Step 3's,
  // written through a plain pointer.
  std::vector<DirectTransfer> pairs(2 * k + 1);
  DirectTransfer* next = pairs.data();
  std::string label;
  const auto send = [&next](Rank src, Rank dst) { *next++ = {src, dst}; };
  // Each subtree's current group t_i -> t_j, set up when it starts: its machines, which step
  // makes its global message, and its phase q = p - start as q / |Mj| and q % |Mj|, counted on
  // phase by phase (the per-phase divisions below are one per phase, not one per message).
  enum class Step : std::uint8_t { one_a, two, four_six };
  struct Group {
    const Rank* from_list = nullptr;
    const Rank* to_list = nullptr;
    u64 Mi = 0, Mj = 0;
    u64 x = 0, y = 0;  // q / Mj, q % Mj
    Step step = Step::four_six;
    bool step5 = false;  // t_i -> t_i-1 (i >= 1): t_i's local messages go along
    Rank from(u64 a) const {
      if constexpr (kMachines == Machines::consecutive) return from_list[0] + Rank(a);
      return from_list[a];
    }
    Rank to(u64 b) const {
      if constexpr (kMachines == Machines::consecutive) return to_list[0] + Rank(b);
      return to_list[b];
    }
  };
  std::vector<Group> group(k);
  // The active groups in subtree order, as the walk lists them: set again only when a group
  // starts or ends (k (k - 1) times in all), so that a phase's loop reads its groups alone.
  std::vector<Group*> running;
  bool changed = true;
  for (u64 p = 0; p < end; ++p) {
    changed |= walk.enter(p);
    if (p < range.first) {  // the walk alone, a few comparisons a phase: no pairs are made
      walk.leave(p);
      continue;
    }
    // The first phase made: the groups under way start where their phases have got to.
    const bool seek = p == range.first && p > 0;
    changed |= seek;
    // Step 1.b: the sender of t_0 -> t_j at this phase, by the rotate pattern with base sequence
    // t_0,0 .. t_0,|M0|-1 (t_0 sends in every phase: its groups fill phases 0 .. P-1).
    const std::size_t j0 = walk.to(0);
    const u64 q0 = p - walk.start(0), Mj0 = plan.size(j0);
    const u64 sender0 = (q0 + q0 / std::lcm(M0, Mj0)) % M0;
    // Step 2's receiver in t_0 (Table 3: round r maps sender t_0,s to t_0,(s + r + 1) mod |M0|).
    const u64 receiver0 = (sender0 + (p / M0) % M0 + 1) % M0;
    if (changed) {
      running.clear();
      for (std::size_t i : walk.active()) {
        Group& g = group[i];
        if (const std::size_t j = walk.to(i); walk.start(i) == p || seek) {
          const Step step = i == 0 ? Step::one_a : j == 0 ? Step::two : Step::four_six;
          const u64 q = p - walk.start(i), Mj = plan.size(j);
          g = {.from_list = plan.t[i].data(),
               .to_list = plan.t[j].data(),
               .Mi = plan.size(i),
               .Mj = Mj,
               .x = q / Mj,
               .y = q % Mj,
               .step = step,
               .step5 = i >= 1 && j == i - 1};
        }
        running.push_back(&g);
      }
      changed = false;
    }
    for (Group* active : running) {
      Group& g = *active;
      switch (g.step) {
        case Step::one_a:
          // Step 1.a: receivers aligned so that t_j,(p - P) mod |Mj| receives at phase p.
          send(g.from(sender0), g.to(mod(std::int64_t(p) - std::int64_t(P), g.Mj)));
          break;
        case Step::two:
          // Step 2: senders by the broadcast pattern t_i,0 .. t_i,|Mi|-1, |M0| phases each.
          send(g.from(g.x), g.to(receiver0));
          break;
        case Step::four_six:
          // Steps 4 (i > j) and 6 (i < j): the broadcast pattern, receivers t_j,0 .. t_j,|Mj|-1.
          send(g.from(g.x), g.to(g.y));
          break;
      }
      // Step 5: local messages of t_i in the phases of t_i -> t_i-1. Sender t_i,b of the global
      // message spends |M_i-1| >= |Mi| phases; in its first |Mi| the designated receivers
      // t_i,(p - P) mod |Mi| run through all of t_i: t_i,a -> t_i,b goes where a comes up.
      if (g.step5 && g.y < g.Mi) {
        const u64 a = mod(std::int64_t(p) - std::int64_t(P), g.Mi), b = g.x;
        if (a != b) send(g.from(a), g.from(b));
      }
      if (++g.y == g.Mj) g.y = 0, ++g.x;
    }
    // Step 3: local messages of t_0 in the first |M0| (|M0| - 1) phases: in round r the global
    // receiver t_0,(s + r + 1) mod |M0| sends to the global sender t_0,s.
    if (p < M0 * (M0 - 1)) send(plan.t[0][(sender0 + p / M0 + 1) % M0], plan.t[0][sender0]);
    numbered_label(label, "phase ", p);
    out(DirectPhase{label, collective, {pairs.data(), next}});
    next = pairs.data();
    walk.leave(p);
    changed = !walk.ended().empty();
  }
}

}  // namespace

void faraj_yuan(const FarajYuanPlan& plan, Collective collective, const PhaseSink& out) {
  faraj_yuan(plan, collective, filling(out));
}

void faraj_yuan(const FarajYuanPlan& plan, Collective collective, const DirectSink& out,
                PhaseRange range) {
  // Consecutive: strictly increasing, the last first + size - 1.
  const bool consecutive = std::all_of(plan.t.begin(), plan.t.end(), [](const auto& m) {
    const bool increasing =
        std::adjacent_find(m.begin(), m.end(), std::greater_equal<>()) == m.end();
    return m.empty() || (increasing && m.back() - m.front() + std::size_t{1} == m.size());
  });
  if (consecutive)
    faraj_yuan_phases<Machines::consecutive>(plan, collective, out, range);
  else
    faraj_yuan_phases<Machines::listed>(plan, collective, out, range);
}

std::span<const ParameterSpec> FarajYuanOptions::parameters() { return kParameters; }

FarajYuanOptions FarajYuanOptions::from(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "faraj-yuan");
  if (!std::holds_alternative<Tree>(header.topology))
    throw InputError("faraj-yuan needs a tree topology (switches and machines), not " +
                     describe(header.topology));
  return {header.collective, read_text(header.parameters, kRoot)};
}

Claims faraj_yuan_claims(const ScheduleHeader& header) {
  const FarajYuanOptions o = FarajYuanOptions::from(header);
  const auto plan = std::make_shared<const FarajYuanPlan>(
      faraj_yuan_plan(std::get<Tree>(header.topology), o.root));
  // The allocation of Section 4.2 and Steps 3 and 5, checked as data: when the phases of
  // t_i -> t_j end, all |Mi| |Mj| messages of t_i -> t_j have been delivered; when those of
  // t_i -> t_i-1 end, all local messages of t_i; after phase |M0| (|M0| - 1) - 1, those of t_0.
  struct State {
    std::unique_ptr<GroupWalk> walk;
    u64 next = 0;  // the phase the walk expects
  };
  auto state = std::make_shared<State>();
  Invariant allocation{
      "Section 4.2 and Fig. 4: when the phases of t_i -> t_j end, its messages (and for j = i - 1 "
      "the local messages of t_i) have been delivered",
      [plan, state](const Boundary& at, const DataView& data) -> Finding {
        const u64 P = plan->phases();
        if (at.phase >= P || plan->t.size() < 2) return Finding::not_applicable();
        // The walk follows the boundaries as a check asks them, one after another; a boundary
        // asked out of that order (the first of a range of phases checked apart,
        // pipeline/check.hpp) walks there from phase 0, a few comparisons a phase. So the finding
        // depends on the boundary and the data alone. The walk is shared by every copy of these
        // claims: one verifier at a time may ask (a check's one stateful verifier does).
        if (!state->walk || at.phase < state->next)
          state->walk = std::make_unique<GroupWalk>(*plan), state->next = 0;
        GroupWalk& walk = *state->walk;
        for (; state->next <= at.phase; ++state->next) {
          walk.enter(state->next);
          walk.leave(state->next);
        }
        const auto all = [&](std::size_t i, std::size_t j,
                             const char* what) -> std::optional<std::string> {
          // Subtree i's machines as one range of ranks (the usual numbering): a range query per
          // receiver; the pair-by-pair walk below only names the first undelivered message.
          const auto& from = plan->t[i];
          const bool consecutive = !from.empty() &&
                                   from.back() - from.front() + std::size_t{1} == from.size() &&
                                   std::is_sorted(from.begin(), from.end());
          if (consecutive && std::all_of(plan->t[j].begin(), plan->t[j].end(), [&](Rank b) {
                return data.delivered_all(from.front(), from.back() + 1, b);
              }))
            return std::nullopt;
          for (Rank a : plan->t[i])
            for (Rank b : plan->t[j])
              if (a != b && !data.delivered(a, b))
                return std::string(what) + ": the message " + std::to_string(a) + " -> " +
                       std::to_string(b) + " (t_" + std::to_string(i) + " -> t_" +
                       std::to_string(j) + ") has not been delivered after phase " +
                       std::to_string(at.phase);
          return std::nullopt;
        };
        for (std::size_t i : walk.ended()) {
          const std::size_t j = walk.previous(i);
          if (auto m = all(i, j, "Section 4.2")) return Finding::broken(std::move(*m));
          if (i >= 1 && j == i - 1)
            if (auto m = all(i, i, "Step 5")) return Finding::broken(std::move(*m));
        }
        const u64 M0 = plan->size(0);
        const bool step3 = M0 >= 2 && at.phase + 1 == M0 * (M0 - 1);
        if (step3)
          if (auto m = all(0, 0, "Step 3")) return Finding::broken(std::move(*m));
        // Only where a group's phases end (or Step 3's) does the allocation say anything.
        return walk.ended().empty() && !step3 ? Finding::not_applicable() : Finding::holds();
      }};
  return {.invariants = {std::move(allocation)},
          .phases =
              PhaseClaim::exactly(plan->phases(), "|M0| (|M| - |M0|) phases, the bottleneck load")};
}

}  // namespace phasecheck::schedules
