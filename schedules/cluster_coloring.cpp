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
// Finding that colouring is the hard part (edge colouring multigraphs is NP-hard in general).
// This file builds it phase pattern by phase pattern (a node matching, intra-node sends on the
// nodes left out, repeated while nothing changes), keeping what remains schedulable in the
// phases left as far as counting can tell:
//   - every node's remaining operations fit in the remaining phases t (its slack);
//   - the remaining exchanges fit in t phases of floor(N/2) pairs each.
// A pass that cannot go on fails. Greedy passes (kAttempts of them; tie-breaks differ, and every
// other one lets the round-robin factor of K_N with the most pairs left lead) cost O(N log N) a
// pattern and complete at the bound on most clusters; they fail on clusters of many equal nodes
// (e.g. 45 nodes of 2 and 4 of 1: 7 phases over). Then the matching pass: each pattern is a
// maximum-weight matching (LEMON's) in which a node with as many exchanges left as phases must be
// matched and pairs weigh by the exchanges left at their nodes, and it also keeps the multigraph's
// odd-set density condition (every odd set S holds its exchanges left in t phases of floor(|S|/2)
// pairs), checked with Padberg and Rao's minimum odd cut; a set it finds overfull limits the repeat
// and makes its pairs weigh more. The two conditions are those of Goldberg-Seymour for what
// remains, short of Delta + 1 (a node may have exchanges in every phase left), so a pass that keeps
// them is not proved to finish, but on every cluster measured (docs/algorithms.md) the matching
// pass finishes at the bound. The search tries the greedy passes, then the matching pass, at the
// bound, then at the bound + 1, and so on; the claim is bound + 1 at most, and the verifier
// holds every schedule to it.

#include "schedules/cluster_coloring.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/cluster_bound.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/matching_polytope.hpp"

namespace phasecheck::schedules {
namespace {

using u64 = std::uint64_t;

constexpr ParameterSpec kParameters[] = {kCollective};

/// Greedy passes tried at each phase count (the bound, the bound + 1) before going further.
constexpr unsigned kAttempts = 64;
/// After them, the matching pass (pass number kAttempts): each pattern a maximum-weight matching,
/// steered by the odd sets that Padberg and Rao's minimum odd cut finds too full.
constexpr unsigned kMatchingPass = kAttempts;
/// The matchings it weighs for one pattern before it gives up.
constexpr unsigned kMatchingRounds = 64;
/// The matching pass runs on clusters of at most this many nodes: its time grows as about N^4
/// (about 100 s at 510 nodes, docs/performance.md); beyond, the greedy passes only.
constexpr std::size_t kMatchingNodes = 512;

/// What the matching pass holds: per node pair its table and the batch's copy of it (16 bytes)
/// and LEMON's two graphs with their maps (64 in all covers them), and the patterns it keeps (at
/// most one a phase, each up to N/2 pairs and N nodes alone at 16 bytes). 490 x 2 + 20 x 1, 510
/// nodes, peaks at 27 MB for the whole `check`.
std::optional<u64> matching_pass_bytes(u64 nodes, u64 phases) {
  const auto tables = checked_mul(nodes * nodes, 64);
  const auto patterns = checked_mul(checked_mul(phases, nodes).value_or(~u64{0}), 24);
  if (!tables || !patterns || *tables > ~u64{0} - *patterns) return std::nullopt;
  return *tables + *patterns;
}

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

/// One node pattern, repeated `repeat` times. `first`: how many of the pair's exchanges (the
/// node's intra-node sends) earlier patterns made.
struct Pattern {
  struct Pair {
    std::uint32_t x = 0, y = 0;  // x < y
    u64 first = 0;
  };
  struct Alone {
    std::uint32_t x = 0;  // makes an intra-node send
    u64 first = 0;
  };
  u64 repeat = 0;
  std::vector<Pair> pairs;
  std::vector<Alone> alone;
};

/// One pass for T phases: greedy (`attempt` < kAttempts: its tie-breaks, and whether the
/// round-robin factor leads), or the matching pass (`attempt` == kMatchingPass). The state is
/// what remains: exchanges per node pair, intra-node sends per node, phases.
class Pass {
 public:
  Pass(const std::vector<Rank>& sizes, u64 phases, unsigned attempt)
      : sizes_(&sizes),
        n_(static_cast<std::uint32_t>(sizes.size())),
        factors_(n_),
        left_(u64{n_} * n_),
        sends_(n_),
        busy_(n_),
        tie_(n_),
        round_pairs_(factors_.rounds()),
        phases_(phases),
        factor_leads_(attempt % 2 == 0),
        by_matching_(attempt == kMatchingPass) {
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

  /// Runs the pass; `on_pattern(pattern)` sees each pattern in order. False when the pass gets
  /// stuck before the last operation.
  template <class F>
  bool run(F&& on_pattern) {
    if (by_matching_) return run_batched(on_pattern);
    for (Pattern pattern;;) {
      const Step s = step(pattern, false);
      if (s != Step::pattern) return s == Step::done;
      on_pattern(pattern);
    }
  }

 private:
  static constexpr std::uint32_t kNone = ~0u;

  /// Exchanges left between X and Y.
  u64 left(std::uint32_t x, std::uint32_t y) const { return left_[u64{x} * n_ + y]; }

  enum class Step { pattern, done, stuck };

  /// Chooses the next pattern and applies it. `check_cuts`: the matching pass makes sure with a
  /// minimum odd cut that the pattern's repeat overfills no odd set (run_batched says when).
  Step step(Pattern& pattern, bool check_cuts) {
    std::vector<std::uint32_t> order, mate(n_, kNone);
    std::vector<u64> slack(n_);
    for (std::uint32_t x = 0; x < n_; ++x) {
      const u64 d = busy_[x] + sends_[x];
      if (d > phases_) return Step::stuck;
      slack[x] = phases_ - d;
      if (d > 0) order.push_back(x);
    }
    if (order.empty()) return Step::done;
    if (by_matching_) {
      if (!match(slack, mate, check_cuts)) return Step::stuck;
    } else {
      std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (slack[a] != slack[b]) return slack[a] < slack[b];
        const u64 da = busy_[a] + sends_[a], db = busy_[b] + sends_[b];
        if (da != db) return da > db;
        return tie_[a] != tie_[b] ? tie_[a] < tie_[b] : a < b;
      });
      if (factor_leads_ && factors_.rounds() > 0) cursor_ = lead(cursor_, mate);
      fill(order, mate);
      repair(order, slack, mate);
    }
    pattern.pairs.clear();
    pattern.alone.clear();
    pattern.repeat = repeat_of(mate, slack, &pattern);
    if (pattern.repeat == 0) return Step::stuck;
    apply(pattern);
    return Step::pattern;
  }

  /// The matching pass's run. An odd set's room (t (|S| - 1) - 2 x its exchanges left, for t
  /// phases left) never grows from one pattern to the next: a pattern of c phases with k of its
  /// pairs inside S takes c (|S| - 1 - 2k) >= 0 from it. So when no odd set is overfull after a
  /// batch of patterns, none was after any pattern of it, and the batch is exactly what a check
  /// after each pattern would have chosen. The batch doubles while that holds; when it does not
  /// (or the batch got stuck), the pass goes back to the batch's start and searches the batch by
  /// halves for the pattern that overfills a set, which it then chooses again with the check
  /// that finds the set and steers around it: about log(patterns) cuts per overfull set found,
  /// instead of one per pattern.
  template <class F>
  bool run_batched(F&& on_pattern) {
    std::vector<Pattern> held;
    // batch 0: the next pattern, checked. within: the patterns from here that hold the first
    // one that overfills a set (0: none known).
    for (u64 batch = 1, within = 0;;) {
      std::optional<Pass> start;
      if (batch > 0) start.emplace(*this);
      held.clear();
      Step s = Step::pattern;
      for (u64 i = 0; i < std::max<u64>(batch, 1) && s == Step::pattern; ++i) {
        held.emplace_back();
        s = step(held.back(), batch == 0);
      }
      if (s != Step::pattern) held.pop_back();
      if (batch > 0 && (s == Step::stuck || !odd_sets_fit())) {
        *this = std::move(*start);
        within = batch;
        batch /= 2;
        continue;
      }
      for (Pattern& pattern : held) on_pattern(std::move(pattern));
      if (s != Step::pattern) return s == Step::done;
      if (batch == 0) {
        within = 0;
        batch = 1;
      } else if (within > 0) {
        within -= batch;  // the overfilling pattern is among the next `within`
        batch = std::min(within, 2 * batch);
      } else {
        batch *= 2;
      }
    }
  }

  /// Every odd set S of nodes holds its exchanges left in the phases left, floor(|S|/2) a phase.
  bool odd_sets_fit() const {
    return n_ < 3 || fits(overfull(std::vector<std::uint32_t>(n_, kNone), 0), phases_);
  }

  /// The minimum odd cut leaves room in `phases`: no odd set of 3 nodes or more is overfull (a
  /// single node's cut is its exchanges plus its spare phases, `phases` exactly).
  static bool fits(const OddCut& cut, u64 phases) {
    return cut.set.size() < 3 || cut.value >= phases;
  }

  /// An odd set of nodes that the matching pass found too full (its exchanges left inside close
  /// to floor(|S|/2) a phase for the phases left).
  struct OddSet {
    std::vector<char> member;  // by node
    u64 half = 0;              // floor(|S| / 2): the pairs a phase holds inside
    std::int64_t bonus = 0;    // added to the weight of the pairs inside it
  };

  /// How often the pattern of `mate` (pairs; unmatched nodes make an intra-node send if they
  /// have one, else idle) can repeat: until a pair or a node's sends run out, an idle node's slack
  /// does, or the exchanges left stop fitting in floor(N/2) pairs a phase, or those inside one
  /// of full_sets_ in floor(|S|/2) pairs a phase. `pattern`, when given, receives the pairs and
  /// the nodes alone (in the same loop: this runs once a pattern, over every node).
  u64 repeat_of(const std::vector<std::uint32_t>& mate, const std::vector<u64>& slack,
                Pattern* pattern = nullptr) const {
    u64 repeat = phases_, matched = 0;
    for (std::uint32_t x = 0; x < n_; ++x) {
      if (mate[x] != kNone) {
        if (x < mate[x]) {
          repeat = std::min(repeat, left(x, mate[x]));
          if (pattern)
            pattern->pairs.push_back(
                {x, mate[x], u64{(*sizes_)[x]} * (*sizes_)[mate[x]] - left(x, mate[x])});
          ++matched;
        }
      } else if (sends_[x] > 0) {
        repeat = std::min(repeat, sends_[x]);
        if (pattern)
          pattern->alone.push_back({x, u64{(*sizes_)[x]} * ((*sizes_)[x] - 1) - sends_[x]});
      } else {
        repeat = std::min(repeat, slack[x]);  // idle: its slack shrinks
      }
    }
    repeat = std::min(repeat, set_limit(exchanges_, n_ / 2, matched));
    for (const OddSet& set : full_sets_) {
      const auto [inside_left, inside] = inside_of(set, mate);
      repeat = std::min(repeat, set_limit(inside_left, set.half, inside));
    }
    return repeat;
  }

  /// How often a pattern with `inside` pairs in a set that holds h pairs a phase can repeat
  /// while the set's `inside_left` exchanges still fit in the phases left: each phase with fewer
  /// than h inside loses the difference. 0 when already overfull (never in a state a pass
  /// accepted).
  u64 set_limit(u64 inside_left, u64 h, u64 inside) const {
    if (inside >= h) return phases_;
    if (inside_left > phases_ * h) return 0;
    return (phases_ * h - inside_left) / (h - inside);
  }

  /// The exchanges left inside `set`, and the pairs of `mate` inside it.
  std::pair<u64, u64> inside_of(const OddSet& set, const std::vector<std::uint32_t>& mate) const {
    u64 inside_left = 0, inside = 0;
    for (std::uint32_t x = 0; x < n_; ++x) {
      if (!set.member[x]) continue;
      for (std::uint32_t y = x + 1; y < n_; ++y)
        if (set.member[y]) inside_left += left(x, y);
      inside += mate[x] != kNone && x < mate[x] && set.member[mate[x]];
    }
    return {inside_left, inside};
  }

  /// The matching pass's choice: a maximum-weight matching of the node pairs with exchanges left
  /// that weighs first the nodes that must be matched (as many exchanges left as phases), then
  /// the pairs inside the odd sets found too full, then the exchanges left at both nodes. Its
  /// repeat must leave every odd set S able to hold the exchanges inside it, floor(|S|/2) a phase
  /// (the chromatic index's density bound, for what remains): Padberg and Rao's minimum odd cut
  /// finds a set that would not; it joins full_sets_, whose limits repeat_of applies from then
  /// on, and when even one phase of the matching overfills a set, the pairs inside it weigh more
  /// in the next matching; when the set limit leaves not even one phase, and no set does, every
  /// pair weighs more (pairs_bonus_: the exchanges left need more pairs a phase). False when the
  /// nodes that must be matched cannot all be (the maximum-weight matching covers them whenever
  /// some matching does), or no matching of kMatchingRounds fits.
  bool match(const std::vector<u64>& slack, std::vector<std::uint32_t>& mate, bool check_cuts) {
    std::vector<WeightedPair> pairs;
    for (unsigned round = 0; round < kMatchingRounds; ++round) {
      u64 bonuses = static_cast<u64>(pairs_bonus_);
      for (const OddSet& set : full_sets_) bonuses += static_cast<u64>(set.bonus);
      // `ordinary` is more than any pair's weight without `must`; a matching has <= n/2 pairs.
      // LEMON works with 4 x the weights: every weight stays below 2^59 (phases below 2^40 on
      // every cluster phasecheck takes; this gives up long before a weight could wrap).
      const u64 ordinary = 2 * phases_ + bonuses + 1;
      if (ordinary > (u64{1} << 57) / (n_ / 2 + 1)) return false;
      const auto must = static_cast<std::int64_t>(ordinary * (n_ / 2 + 1));
      pairs.clear();
      for (std::uint32_t x = 0; x < n_; ++x)
        for (std::uint32_t y = x + 1; y < n_; ++y) {
          if (left(x, y) == 0) continue;
          std::int64_t w = static_cast<std::int64_t>(busy_[x] + busy_[y]) + 1 + pairs_bonus_;
          w += must * ((busy_[x] == phases_) + (busy_[y] == phases_));
          for (const OddSet& set : full_sets_)
            if (set.member[x] && set.member[y]) w += set.bonus;
          pairs.push_back({x, y, w});
        }
      const std::vector<std::uint32_t> m = max_weight_matching(n_, pairs);
      for (std::uint32_t x = 0; x < n_; ++x) {
        mate[x] = m[x] == x ? kNone : m[x];
        if (mate[x] == kNone && busy_[x] == phases_) return false;
      }
      u64 repeat = repeat_of(mate, slack);
      if (repeat > 0 && !check_cuts) return true;
      while (repeat > 0) {
        const OddCut cut = overfull(mate, repeat);
        if (fits(cut, phases_ - repeat)) return true;
        OddSet set{std::vector<char>(n_, 0), cut.set.size() / 2, 0};
        for (const std::uint32_t x : cut.set) set.member[x] = 1;
        full_sets_.push_back(std::move(set));
        // The set overfills after `repeat` phases, so its limit is below `repeat`; a repeat that
        // did not shrink would mean a state already overfull, which no pass accepts.
        const u64 shorter = repeat_of(mate, slack);
        if (shorter >= repeat) return false;
        repeat = shorter;
      }
      // One phase of this matching is too many for some set: its pairs weigh more next time.
      const std::int64_t bonus_step = static_cast<std::int64_t>(phases_ / 8) + 1;
      bool bumped = false;
      for (OddSet& set : full_sets_) {
        const auto [inside_left, inside] = inside_of(set, mate);
        if (set_limit(inside_left, set.half, inside) == 0) {
          set.bonus += bonus_step;
          bumped = true;
        }
      }
      if (!bumped) pairs_bonus_ += bonus_step;  // the exchanges left need more pairs a phase
    }
    return false;
  }

  /// Padberg and Rao's minimum odd cut of what would remain after `repeat` phases of `mate`.
  OddCut overfull(const std::vector<std::uint32_t>& mate, u64 repeat) const {
    const u64 phases = phases_ - repeat;
    std::vector<u64> capacity(u64{n_} * n_), spare(n_);
    for (std::uint32_t x = 0; x < n_; ++x) {
      for (std::uint32_t y = 0; y < n_; ++y)
        capacity[u64{x} * n_ + y] = left(x, y) - (mate[x] == y ? repeat : 0);
      spare[x] = phases - (busy_[x] - (mate[x] != kNone ? repeat : 0));
    }
    return min_odd_cut(n_, capacity, spare);
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
    for (const auto& [x, y, first] : pattern.pairs) {
      left_[u64{x} * n_ + y] -= c;
      left_[u64{y} * n_ + x] -= c;
      busy_[x] -= c;
      busy_[y] -= c;
      exchanges_ -= c;
      if (left(x, y) == 0) --round_pairs_[factors_.round(x, y)];
    }
    for (const auto& alone : pattern.alone) sends_[alone.x] -= c;
    phases_ -= c;
  }

  const std::vector<Rank>* sizes_;
  std::uint32_t n_;
  Factors factors_;
  std::uint32_t cursor_ = 0;  // the factor after the one that led last
  std::vector<u64> left_;     // N x N, symmetric
  std::vector<u64> sends_, busy_, tie_;
  std::vector<u64> round_pairs_;  // pairs with exchanges left, per factor
  u64 phases_ = 0, exchanges_ = 0;
  bool factor_leads_, by_matching_;
  std::int64_t pairs_bonus_ = 0;   // the matching pass: added to every pair's weight
  std::vector<OddSet> full_sets_;  // the matching pass: odd sets found too full so far
};

/// The search: passes at the bound, then at the bound + 1, then one per further phase count,
/// until one completes (a greedy pass with as many phases as operations cannot get stuck; the
/// search never got that far in any test). The matching pass's patterns are kept when it is the
/// one (patterns x N/2 pairs, at most phases x N/2): running it again would double its time,
/// where a greedy pass is cheaper to run again than its patterns are to keep.
struct Coloring {
  ColoringPlan plan;
  std::vector<Pattern> patterns;  // the matching pass's, when it completed
};

Coloring search(const std::vector<Rank>& sizes) {
  Coloring coloring;
  ColoringPlan& plan = coloring.plan;
  const ClusterBound bound = cluster_bound(sizes);
  plan.bound = bound.value();
  u64 everything = bound.exchanges;
  for (const Rank n : sizes) everything += u64{n} * (n - 1);
  const auto completes = [&](u64 phases, unsigned attempt) {
    ++plan.attempts;
    std::vector<Pattern>& kept = coloring.patterns;
    kept.clear();
    if (!Pass(sizes, phases, attempt).run([&](auto&& pattern) {
          if (attempt == kMatchingPass) kept.push_back(std::forward<decltype(pattern)>(pattern));
        }))
      return false;
    plan.phases = phases;
    plan.attempt = attempt;
    return true;
  };
  for (u64 phases = plan.bound; phases <= std::max(plan.bound, everything); ++phases) {
    const bool near = phases <= plan.bound + 1;
    for (unsigned a = 0; a < (near ? kAttempts : 1); ++a)
      if (completes(phases, a)) return coloring;
    if (near && sizes.size() <= kMatchingNodes) {
      check_memory(matching_pass_bytes(sizes.size(), phases), "cluster-coloring's matching pass");
      if (completes(phases, kMatchingPass)) return coloring;
    }
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
  // The greedy passes' table of node pairs; the matching pass checks its own before it runs.
  check_memory(checked_mul(n * n, sizeof(u64)), "cluster-coloring's table of node pairs");
  return {*cluster, header.collective};
}

ColoringPlan plan_cluster_coloring(const std::vector<Rank>& node_sizes) {
  return search(node_sizes).plan;
}

void cluster_coloring(const ClusterColoringOptions& options, const PhaseSink& out) {
  const Cluster& c = options.cluster;
  const std::vector<Rank>& sizes = c.node_sizes();
  const Coloring coloring = search(sizes);
  Phase phase;
  std::size_t number = 0;
  const auto emit = [&](const Pattern& pattern) {
    // Exchange k of pair (X, Y) is processor k / n_Y of X with processor k % n_Y of Y; intra-node
    // send k of X goes from processor k / (n_X - 1) to the k % (n_X - 1)-th of the others.
    for (u64 j = 0; j < pattern.repeat; ++j) {
      phase.clear();
      phase.set_label(label(number, j, pattern.repeat));
      for (const auto& [x, y, first] : pattern.pairs) {
        const u64 k = first + j;
        const Rank u = c.first_rank(x) + static_cast<Rank>(k / sizes[y]);
        const Rank v = c.first_rank(y) + static_cast<Rank>(k % sizes[y]);
        phase.add(u, v, direct_block(options.collective, u, v));
        phase.add(v, u, direct_block(options.collective, v, u));
      }
      for (const auto& [x, first] : pattern.alone) {
        const u64 others = sizes[x] - 1;
        const u64 k = first + j;
        const auto from = static_cast<Rank>(k / others), nth = static_cast<Rank>(k % others);
        const Rank u = c.first_rank(x) + from, v = c.first_rank(x) + (nth < from ? nth : nth + 1);
        phase.add(u, v, direct_block(options.collective, u, v));
      }
      out(phase);
    }
    ++number;
  };
  if (coloring.plan.attempt == kMatchingPass) {
    for (const Pattern& pattern : coloring.patterns) emit(pattern);
  } else {  // the greedy pass that succeeded, again, emitting as it goes
    Pass(sizes, coloring.plan.phases, coloring.plan.attempt).run(emit);
  }
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
