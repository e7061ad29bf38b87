// cluster-coloring: a direct alltoall (or allgather) on a cluster of SMP nodes under the cluster
// rule (per phase a node takes part in one operation: an exchange with one other node, or one
// intra-node send), built as an edge colouring of the node multigraph.
//
// The multigraph has the nodes as vertices and n_X x n_Y parallel edges between X and Y, one per
// pair of their processors (both directions travel in one phase, an exchange). A phase is a
// matching of it; a node left out of the matching may make one of its n_X (n_X - 1) intra-node
// sends. With T phases, node X is matched in n_X (p - n_X) of them and free in the rest, which
// hold its intra-node sends exactly when T >= n_X (p - 1). So the fewest phases are
//     max(n_max (p - 1), chromatic index of the multigraph),
// and by Goldberg and Seymour's theorem (proved by Chen, Jing and Zang) the chromatic index is at
// most max(Delta + 1, ceil(density)); with a node of two processors or more, Delta + 1 <=
// n_max (p - 1), and the density is the bound's pair count (core/cluster_bound.hpp): the optimum
// is the counting bound, on every cluster (K_N, nodes of one processor, is the classic case).
//
// Finding that colouring is the hard part (edge colouring multigraphs is NP-hard in general);
// this file finds it greedily, phase pattern by phase pattern, keeping the counting bound
// feasible for what remains:
//   - every node's remaining operations D(X) fit in the remaining phases T': slack T' - D(X);
//   - the remaining exchanges fit in T' phases of floor(N/2) pairs each.
// Each step builds one node pattern: a matching (the pairs of the round-robin factor of K_N with
// the most pairs left, then greedily, the nodes with the least slack first; a node without slack
// left out takes a partner from a node that can spare it), intra-node sends on the nodes left
// out, and repeats it as long as nothing changes: until a pair or a node's sends
// run out, or a node left out would have no slack, or the exchanges would not fit. A pass that
// cannot go on fails; passes differ in tie-breaking and in whether the factor leads, and the
// search tries up to kAttempts passes at the bound, then (up to kExhaustiveNodes nodes) one pass
// that weighs every matching against every odd set of nodes, then the same at the bound + 1, and
// so on. What it reaches is measured, not proved: the bound on every cluster up to 20 ranks and
// every random one tried up to 13 nodes; beyond, the fuzzer finds clusters of 15 nodes 3 phases
// over (docs/algorithms.md). The claim says bound + 1 at most, and the verifier holds every
// schedule to it, so those fail it.

#include "schedules/cluster_coloring.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <tuple>

#include "core/cluster_bound.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules {
namespace {

using u64 = std::uint64_t;

constexpr ParameterSpec kParameters[] = {kCollective};

/// Greedy passes tried at each phase count (the bound, the bound + 1) before going further.
constexpr unsigned kAttempts = 64;
/// After them, on clusters of at most this many nodes, one exhaustive pass (pass number
/// kAttempts): every matching is weighed, and those that can still win against every odd set of
/// nodes. 568,504 matchings and 4,083 odd sets at 13 nodes: 2,2,2,2,2,2,2,2,2,2,2,1,1 takes 0.44 s.
constexpr std::uint32_t kExhaustiveNodes = 13;

/// A fixed, portable mix of the pass number and a node: the pass's tie-break order.
u64 splitmix(u64 x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// The round-robin near-1-factorization of K_N: rounds(N) rounds; in round i every node has at
/// most one partner, and every pair of nodes is in exactly one round.
class Factors {
 public:
  explicit Factors(std::uint32_t n) : n_(n), m_(n % 2 ? n : n - 1) {}
  std::uint32_t rounds() const { return n_ < 2 ? 0 : m_; }
  /// x's partner in round i, or x itself when it has none.
  std::uint32_t partner(std::uint32_t i, std::uint32_t x) const {
    if (n_ % 2) return (i + m_ - x) % m_;  // (i - x) mod N; itself: the round's bye
    if (x == m_) return static_cast<std::uint32_t>((u64{i} * ((m_ + 1) / 2)) % m_);
    const std::uint32_t y = (i + m_ - x) % m_;
    return y == x ? m_ : y;
  }
  /// The round of pair {x, y}.
  std::uint32_t round(std::uint32_t x, std::uint32_t y) const {
    if (n_ % 2 == 0 && (x == m_ || y == m_))
      return static_cast<std::uint32_t>((2 * u64{x == m_ ? y : x}) % m_);
    return (x + y) % m_;
  }

 private:
  std::uint32_t n_, m_;
};

/// One node pattern, repeated `repeat` times.
struct Pattern {
  u64 repeat = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // X < Y
  std::vector<std::uint32_t> alone;                            // nodes making an intra-node send
};

/// One pass for T phases: greedy (`attempt` < kAttempts: its tie-breaks, and whether the
/// round-robin factor leads), or exhaustive (`attempt` == kAttempts). The state is what remains:
/// exchanges per node pair, intra-node sends per node, phases.
class Pass {
 public:
  Pass(const std::vector<Rank>& sizes, u64 phases, unsigned attempt)
      : n_(static_cast<std::uint32_t>(sizes.size())),
        factors_(n_),
        left_(u64{n_} * n_),
        sends_(n_),
        busy_(n_),
        tie_(n_),
        round_pairs_(factors_.rounds()),
        phases_(phases),
        guided_(attempt % 2 == 0),
        exhaustive_(attempt == kAttempts) {
    if (exhaustive_) {
      if (n_ > kExhaustiveNodes)
        throw std::logic_error("cluster-coloring: too many nodes to weigh");
      for (std::uint32_t set = 0; set < (1u << n_); ++set)
        if (std::popcount(set) >= 3 && std::popcount(set) % 2 == 1) {
          odd_sets_.push_back(set);
          set_half_.push_back(static_cast<u64>(std::popcount(set) / 2));
        }
    }
    for (std::uint32_t x = 0; x < n_; ++x) {
      sends_[x] = u64{sizes[x]} * (sizes[x] - 1);
      tie_[x] = splitmix((u64{attempt} << 32) | x);
      for (std::uint32_t y = 0; y < n_; ++y)
        if (y != x) {
          left_[u64{x} * n_ + y] = u64{sizes[x]} * sizes[y];
          busy_[x] += left_[u64{x} * n_ + y];
          if (x < y) {
            exchanges_ += left_[u64{x} * n_ + y];
            ++round_pairs_[factors_.round(x, y)];
          }
        }
    }
  }

  /// Runs the pass; `on_pattern(pattern, state)` sees each pattern before it is applied. False
  /// when the pass gets stuck before the last operation.
  template <class F>
  bool run(F&& on_pattern) {
    std::vector<std::uint32_t> order, mate(n_);
    std::vector<u64> slack(n_);
    Pattern pattern;
    for (std::uint32_t cursor = 0;;) {
      order.clear();
      for (std::uint32_t x = 0; x < n_; ++x) {
        const u64 d = busy_[x] + sends_[x];
        if (d > phases_) return false;
        slack[x] = phases_ - d;
        if (d > 0) order.push_back(x);
      }
      if (order.empty()) return true;
      std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (slack[a] != slack[b]) return slack[a] < slack[b];
        const u64 da = busy_[a] + sends_[a], db = busy_[b] + sends_[b];
        if (da != db) return da > db;
        return tie_[a] != tie_[b] ? tie_[a] < tie_[b] : a < b;
      });
      std::fill(mate.begin(), mate.end(), kNone);
      if (exhaustive_) {
        weigh_matchings(slack, mate);
      } else {
        if (guided_ && factors_.rounds() > 0) cursor = lead(cursor, mate);
        fill(order, mate);
        repair(order, slack, mate);
      }
      pattern.pairs.clear();
      pattern.alone.clear();
      const u64 repeat = repeat_of(mate, slack, 0, &pattern);
      if (repeat == 0) return false;
      pattern.repeat = repeat;
      on_pattern(pattern);
      apply(pattern);
    }
  }

  std::uint32_t nodes() const { return n_; }
  /// Exchanges left between X and Y.
  u64 left(std::uint32_t x, std::uint32_t y) const { return left_[u64{x} * n_ + y]; }
  u64 sends(std::uint32_t x) const { return sends_[x]; }

 private:
  static constexpr std::uint32_t kNone = ~0u;

  /// How often the pattern of `mate` (pairs; unmatched nodes make an intra-node send if they
  /// have one, else idle) can repeat: until a pair or a node's sends run out, an idle node's slack
  /// does, or the exchanges left stop fitting in floor(N/2) pairs a phase; exhaustive, also
  /// until an odd set S of nodes stops fitting (its exchanges inside, floor(|S|/2) a phase).
  /// `pattern`, when given, receives the pairs and the nodes alone (in the same loop: this runs
  /// once a pattern, over every node).
  u64 repeat_of(const std::vector<std::uint32_t>& mate, const std::vector<u64>& slack,
                u64 floor = 0, Pattern* pattern = nullptr) const {
    u64 repeat = phases_, matched = 0;
    std::uint32_t pair_masks[32];  // exhaustive: at most kExhaustiveNodes / 2 pairs
    for (std::uint32_t x = 0; x < n_; ++x) {
      if (mate[x] != kNone) {
        if (x < mate[x]) {
          repeat = std::min(repeat, left(x, mate[x]));
          if (exhaustive_) pair_masks[matched] = (1u << x) | (1u << mate[x]);
          if (pattern) pattern->pairs.emplace_back(x, mate[x]);
          ++matched;
        }
      } else if (sends_[x] > 0) {
        repeat = std::min(repeat, sends_[x]);
        if (pattern) pattern->alone.push_back(x);
      } else {
        repeat = std::min(repeat, slack[x]);  // idle: its slack shrinks
      }
    }
    // A set of h pairs a phase whose pattern puts fewer inside loses the difference each time.
    const auto fits = [&](u64 inside_left, u64 h, u64 inside) {
      if (inside < h) repeat = std::min(repeat, (phases_ * h - inside_left) / (h - inside));
    };
    fits(exchanges_, n_ / 2, matched);
    // Every odd set, stopping once the repeat is at `floor` or below (then it cannot win).
    for (std::size_t k = 0; k < odd_sets_.size() && repeat > floor; ++k) {
      u64 inside = 0;
      for (std::uint64_t i = 0; i < matched; ++i)
        inside += (odd_sets_[k] & pair_masks[i]) == pair_masks[i];
      fits(set_left_[k], set_half_[k], inside);
    }
    return repeat;
  }

  /// The exhaustive choice: of every matching that leaves no node without slack or sends
  /// unmatched, the one with the most pairs, then the most work on its nodes, then the longest
  /// repeat (the first of equals, in the enumeration's order).
  void weigh_matchings(const std::vector<u64>& slack, std::vector<std::uint32_t>& mate) {
    set_left_.assign(odd_sets_.size(), 0);
    for (std::size_t k = 0; k < odd_sets_.size(); ++k)
      for (std::uint32_t x = 0; x < n_; ++x)
        for (std::uint32_t y = x + 1; y < n_; ++y)
          if ((odd_sets_[k] >> x & 1) && (odd_sets_[k] >> y & 1)) set_left_[k] += left(x, y);
    std::vector<std::uint32_t> current(n_, kNone);
    std::tuple<u64, u64, u64> best{0, 0, 0};
    bool found = false;
    const auto weigh = [&]() {
      u64 pairs = 0, work = 0;
      for (std::uint32_t x = 0; x < n_; ++x) {
        if (current[x] == kNone) {
          if (slack[x] == 0 && sends_[x] == 0 && busy_[x] > 0) return;  // must be matched
          continue;
        }
        pairs += x < current[x];
        work += busy_[x] + sends_[x];
      }
      // The repeat (the costly part: every odd set) only for a matching that can still win.
      if (found && std::pair{pairs, work} < std::pair{std::get<0>(best), std::get<1>(best)}) return;
      const bool tie = found && pairs == std::get<0>(best) && work == std::get<1>(best);
      const std::tuple<u64, u64, u64> score{pairs, work,
                                            repeat_of(current, slack, tie ? std::get<2>(best) : 0)};
      if (std::get<2>(score) > 0 && (!found || score > best)) {
        best = score;
        mate = current;
        found = true;
      }
    };
    // Node x is left unmatched or paired with a later free node it has exchanges with.
    const auto enumerate = [&](const auto& self, std::uint32_t x) -> void {
      while (x < n_ && current[x] != kNone) ++x;
      if (x == n_) return weigh();
      self(self, x + 1);
      for (std::uint32_t y = x + 1; y < n_; ++y)
        if (current[y] == kNone && left(x, y) > 0) {
          current[x] = y;
          current[y] = x;
          self(self, x + 1);
          current[x] = current[y] = kNone;
        }
    };
    enumerate(enumerate, 0);
  }

  /// The pairs of the factor with the most pairs left (ties: the next after the last one led).
  std::uint32_t lead(std::uint32_t cursor, std::vector<std::uint32_t>& mate) const {
    const std::uint32_t rounds = factors_.rounds();
    std::uint32_t best = cursor % rounds;
    for (std::uint32_t k = 1; k < rounds; ++k) {
      const std::uint32_t i = (cursor + k) % rounds;
      if (round_pairs_[i] > round_pairs_[best]) best = i;
    }
    for (std::uint32_t x = 0; x < n_; ++x) {
      const std::uint32_t y = factors_.partner(best, x);
      if (y != x && left(x, y) > 0) mate[x] = y;
    }
    return best + 1;
  }

  /// Greedy matching of the nodes still free, in `order` (least slack first): each takes the
  /// first free node after it in `order` that it still has exchanges with.
  void fill(const std::vector<std::uint32_t>& order, std::vector<std::uint32_t>& mate) const {
    std::vector<std::uint32_t> free;
    for (std::uint32_t x : order)
      if (mate[x] == kNone && busy_[x] > 0) free.push_back(x);
    for (std::size_t a = 0; a < free.size(); ++a) {
      const std::uint32_t x = free[a];
      if (mate[x] != kNone) continue;
      for (std::size_t b = a + 1; b < free.size(); ++b) {
        const std::uint32_t y = free[b];
        if (mate[y] == kNone && left(x, y) > 0) {
          mate[x] = y;
          mate[y] = x;
          break;
        }
      }
    }
  }

  /// A node with no slack and no intra-node send left must be matched. When the greedy left one
  /// out, it takes the partner of a matched node it has exchanges with, if that partner can do
  /// without (it has slack or an intra-node send).
  void repair(const std::vector<std::uint32_t>& order, const std::vector<u64>& slack,
              std::vector<std::uint32_t>& mate) const {
    for (const std::uint32_t x : order) {
      if (mate[x] != kNone || slack[x] > 0 || sends_[x] > 0) continue;
      for (const std::uint32_t y : order) {
        const std::uint32_t z = mate[y];
        if (y == x || z == kNone || z == x || left(x, y) == 0) continue;
        if (slack[z] == 0 && sends_[z] == 0) continue;
        mate[z] = kNone;
        mate[y] = x;
        mate[x] = y;
        break;
      }
    }
  }

  void apply(const Pattern& pattern) {
    const u64 c = pattern.repeat;
    for (const auto& [x, y] : pattern.pairs) {
      left_[u64{x} * n_ + y] -= c;
      left_[u64{y} * n_ + x] -= c;
      busy_[x] -= c;
      busy_[y] -= c;
      exchanges_ -= c;
      if (left(x, y) == 0) --round_pairs_[factors_.round(x, y)];
    }
    for (const std::uint32_t x : pattern.alone) sends_[x] -= c;
    phases_ -= c;
  }

  std::uint32_t n_;
  Factors factors_;
  std::vector<u64> left_;  // N x N, symmetric
  std::vector<u64> sends_, busy_, tie_;
  std::vector<u64> round_pairs_;  // pairs with exchanges left, per factor
  u64 phases_ = 0, exchanges_ = 0;
  bool guided_, exhaustive_;
  std::vector<std::uint32_t> odd_sets_;  // exhaustive: every odd set of 3 nodes or more
  std::vector<u64> set_half_;            // floor(|S| / 2): the pairs a phase holds inside
  std::vector<u64> set_left_;            // and the exchanges left inside each
};

/// The search: passes at the bound, then at the bound + 1, then one per further phase count,
/// until one completes (a greedy pass with as many phases as operations cannot get stuck; the
/// search never got that far in any test).
ColoringPlan search(const std::vector<Rank>& sizes) {
  ColoringPlan plan;
  const ClusterBound bound = cluster_bound(sizes);
  plan.bound = bound.value();
  u64 everything = bound.exchanges;
  for (const Rank n : sizes) everything += u64{n} * (n - 1);
  const auto completes = [&](u64 phases, unsigned attempt) {
    ++plan.attempts;
    if (!Pass(sizes, phases, attempt).run([](const Pattern&) {})) return false;
    plan.phases = phases;
    plan.attempt = attempt;
    return true;
  };
  for (u64 phases = plan.bound; phases <= std::max(plan.bound, everything); ++phases) {
    const bool near = phases <= plan.bound + 1;
    for (unsigned a = 0; a < (near ? kAttempts : 1); ++a)
      if (completes(phases, a)) return plan;
    if (near && sizes.size() <= kExhaustiveNodes && completes(phases, kAttempts)) return plan;
  }
  throw std::logic_error("cluster-coloring: no greedy pass completed");
}

std::string label(std::size_t pattern, u64 j, u64 repeat) {
  return "pattern " + std::to_string(pattern) + " (" + std::to_string(j + 1) + " of " +
         std::to_string(repeat) + ")";
}

}  // namespace

std::span<const ParameterSpec> ClusterColoringOptions::parameters() { return kParameters; }

ClusterColoringOptions ClusterColoringOptions::from(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "cluster-coloring");
  const auto* cluster = std::get_if<Cluster>(&header.topology);
  if (!cluster)
    throw InputError("cluster-coloring needs a cluster topology (SMP node sizes), not " +
                     describe(header.topology));
  const u64 n = cluster->node_count();
  check_memory(checked_mul(n * n, sizeof(u64)), "cluster-coloring's table of node pairs");
  return {*cluster, header.collective};
}

ColoringPlan plan_cluster_coloring(const std::vector<Rank>& node_sizes) {
  return search(node_sizes);
}

void cluster_coloring(const ClusterColoringOptions& options, const PhaseSink& out) {
  const Cluster& c = options.cluster;
  const std::vector<Rank>& sizes = c.node_sizes();
  const ColoringPlan plan = search(sizes);
  // The pass that succeeded, again, emitting as it goes: its patterns are O(N^2) of up to N
  // pairs each, more to keep than to make twice.
  Pass pass(sizes, plan.phases, plan.attempt);
  Phase phase;
  std::size_t number = 0;
  pass.run([&](const Pattern& pattern) {
    // Exchange k of pair (X, Y) is processor k / n_Y of X with processor k % n_Y of Y; intra-node
    // send k of X goes from processor k / (n_X - 1) to the k % (n_X - 1)-th of the others.
    for (u64 j = 0; j < pattern.repeat; ++j) {
      phase.clear();
      phase.set_label(label(number, j, pattern.repeat));
      for (const auto& [x, y] : pattern.pairs) {
        const u64 k = u64{sizes[x]} * sizes[y] - pass.left(x, y) + j;
        const Rank u = c.first_rank(x) + static_cast<Rank>(k / sizes[y]);
        const Rank v = c.first_rank(y) + static_cast<Rank>(k % sizes[y]);
        phase.add(u, v, direct_block(options.collective, u, v));
        phase.add(v, u, direct_block(options.collective, v, u));
      }
      for (const std::uint32_t x : pattern.alone) {
        const u64 others = sizes[x] - 1;
        const u64 k = u64{sizes[x]} * others - pass.sends(x) + j;
        const auto from = static_cast<Rank>(k / others), nth = static_cast<Rank>(k % others);
        const Rank u = c.first_rank(x) + from, v = c.first_rank(x) + (nth < from ? nth : nth + 1);
        phase.add(u, v, direct_block(options.collective, u, v));
      }
      out(phase);
    }
    ++number;
  });
}

Claims cluster_coloring_claims(const ClusterColoringOptions& options) {
  const Cluster& c = options.cluster;
  const ClusterBound bound = cluster_bound(c.node_sizes());
  const u64 claimed = bound.value() + 1;

  // After phase t, what each node still has to do (exchanges with a direction not delivered,
  // intra-node messages not delivered) fits in the claimed phases left, and so do the exchanges
  // left, floor(N/2) a phase. Checked at 7 points spread over the bound's phases (each look is
  // O(p^2)); a schedule that falls behind where the counting bound would still allow the claim
  // breaks it.
  if (bound.value() == 0)  // one processor: no phase, nothing to claim about them
    return {.phases = PhaseClaim::exactly(0, "one processor")};
  std::vector<std::size_t> points;
  for (u64 j = 1; j < 8; ++j) {
    const u64 t = std::max<u64>(1, (j * bound.value() + 7) / 8);
    if (points.empty() || points.back() != t - 1) points.push_back(t - 1);
  }
  Invariant on_track{
      "after phase t, every node's remaining operations and the remaining node-pair exchanges "
      "fit in the " +
          std::to_string(claimed) + " - (t + 1) phases left",
      [c, claimed, per_phase = bound.per_phase, points](const Boundary& at, const DataView& data) {
        if (!std::binary_search(points.begin(), points.end(), at.phase))
          return Finding::not_applicable();
        const u64 left = claimed - std::min<u64>(claimed, at.phase + 1);
        const auto& sizes = c.node_sizes();
        std::vector<u64> todo(sizes.size());
        u64 exchanges = 0;
        const Rank p = c.ranks();
        for (Rank u = 0; u < p; ++u)
          for (Rank v = u + 1; v < p; ++v) {
            if (data.delivered(u, v) && data.delivered(v, u)) continue;
            const std::uint32_t X = c.node_of(u), Y = c.node_of(v);
            if (X != Y) {
              ++todo[X];
              ++todo[Y];
              ++exchanges;
            } else {
              todo[X] += !data.delivered(u, v) + !data.delivered(v, u);
            }
          }
        for (std::uint32_t X = 0; X < sizes.size(); ++X)
          if (todo[X] > left)
            return Finding::broken("after phase " + std::to_string(at.phase) + ", node " +
                                   std::to_string(X) + " still has " + std::to_string(todo[X]) +
                                   " operations and " + std::to_string(left) +
                                   " phases are left of the claimed " + std::to_string(claimed));
        if (per_phase > 0 && exchanges > left * per_phase)
          return Finding::broken("after phase " + std::to_string(at.phase) + ", " +
                                 std::to_string(exchanges) + " exchanges between nodes are left, " +
                                 "more than " + std::to_string(left) + " phases of " +
                                 std::to_string(per_phase) + " node pairs hold");
        return Finding::holds();
      }};
  return {.invariants = {std::move(on_track)},
          .phases = PhaseClaim{bound.value(), claimed,
                               "the counting bound max(n_max (p - 1), ceil(exchanges / floor(N/2)))"
                               " = " +
                                   std::to_string(bound.value()) + ", up to one phase more"}};
}

}  // namespace phasecheck::schedules
