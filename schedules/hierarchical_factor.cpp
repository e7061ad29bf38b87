// ClusteredAllToAll, the hierarchical factor algorithm (Sanders & Träff, "The Hierarchical Factor
// Algorithm for All-to-All Communication", Section 3, Fig. 2; Fig. 3 is the example of nodes of
// sizes 1, 2, 3; Theorem 1 the step count).
//
// Nodes U are ordered U < V if size(U) < size(V), or equal sizes and U's index is smaller. The
// algorithm runs in phases; each phase works on the active nodes A (those with size > done), sets
// current = min size over A, and runs |A| rounds, one per 1-factor G_A^i of the complete graph on
// A with self-loops (Lemma 1: v_i(u) = (i - u) mod |A|, A indexed in node order). In round i every
// pair (U, V) of G_A^i with U < V, in parallel, runs the steps
//     for each u in U with done <= l(u) < current: for each v in V: exchange m_uv and m_vu
// and a node paired with itself sends m_uv one way (u != v: local copies take no step). After the
// phase, done = current and the nodes of that size retire. Invariant: for U < V, u in U with
// l(u) < done, v in V, m_uv and m_vu have been delivered. Theorem 1: the step count is the
// largest number of messages a node's processors send, up to an additive term at most max size:
// between n_max (p - 1) (the lower bound) and n_max p.

#include "schedules/hierarchical_factor.hpp"

#include <algorithm>
#include <memory>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/one_factors.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kCompact{
    "compact", Boolean{}, Fixed{"false"},
    "the implementation remark: self-loops in one factor, steps without inter-node traffic last"};
constexpr ParameterSpec kParameters[] = {kCollective, kCompact};

/// A node pair of one round: U < V, or U == V for a node paired with itself.
struct Pair {
  std::uint32_t U, V;
  std::uint64_t steps;
  bool self() const { return U == V; }
};

struct Round {
  std::uint32_t i;
  std::vector<Pair> pairs;
  std::uint64_t length = 0;
};

/// One phase of the outer loop, planned before it is emitted.
struct PhasePlan {
  unsigned number;  // 1-based, as in Fig. 3
  Rank done, current;
  std::vector<Round> rounds;
};

class Algorithm {
 public:
  explicit Algorithm(const HierarchicalFactorOptions& o) : o_(o), sizes_(o.cluster.node_sizes()) {}

  bool precedes(std::uint32_t U, std::uint32_t V) const {
    return sizes_[U] < sizes_[V] || (sizes_[U] == sizes_[V] && U < V);
  }

  /// Calls f(plan) for each phase of the outer loop.
  template <class F>
  void for_each_phase(F&& f) const {
    std::vector<std::uint32_t> A(sizes_.size());
    for (std::uint32_t U = 0; U < A.size(); ++U) A[U] = U;
    Rank done = 0;
    for (unsigned number = 1; !A.empty(); ++number) {
      PhasePlan plan{
          number,
          done,
          sizes_[*std::min_element(A.begin(), A.end(),
                                   [&](auto a, auto b) { return sizes_[a] < sizes_[b]; })],
          {}};
      const auto n = static_cast<std::uint32_t>(A.size());
      const std::uint64_t k = plan.current - done;
      for (std::uint32_t i = 0; i < n; ++i) {
        Round round{i, {}, 0};
        for (std::uint32_t a = 0; a < n; ++a) {
          const std::uint32_t b =
              o_.compact ? concentrated_partner(i, a, n) : lemma1_partner(i, a, n);
          if (b < a) continue;  // each pair once
          std::uint32_t U = A[a], V = A[b];
          if (precedes(V, U)) std::swap(U, V);
          const std::uint64_t steps = U == V ? k * (sizes_[U] - 1) : k * sizes_[V];
          round.pairs.push_back({U, V, steps});
          round.length = std::max(round.length, steps);
        }
        plan.rounds.push_back(std::move(round));
      }
      f(plan);
      done = plan.current;
      std::erase_if(A, [&](std::uint32_t U) { return sizes_[U] == done; });
    }
  }

  /// Step s (0-based) of the pair in phase `plan`: the transfers u -> v (and v -> u).
  void add_step(const PhasePlan& plan, const Pair& pair, std::uint64_t s, Phase& step) const {
    const Cluster& c = o_.cluster;
    if (pair.self()) {
      const Rank others = sizes_[pair.U] - 1;
      const auto lu = static_cast<Rank>(plan.done + s / others);
      const auto j = static_cast<Rank>(s % others);
      const Rank u = c.first_rank(pair.U) + lu, v = c.first_rank(pair.U) + (j < lu ? j : j + 1);
      step.add(u, v, direct_block(o_.collective, u, v));
      return;
    }
    const Rank u = c.first_rank(pair.U) + static_cast<Rank>(plan.done + s / sizes_[pair.V]);
    const Rank v = c.first_rank(pair.V) + static_cast<Rank>(s % sizes_[pair.V]);
    step.add(u, v, direct_block(o_.collective, u, v));
    step.add(v, u, direct_block(o_.collective, v, u));
  }

  /// A step with no inter-node communication: every pair still stepping is a node with itself.
  static bool intra_only(const Round& round, std::uint64_t s) {
    return std::all_of(round.pairs.begin(), round.pairs.end(),
                       [s](const Pair& p) { return p.self() || s >= p.steps; });
  }

  /// Calls f(plan, round, s, deferred, ends_phase) for each step in the order it is emitted.
  /// Compact: first every step with inter-node traffic, then (a second pass over the same loops,
  /// so nothing is buffered) the intra-node-only steps, moved to the end (`deferred`). The last
  /// step the first pass emits in a phase ends that phase.
  template <class F>
  void for_each_step(F&& f) const {
    for (const bool deferred :
         o_.compact ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
      for_each_phase([&](const PhasePlan& plan) {
        const auto emitted = [&](const Round& r, std::uint64_t s) {
          return !o_.compact || intra_only(r, s) == deferred;
        };
        std::pair<std::uint32_t, std::uint64_t> last{~0u, 0};
        for (const Round& r : plan.rounds)
          for (std::uint64_t s = 0; s < r.length; ++s)
            if (emitted(r, s)) last = {r.i, s};
        for (const Round& r : plan.rounds)
          for (std::uint64_t s = 0; s < r.length; ++s)
            if (emitted(r, s)) f(plan, r, s, deferred, !deferred && last == std::pair{r.i, s});
      });
    }
  }

  void emit(const PhaseSink& out) const {
    Phase step;
    for_each_step([&](const PhasePlan& plan, const Round& r, std::uint64_t s, bool deferred,
                      bool ends_phase) {
      step.clear();
      std::string label = "phase " + std::to_string(plan.number) + ", round " +
                          std::to_string(r.i) + ", step " + std::to_string(s + 1);
      if (deferred)
        label += " (moved to the end)";
      else if (ends_phase)
        label += ", end of phase " + std::to_string(plan.number);
      step.set_label(std::move(label));
      for (const Pair& p : r.pairs)
        if (s < p.steps) add_step(plan, p, s, step);
      out(step);
    });
  }

  /// The index of the step that ends each phase of the outer loop, in phase order.
  std::vector<std::size_t> phase_ends() const {
    std::vector<std::size_t> ends;
    std::size_t index = 0;
    for_each_step([&](const PhasePlan&, const Round&, std::uint64_t, bool, bool ends_phase) {
      if (ends_phase) ends.push_back(index);
      ++index;
    });
    return ends;
  }

 private:
  const HierarchicalFactorOptions& o_;
  const std::vector<Rank>& sizes_;
};

}  // namespace

std::span<const ParameterSpec> HierarchicalFactorOptions::parameters() { return kParameters; }

HierarchicalFactorOptions HierarchicalFactorOptions::from(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "hierarchical-factor");
  const auto* cluster = std::get_if<Cluster>(&header.topology);
  if (!cluster)
    throw InputError("hierarchical-factor needs a cluster topology (SMP node sizes), not " +
                     describe(header.topology));
  return {*cluster, header.collective, read_bool(header.parameters, kCompact)};
}

void hierarchical_factor(const HierarchicalFactorOptions& options, const PhaseSink& out) {
  Algorithm(options).emit(out);
}

Claims hierarchical_factor_claims(const HierarchicalFactorOptions& options) {
  const Cluster& c = options.cluster;
  const std::vector<Rank>& sizes = c.node_sizes();
  const std::size_t p = c.ranks();
  const std::size_t n_max = *std::max_element(sizes.begin(), sizes.end());

  // The invariant of Fig. 2, checked where the algorithm's phases end: at the step indices the
  // algorithm's own loops give (phase_ends), not where a label says so. Delivery is monotone, so
  // each end of phase checks only the processors it newly covers (done_before <= l(u) < done):
  // every pair is looked at once, O(p^2) in all.
  std::vector<Rank> distinct(sizes.begin(), sizes.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const bool intra = !options.compact;  // compact moves intra-node steps to the end

  Invariant invariant{
      std::string(
          "Fig. 2: for U < V, u in U with l(u) < done, v in V, m_uv and m_vu are delivered") +
          (intra ? "; and m_uv for v in u's own node" : ""),
      [c, distinct, intra, ends = Algorithm(options).phase_ends()](const Boundary& at,
                                                                   const DataView& data) {
        const auto it = std::find(ends.begin(), ends.end(), at.phase);
        if (it == ends.end()) return Finding::not_applicable();
        const auto P = static_cast<unsigned>(it - ends.begin()) + 1;  // 1-based, as in Fig. 3
        const Rank before = P == 1 ? 0 : distinct[P - 2], done = distinct[P - 1];
        const auto& n = c.node_sizes();
        const auto precedes = [&](std::uint32_t U, std::uint32_t V) {
          return n[U] < n[V] || (n[U] == n[V] && U < V);
        };
        const auto missing = [&](Rank from, Rank to) -> std::optional<std::string> {
          if (data.delivered(from, to)) return std::nullopt;
          return "after phase " + std::to_string(P) + " (done = " + std::to_string(done) +
                 ") the message from rank " + std::to_string(from) + " (node " +
                 std::to_string(c.node_of(from)) + ") to rank " + std::to_string(to) + " (node " +
                 std::to_string(c.node_of(to)) + ") has not been delivered";
        };
        for (std::uint32_t U = 0; U < n.size(); ++U)
          for (Rank l = before; l < std::min(done, n[U]); ++l) {
            const Rank u = c.first_rank(U) + l;
            for (std::uint32_t V = 0; V < n.size(); ++V) {
              if (V == U ? !intra : !precedes(U, V)) continue;
              for (Rank v = c.first_rank(V); v < c.first_rank(V) + n[V]; ++v) {
                if (v == u) continue;
                if (auto m = missing(u, v)) return Finding::broken(std::move(*m));
                if (V != U)
                  if (auto m = missing(v, u)) return Finding::broken(std::move(*m));
              }
            }
          }
        return Finding::holds();
      }};
  return {.invariants = {std::move(invariant)},
          .phases = PhaseClaim{n_max * (p - 1), n_max * p,
                               "Theorem 1: max node size x (p - 1) up to max node size x p steps"}};
}

bool inefficient_step(const Cluster& cluster, const Phase& step) {
  const auto& sizes = cluster.node_sizes();
  const Rank n_max = *std::max_element(sizes.begin(), sizes.end());
  bool self = false, maximal_exchange = false;
  for (const Transfer& t : step.transfers()) {
    if (t.local()) continue;
    const auto U = cluster.node_of(t.src), V = cluster.node_of(t.dst);
    if (U == V)
      self = true;
    else if (sizes[U] == n_max && sizes[V] == n_max)
      maximal_exchange = true;
  }
  return self && maximal_exchange;
}

}  // namespace phasecheck::schedules
