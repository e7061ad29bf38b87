#include "verify/optimal.hpp"

#include <z3++.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "verify/bounds.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::verify {
namespace {

using Message = std::pair<Rank, Rank>;  // (src, dst)

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string answer_text(z3::check_result a, z3::solver& s) {
  return a == z3::sat ? "sat" : a == z3::unsat ? "unsat" : "unknown (" + s.reason_unknown() + ")";
}

/// A schedule of `phases` empty phases made by `algorithm` on `model`, to be filled in.
Schedule blank(const char* algorithm, Collective c, const Topology& model, std::uint64_t phases) {
  Schedule s;
  s.header.algorithm = algorithm;
  s.header.collective = c;
  s.header.topology = model;
  s.phases.resize(phases);
  return s;
}

void set_timeout(z3::context& ctx, z3::solver& solver, double seconds) {
  z3::params params(ctx);
  // Milliseconds, unsigned (toolchain.md); at least 1, since 0 would mean no limit.
  params.set("timeout", std::max(1u, static_cast<unsigned>(std::min(seconds * 1000, 4e9))));
  // A backstop: Z3 4.8.12 can lose a wall-clock timeout that fires very early in a check (a
  // 1 ms timeout once ran for 15 minutes under load). The resource limit is counted, not timed:
  // this machine does 0.3 to 3 million units a second on these encodings, so 10 million per
  // second of timeout only ends a call the clock failed to end.
  params.set("rlimit", static_cast<unsigned>(std::clamp(seconds * 1e7, 2e5, 4e9)));
  solver.set(params);
}

/// At most `k` of `v` true, as one cardinality constraint or (k = 1, pairwise) one clause per pair.
void at_most(z3::solver& solver, const z3::expr_vector& v, unsigned k, Encoding e) {
  if (v.size() <= k) return;
  if (e == Encoding::smtlib && k > 1) {
    z3::context& ctx = v.ctx();
    z3::expr sum = ctx.int_val(0);
    for (unsigned i = 0; i < v.size(); ++i)
      sum = sum + z3::ite(v[i], ctx.int_val(1), ctx.int_val(0));
    solver.add(sum <= ctx.int_val(k));
    return;
  }
  if (e == Encoding::cardinality || k != 1) {
    solver.add(z3::atmost(v, k));
    return;
  }
  for (unsigned i = 0; i < v.size(); ++i)
    for (unsigned j = i + 1; j < v.size(); ++j) solver.add(!v[i] || !v[j]);
}

void exactly_one(z3::solver& solver, const z3::expr_vector& v, Encoding e) {
  solver.add(z3::mk_or(v));
  at_most(solver, v, 1, e);
}

}  // namespace

std::vector<Message> conflict_clique(const Topology& model) {
  const Rank p = ranks(model);
  std::vector<Message> clique;
  if (p < 2) return clique;
  const auto from = [&](auto in_source) {
    for (Rank s = 0; s < p; ++s)
      for (Rank d = 0; d < p; ++d)
        if (s != d && in_source(s)) clique.push_back({s, d});
  };
  if (const auto* f = std::get_if<FullyConnected>(&model)) {
    // One port: everything rank 0 sends. More ports: no two messages conflict.
    if (f->ports == 1)
      from([](Rank s) { return s == 0; });
    else
      clique.push_back({0, 1});
  } else if (const auto* c = std::get_if<Cluster>(&model)) {
    // Every message sent from one node is its own operation of that node (an exchange covers
    // m_uv and m_vu, never two messages in the same direction): the largest node's sends.
    const auto& sizes = c->node_sizes();
    const auto big =
        static_cast<std::uint32_t>(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
    from([&](Rank s) { return c->node_of(s) == big; });
  } else {
    // All messages through the busiest directed link of capacity 1 (the first of the busiest,
    // for determinism). A link of capacity c > 1 (a graph's parallel links or host ports) lets c
    // of them share a phase, so its messages are no clique; when no link of capacity 1 carries
    // any, one message is.
    std::map<LinkId, std::vector<Message>> users;
    for (Rank s = 0; s < p; ++s)
      for (Rank d = 0; d < p; ++d)
        if (s != d) for_each_link(model, s, d, [&](LinkId l) { users[l].push_back({s, d}); });
    for (const auto& [link, through] : users)
      if (link_capacity(model, link) == 1 && through.size() > clique.size()) clique = through;
    if (clique.empty()) clique.push_back({0, 1});
  }
  return clique;
}

namespace {

/// The direct-schedule instance of a model with at most T phases, in one incremental solver.
/// With `one_phase`, only the capacity constraints of a single phase and no "every message is
/// sent" constraint: the instance that says which messages may share a phase.
class DirectInstance {
 public:
  DirectInstance(const Topology& model, const OptimalOptions& o, std::vector<Message> clique,
                 std::uint64_t T, bool one_phase = false)
      : model_(model), o_(o), T_(one_phase ? 1 : T), solver_(ctx_) {
    if (one_phase) T = 1;
    const Rank p = ranks(model);
    for (Rank s = 0; s < p; ++s)
      for (Rank d = 0; d < p; ++d)
        if (s != d) {
          index_[{s, d}] = messages_.size();
          messages_.push_back({s, d});
        }
    set_timeout(ctx_, solver_, o.timeout);
    for (std::size_t m = 0; m < messages_.size(); ++m) {
      z3::expr_vector row(ctx_);
      for (std::uint64_t t = 0; t < T; ++t)
        row.push_back(
            ctx_.bool_const(("x_" + std::to_string(m) + "_" + std::to_string(t)).c_str()));
      if (!one_phase) exactly_one(solver_, row, o.encoding);
      x_.push_back(row);
    }
    for (std::size_t i = 0; i < clique.size() && i < T; ++i)
      solver_.add(X(index_.at(clique[i]), i));
    for (std::uint64_t t = 0; t < T; ++t) add_capacity(t);
  }

  /// SAT, UNSAT or unknown with phases t >= k off (assumptions), logged in `steps`.
  z3::check_result check(std::uint64_t k, std::vector<OptimalStep>& steps) {
    z3::expr_vector off(ctx_);
    for (std::size_t m = 0; m < messages_.size(); ++m)
      for (std::uint64_t t = k; t < T_; ++t) off.push_back(!X(m, t));
    const auto start = std::chrono::steady_clock::now();
    const z3::check_result answer = solver_.check(off);
    steps.push_back({k, answer_text(answer, solver_), seconds_since(start)});
    return answer;
  }

  std::string reason_unknown() { return solver_.reason_unknown(); }

  /// For a one-phase instance: whether the solver shows that messages a and b cannot share a
  /// phase (UNSAT with both in it).
  z3::check_result together(const Message& a, const Message& b) {
    z3::expr_vector both(ctx_);
    both.push_back(X(index_.at(a), 0));
    both.push_back(X(index_.at(b), 0));
    return solver_.check(both);
  }

  /// The schedule of the last SAT answer, in k phases.
  Schedule witness(std::uint64_t k) const {
    const z3::model mod = solver_.get_model();
    Schedule s = blank("optimal", o_.collective, model_, k);
    for (std::size_t m = 0; m < messages_.size(); ++m)
      for (std::uint64_t t = 0; t < k; ++t)
        if (mod.eval(X(m, t), true).is_true()) {
          const auto [src, dst] = messages_[m];
          s.phases[t].add(src, dst, direct_block(o_.collective, src, dst));
          break;
        }
    for (std::uint64_t t = 0; t < k; ++t) s.phases[t].set_label("phase " + std::to_string(t));
    return s;
  }

  /// The instance as SMT-LIB2, with `status` ("sat", "unsat" or "unknown") as the expected
  /// answer on the first line.
  void write_smt2(const std::string& path, const std::string& status) {
    write_output(path, [&](std::ostream& f) {
      f << "; phasecheck optimal: expected " << status << ": " << describe(model_) << ", direct "
        << to_string(o_.collective) << ", at most " << T_ << (T_ == 1 ? " phase\n" : " phases\n")
        << "(set-logic "
        << (o_.encoding == Encoding::smtlib && needs_arithmetic() ? "QF_LIA" : "QF_UF") << ")\n"
        << solver_.to_smt2(status.c_str());
    });
  }

 private:
  z3::expr X(std::size_t m, std::uint64_t t) const { return x_[m][static_cast<int>(t)]; }
  bool needs_arithmetic() const {
    const auto* f = std::get_if<FullyConnected>(&model_);
    const auto* g = std::get_if<Graph>(&model_);
    return (f && f->ports > 1) || (g && !g->unit_capacity());
  }

  void add_capacity(std::uint64_t t) {
    const auto push = [this](auto& groups, auto key, const z3::expr& e) {
      groups.try_emplace(key, ctx_).first->second.push_back(e);
    };
    if (const auto* f = std::get_if<FullyConnected>(&model_)) {
      std::map<Rank, z3::expr_vector> out, in;
      for (std::size_t m = 0; m < messages_.size(); ++m) {
        push(out, messages_[m].first, X(m, t));
        push(in, messages_[m].second, X(m, t));
      }
      for (auto& [r, v] : out) at_most(solver_, v, f->ports, o_.encoding);
      for (auto& [r, v] : in) at_most(solver_, v, f->ports, o_.encoding);
    } else if (const auto* c = std::get_if<Cluster>(&model_)) {
      // One operation per SMP node: an exchange between two nodes (either direction or both)
      // or one intra-node message.
      std::map<std::uint32_t, z3::expr_vector> ops;
      for (std::size_t m = 0; m < messages_.size(); ++m) {
        const auto [u, v] = messages_[m];
        const std::uint32_t U = c->node_of(u), V = c->node_of(v);
        if (U == V) {
          push(ops, U, X(m, t));
          continue;
        }
        if (u > v) continue;  // the pair {u, v} once
        const z3::expr a = ctx_.bool_const(
            ("a_" + std::to_string(u) + "_" + std::to_string(v) + "_" + std::to_string(t)).c_str());
        solver_.add(z3::implies(X(m, t), a));
        solver_.add(z3::implies(X(index_.at({v, u}), t), a));
        push(ops, U, a);
        push(ops, V, a);
      }
      for (auto& [node, v] : ops) at_most(solver_, v, 1, o_.encoding);
    } else {
      std::map<LinkId, z3::expr_vector> users;
      for (std::size_t m = 0; m < messages_.size(); ++m)
        for_each_link(model_, messages_[m].first, messages_[m].second,
                      [&](LinkId l) { push(users, l, X(m, t)); });
      for (auto& [l, v] : users) at_most(solver_, v, link_capacity(model_, l), o_.encoding);
    }
  }

  const Topology& model_;
  const OptimalOptions& o_;
  std::uint64_t T_;
  std::vector<Message> messages_;
  std::map<Message, std::size_t> index_;
  z3::context ctx_;
  z3::solver solver_;
  std::vector<z3::expr_vector> x_;
};

}  // namespace

// A certified clique of c messages proves that fewer than c phases are impossible, and makes
// fixing message i of it in phase i sound (verify/optimal.hpp).
std::string certify_clique(const Topology& model, const std::vector<Message>& clique,
                           double timeout) {
  OptimalOptions o;
  o.timeout = timeout;
  DirectInstance phase(model, o, {}, 1, true);
  for (std::size_t i = 0; i < clique.size(); ++i)
    for (std::size_t j = i + 1; j < clique.size(); ++j) {
      const z3::check_result a = phase.together(clique[i], clique[j]);
      if (a == z3::unsat) continue;
      const auto text = [](const Message& m) {
        return std::to_string(m.first) + "->" + std::to_string(m.second);
      };
      return "messages " + text(clique[i]) + " and " + text(clique[j]) +
             (a == z3::sat ? " can share a phase"
                           : " not decided (" + phase.reason_unknown() + ")");
    }
  return "";
}

namespace {

OptimalResult search(const Topology& model, const OptimalOptions& o) {
  const Rank p = ranks(model);
  check_ranks(p, kMaxOptimalRanks, "optimal", kLargerMachines);
  const std::uint64_t messages = std::uint64_t(p) * (p - 1);
  OptimalResult result;
  result.lower = o.lower;
  result.upper = o.upper ? o.upper : messages;
  if (messages == 0) {
    result.lower = result.upper = 0;
    result.proven = true;
    result.witness = blank("optimal", o.collective, model, 0);
    result.why = "one rank: nothing to send";
    return result;
  }
  std::vector<Message> clique = conflict_clique(model);
  if (o.symmetry == Symmetry::none) clique.clear();
  if (o.symmetry == Symmetry::first) clique.resize(1);
  if (clique.size() > 1) {
    const auto start = std::chrono::steady_clock::now();
    const std::string failure = certify_clique(model, clique, o.timeout);
    result.clique_seconds = seconds_since(start);
    if (!failure.empty()) {
      result.why = "the conflict clique is not certified: " + failure +
                   " (a bug in conflict_clique or in the encoding)";
      return result;  // unknown: fixing an uncertified clique would be unsound
    }
  }
  result.clique = clique.size();
  const std::uint64_t T = std::max<std::uint64_t>(result.upper, clique.size());
  DirectInstance instance(model, o, clique, T);

  // Up from the best lower bound: the first SAT is the optimum, and the UNSAT just below (or the
  // bound itself) is the proof.
  const std::uint64_t start = std::max<std::uint64_t>({o.lower, clique.size(), 1});
  result.lower = start;
  for (std::uint64_t k = start; k <= T; ++k) {
    const z3::check_result answer = instance.check(k, result.steps);
    if (answer == z3::unsat) {
      result.lower = k + 1;
      continue;
    }
    if (answer != z3::sat) {
      result.why = "the solver gave up at " + std::to_string(k) + " phases (" +
                   instance.reason_unknown() + "): the optimum is between " +
                   std::to_string(result.lower) + " and " + std::to_string(result.upper);
      return result;  // unknown: never reported as proven
    }
    // Every T below k is UNSAT or below a proven lower bound: k is the optimum.
    result.upper = result.lower = k;
    result.witness = instance.witness(k);
    result.proven = true;
    if (k > start) {
      result.why = "SAT at " + std::to_string(k) + ", UNSAT at " + std::to_string(k - 1);
      return result;
    }
    result.why = "SAT at the lower bound " + std::to_string(k) + " (" +
                 (k == o.lower ? "docs/bounds.md" : "a clique of conflicting messages") + ")";
    if (o.confirm_bound && k > 1 && clique.size() >= k) {
      // k messages that pairwise conflict, each pair checked by the solver: k - 1 phases cannot
      // hold them. The proof is the solver's, independent of docs/bounds.md.
      result.steps.push_back({k - 1, "unsat (certified clique)", result.clique_seconds});
      result.why = "SAT at " + std::to_string(k) + ", UNSAT at " + std::to_string(k - 1) + ": " +
                   std::to_string(clique.size()) +
                   " messages pairwise conflict, each pair checked by the solver";
    } else if (o.confirm_bound && k > 1) {
      // The bound alone proves it; the solver confirms it independently.
      const z3::check_result below = instance.check(k - 1, result.steps);
      if (below == z3::sat) {
        result.proven = false;
        result.why = "the solver found a schedule in " + std::to_string(k - 1) +
                     " phases, below the lower bound " + std::to_string(k) +
                     ": the bound or the encoding is wrong";
      } else if (below == z3::unsat) {
        result.why = "SAT at " + std::to_string(k) + ", UNSAT at " + std::to_string(k - 1);
      } else {
        result.why += "; the solver could not confirm the bound below it in time";
      }
    }
    return result;
  }
  // Not even the upper bound: the schedule it came from was not a direct one.
  result.why = "no direct schedule has " + std::to_string(T) + " phases or fewer";
  return result;
}

}  // namespace

CheckResult check_witness(const Schedule& s, const Topology& model,
                          const std::function<std::string(const Counts&)>& expect) {
  const Report r = verify(s, model);
  CheckResult c{CheckId::witness, Verdict::pass, {}, {}};
  std::string broken;
  for (const CheckId id : {CheckId::delivery, CheckId::contention})
    if (!r.passed(id))
      broken += std::string(broken.empty() ? "" : "; ") + std::string(to_string(id)) + " fails";
  if (const std::string e = expect(r.counts); !e.empty())
    broken += (broken.empty() ? "" : "; ") + e;
  if (broken.empty()) {
    c.summary = "the verifier passes it: delivery and contention, C1 " +
                std::to_string(r.counts.c1) + ", C2 " + std::to_string(r.counts.c2);
    return c;
  }
  c.verdict = Verdict::fail;
  c.summary = broken + ": " + r.broken_claims(true);
  for (const CheckResult& k : r.checks)
    if (k.verdict == Verdict::fail && k.counterexample) {
      c.counterexample = k.counterexample;
      break;
    }
  return c;
}

OptimalResult optimal_phases(const Topology& model, const OptimalOptions& o) {
  OptimalResult result = search(model, o);
  if (result.witness) {
    const std::uint64_t upper = result.upper;
    result.witness_check = check_witness(*result.witness, model, [upper](const Counts& c) {
      std::string e;
      if (!c.direct) e = "not direct";
      if (c.phases > upper)
        e += (e.empty() ? "" : "; ") + std::to_string(c.phases) + " phases, more than " +
             std::to_string(upper);
      return e;
    });
    if (result.witness_check.verdict != Verdict::pass && result.proven) {
      result.proven = false;
      result.why = "the solver's schedule in " + std::to_string(upper) +
                   " phases fails the verifier (" + result.witness_check.summary +
                   "): a bug in the encoding, nothing is proven";
    }
  }
  if (!o.smt2.empty() && ranks(model) > 1) {
    OptimalOptions portable = o;
    portable.encoding = Encoding::smtlib;
    const bool below = result.proven && result.upper > 1;
    const std::uint64_t T = below ? result.upper - 1 : std::max<std::uint64_t>(result.lower, 1);
    std::vector<Message> fixed = conflict_clique(model);
    fixed.resize(o.symmetry == Symmetry::none ? 0 : 1);
    DirectInstance instance(model, portable, fixed, T);
    instance.write_smt2(o.smt2, below ? "unsat" : result.proven ? "sat" : "unknown");
  }
  return result;
}

namespace {

/// Forwarding schedules of the index (alltoall) or concatenation (allgather) problem on n ranks
/// with k ports in exactly R rounds, in one solver. Variables:
///   h[b][r][t]    rank r holds block b after round t (t = 0: the origin only);
///   s[b][u][v][t] u sends b to v in round t (1 <= t <= R);
///   e[u][v][t]    u sends to v in round t (a port on each side);
///   c[t][j]       the largest transfer of round t has at least j blocks (unary, j = 1..B).
/// Pruning that keeps an optimum (each removes sends that can be dropped without raising C1, C2
/// or a port count): no send to a rank that already holds the block, and in the last round only
/// to a destination of the block. Rank symmetry: the problem is invariant under renaming ranks, so
/// the ranks 0 sends to in round 1 can be taken as 1, 2, ..., j.
class ForwardingInstance {
 public:
  ForwardingInstance(Rank n, unsigned k, std::uint64_t R, const ForwardingOptions& o)
      : R_(R), o_(o), solver_(ctx_) {
    set_timeout(ctx_, solver_, o.timeout);
    for (Rank origin = 0; origin < n; ++origin) {
      if (o.collective == Collective::allgather) {
        blocks_.push_back(direct_block(o.collective, origin, 0));
        continue;
      }
      for (Rank d = 0; d < n; ++d)
        if (d != origin) blocks_.push_back(Block{origin, d});
    }
    // The largest useful transfer: every block the receiver lacks at the start.
    B_ = o.max_transfer ? o.max_transfer
                        : blocks_.size() - (o.collective == Collective::alltoall ? n - 1 : 0);
    B_ = std::min<std::uint64_t>(B_, blocks_.size());

    const auto name = [](const char* v, std::initializer_list<std::uint64_t> ix) {
      std::string s = v;
      for (const auto i : ix) s += "_" + std::to_string(i);
      return s;
    };
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      for (Rank r = 0; r < n; ++r)
        for (std::uint64_t t = 0; t <= R; ++t) {
          const z3::expr v = ctx_.bool_const(name("h", {b, r, t}).c_str());
          h_.emplace(Key{b, r, 0, t}, v);
          if (t == 0) solver_.add(r == blocks_[b].origin ? v : !v);
        }
    for (std::uint64_t t = 1; t <= R; ++t) {
      z3::expr_vector sizes(ctx_);
      for (std::uint64_t j = 1; j <= B_; ++j) {
        sizes.push_back(ctx_.bool_const(name("c", {t, j}).c_str()));
        if (j > 1) solver_.add(z3::implies(sizes[int(j - 1)], sizes[int(j - 2)]));
        all_sizes_.push_back(sizes[int(j - 1)]);
      }
      std::map<Rank, z3::expr_vector> out, in;
      for (Rank u = 0; u < n; ++u)
        for (Rank v = 0; v < n; ++v) {
          if (u == v) continue;
          const z3::expr e = ctx_.bool_const(name("e", {u, v, t}).c_str());
          e_.emplace(Key{0, u, v, t}, e);
          out.try_emplace(u, ctx_).first->second.push_back(e);
          in.try_emplace(v, ctx_).first->second.push_back(e);
          z3::expr_vector load(ctx_);
          std::vector<int> coeffs;
          for (std::size_t b = 0; b < blocks_.size(); ++b) {
            if (v == blocks_[b].origin) continue;
            if (t == R && !destination(b, v)) continue;
            const z3::expr s = ctx_.bool_const(name("s", {b, u, v, t}).c_str());
            s_.emplace(Key{b, u, v, t}, s);
            solver_.add(z3::implies(s, H(b, u, t - 1) && !H(b, v, t - 1) && e));
            load.push_back(s);
            coeffs.push_back(1);
          }
          for (unsigned j = 0; j < sizes.size(); ++j) {
            load.push_back(sizes[int(j)]);
            coeffs.push_back(-1);
          }
          solver_.add(z3::pble(load, coeffs.data(), 0));  // transfer <= largest of the round
        }
      for (auto& [r, v] : out) solver_.add(z3::atmost(v, k));
      for (auto& [r, v] : in) solver_.add(z3::atmost(v, k));
      // Holding after round t: held before, or received in round t.
      for (std::size_t b = 0; b < blocks_.size(); ++b)
        for (Rank v = 0; v < n; ++v) {
          z3::expr_vector why(ctx_);
          why.push_back(H(b, v, t - 1));
          for (Rank u = 0; u < n; ++u)
            if (const auto it = s_.find(Key{b, u, v, t}); it != s_.end()) {
              why.push_back(it->second);
              solver_.add(z3::implies(it->second, H(b, v, t)));
            }
          solver_.add(z3::implies(H(b, v, t), z3::mk_or(why)));
          solver_.add(z3::implies(H(b, v, t - 1), H(b, v, t)));
        }
    }
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      for (Rank d = 0; d < n; ++d)
        if (destination(b, d)) solver_.add(H(b, d, R));
    for (Rank v = 2; v < n && R >= 1; ++v)  // rank symmetry, round 1
      solver_.add(z3::implies(E(0, v, 1), E(0, v - 1, 1)));
  }

  /// SAT, UNSAT or unknown with C2 <= c2 (0: no limit on C2).
  z3::check_result check(std::uint64_t c2, std::vector<OptimalStep>& steps) {
    z3::expr_vector assume(ctx_);
    if (c2) {
      const z3::expr guard = ctx_.bool_const(("c2_at_most_" + std::to_string(c2)).c_str());
      solver_.add(z3::implies(guard, z3::atmost(all_sizes_, unsigned(c2))));
      assume.push_back(guard);
    }
    const auto start = std::chrono::steady_clock::now();
    const z3::check_result answer = solver_.check(assume);
    steps.push_back({R_,
                     answer_text(answer, solver_) + (c2 ? " with C2 <= " + std::to_string(c2) : ""),
                     seconds_since(start)});
    return answer;
  }

  std::string reason_unknown() { return solver_.reason_unknown(); }

  /// The schedule of the last SAT answer.
  Schedule witness(const Topology& model) const {
    const z3::model mod = solver_.get_model();
    Schedule s = blank("optimal-forwarding", o_.collective, model, R_);
    std::map<std::tuple<std::uint64_t, Rank, Rank>, std::vector<Block>> transfers;
    for (const auto& [key, var] : s_)
      if (mod.eval(var, true).is_true()) transfers[{key.t, key.u, key.v}].push_back(blocks_[key.b]);
    for (const auto& [where, blocks] : transfers) {
      const auto [t, u, v] = where;
      s.phases[t - 1].add(u, v, blocks);
    }
    for (std::uint64_t t = 0; t < R_; ++t) s.phases[t].set_label("round " + std::to_string(t + 1));
    return s;
  }

 private:
  struct Key {
    std::size_t b;
    Rank u, v;
    std::uint64_t t;
    auto operator<=>(const Key&) const = default;
  };
  bool destination(std::size_t b, Rank r) const {
    return r != blocks_[b].origin && (blocks_[b].dest == kEveryRank || blocks_[b].dest == r);
  }
  const z3::expr& H(std::size_t b, Rank r, std::uint64_t t) const { return h_.at(Key{b, r, 0, t}); }
  const z3::expr& E(Rank u, Rank v, std::uint64_t t) const { return e_.at(Key{0, u, v, t}); }

  std::uint64_t R_;
  const ForwardingOptions& o_;
  std::vector<Block> blocks_;
  std::uint64_t B_ = 0;
  z3::context ctx_;
  z3::solver solver_;
  std::map<Key, z3::expr> h_, s_, e_;
  z3::expr_vector all_sizes_{ctx_};
};

/// C1 and C2 of a schedule as the verifier counts them (local copies are not communication),
/// so that the frontier and the reports measure alike.
Counts counts_of(const Schedule& s, const Topology& model) { return verify(s, model).counts; }

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace

ForwardingResult optimal_forwarding(const Topology& model, const ForwardingOptions& o) {
  const auto* f = std::get_if<FullyConnected>(&model);
  if (!f)
    throw InputError(
        "optimal --mode forwarding: the k-port model only (a fully-connected "
        "topology), not " +
        describe(model));
  const Rank n = f->ranks;
  const unsigned k = f->ports;
  check_ranks(n, kMaxForwardingRanks, "optimal --mode forwarding", kLargerMachines);
  ForwardingResult result;
  if (n < 2) {
    result.c1_proven = true;
    result.frontier.push_back(
        {0, 0, 0, true, "bound", 0, blank("direct", o.collective, model, 0), "direct"});
    result.why = "one rank: nothing to send";
    return result;
  }
  // Proven without the solver: a block reaches at most (k + 1)^t ranks in t rounds (Bruck et al.,
  // Proposition 2.1), and each rank receives n - 1 blocks through k ports.
  std::uint64_t rounds = 0;
  for (std::uint64_t reach = 1; reach < n; reach *= (k + 1)) ++rounds;
  const std::uint64_t direct = ceil_div(n - 1, k);
  result.c1_proof =
      "in t rounds a block reaches at most (k + 1)^t ranks (Bruck et al., "
      "Proposition 2.1)";
  if (o.max_transfer == 1) {  // one block per transfer: direct is all there is
    rounds = direct;
    result.c1_proof = "with one block per transfer a rank receives at most k blocks per round";
  }
  result.c1_lower = rounds;
  const auto c2_bound = [&](std::uint64_t R) {
    const std::uint64_t base = ceil_div(n - 1, k);
    return o.collective == Collective::alltoall ? std::max(base, reach_c2_bound(n, k, R)) : base;
  };

  // Known schedules: the caller's and the direct one (round t: rank u sends to u + (t-1)k + 1 ..
  // u + tk), each with its rounds of communication and its C2.
  struct Known {
    std::string name;
    const Schedule* schedule;
    std::uint64_t c1, c2;
  };
  Schedule direct_schedule = blank("direct", o.collective, model, direct);
  for (Rank u = 0; u < n; ++u)
    for (Rank i = 1; i < n; ++i)
      direct_schedule.phases[(i - 1) / k].add(u, (u + i) % n,
                                              direct_block(o.collective, u, (u + i) % n));
  std::vector<Known> known = {{"direct", &direct_schedule, direct, direct}};
  for (const auto& [name, s] : o.known) {
    const Counts c = counts_of(s, model);
    known.push_back({name, &s, c.c1, c.c2});
  }

  bool below_decided = true;  // every R below the current one is proven infeasible
  std::optional<FrontierPoint> previous;
  for (std::uint64_t R = rounds; R <= direct; ++R) {
    FrontierPoint point;
    point.c1 = R;
    point.c2_lower = c2_bound(R);
    if (o.max_transfer && point.c2_lower > o.max_transfer * R) {
      if (below_decided) {  // C2 <= R max_transfer: infeasible by count
        result.c1_lower = R + 1;
        result.c1_proof = "C2 >= " + std::to_string(point.c2_lower) + " at " + std::to_string(R) +
                          " rounds exceeds rounds x max transfer";
      }
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    // The best schedule known in at most R rounds: the previous point's (a round left empty)
    // or a known one.
    std::optional<std::uint64_t> upper;
    if (previous) {
      upper = previous->c2_upper;
      point.witness = previous->witness;
      point.source = "C1 = " + std::to_string(previous->c1);
    }
    for (const Known& kn : known)
      if (kn.c1 <= R && (!upper || kn.c2 < *upper)) {
        upper = kn.c2;
        point.witness = *kn.schedule;
        point.source = kn.name;
      }
    const auto finish = [&] {
      point.proven = point.c2_lower == point.c2_upper;
      if (point.witness) {
        point.witness_check = check_witness(*point.witness, model, [&point](const Counts& c) {
          std::string e;
          if (c.c1 > point.c1)
            e = "C1 " + std::to_string(c.c1) + " > " + std::to_string(point.c1) + " rounds";
          if (c.c2 != point.c2_upper)
            e += (e.empty() ? "" : "; ") + std::string("C2 ") + std::to_string(c.c2) +
                 ", not " + std::to_string(point.c2_upper);
          return e;
        });
        if (point.witness_check.verdict != Verdict::pass) point.proven = false;
      }
      if (!point.proven) point.proof.clear();
      point.seconds = seconds_since(start);
      if (!previous) result.c1_proven = below_decided;
      previous = point;
      result.frontier.push_back(point);
    };
    if (upper && *upper <= point.c2_lower && !o.confirm_bound) {  // a known schedule meets it
      point.c2_upper = *upper;
      point.proof = "bound";
      finish();
    } else {
      ForwardingInstance instance(n, k, R, o);
      const z3::check_result first = instance.check(upper ? *upper - 1 : 0, result.steps);
      if (first == z3::unknown) {
        result.why = "the solver gave up at " + std::to_string(R) + " rounds (" +
                     instance.reason_unknown() + ")";
        if (!upper) {
          below_decided = false;
          continue;
        }
        point.c2_upper = *upper;
        finish();
      } else if (first == z3::unsat) {
        if (!upper) {  // R rounds cannot deliver at all
          if (below_decided) {
            result.c1_lower = R + 1;
            result.c1_proof = "the solver: UNSAT at " + std::to_string(R) + " rounds";
          }
          continue;
        }
        point.c2_lower = point.c2_upper = *upper;
        point.proof = "unsat";
        finish();
      } else {
        // Down from the solver's schedule: each SAT gives a smaller C2, the first UNSAT proves
        // the last one minimal; meeting the bound needs no UNSAT (unless confirm_bound: the
        // bound is not trusted and the descent ends at an UNSAT).
        const std::uint64_t bound = point.c2_lower;
        const std::uint64_t floor = o.confirm_bound ? 1 : bound;
        point.source = "solver";
        point.proof = "bound";
        for (z3::check_result a = first; a != z3::unsat;) {
          if (a != z3::sat) {
            result.why = "the solver gave up at " + std::to_string(R) +
                         " rounds with C2 <= " + std::to_string(point.c2_upper - 1) + " (" +
                         instance.reason_unknown() + ")";
            break;
          }
          point.witness = instance.witness(model);
          point.c2_upper = counts_of(*point.witness, model).c2;
          if (point.c2_upper < bound) {
            result.why = "the solver found C2 = " + std::to_string(point.c2_upper) +
                         " at C1 = " + std::to_string(R) + ", below the bound " +
                         std::to_string(bound) + ": the bound or the encoding is wrong";
            point.c2_lower = point.c2_upper;
            point.proof.clear();
            point.seconds = seconds_since(start);
            result.frontier.push_back(point);
            return result;
          }
          if (point.c2_upper <= floor) break;
          a = instance.check(point.c2_upper - 1, result.steps);
          if (a == z3::unsat) {
            point.c2_lower = point.c2_upper;
            point.proof = "unsat";
          }
        }
        finish();
      }
    }
    if (previous->c2_upper == ceil_div(n - 1, k)) break;  // nothing left to gain from more rounds
  }
  if (result.frontier.empty()) {  // cannot happen: the direct schedule is known
    result.why = "no schedule within " + std::to_string(direct) + " rounds";
  } else if (result.why.empty()) {
    result.why = "frontier complete";
  }
  return result;
}

Verdict OptimalResult::verdict() const {
  if (witness_check.verdict == Verdict::fail) return Verdict::fail;
  return proven ? Verdict::pass : Verdict::unknown;
}

Verdict ForwardingResult::verdict() const {
  bool all_proven = c1_proven;
  for (const FrontierPoint& p : frontier) {
    if (p.witness_check.verdict == Verdict::fail) return Verdict::fail;
    all_proven &= p.proven;
  }
  return all_proven ? Verdict::pass : Verdict::unknown;
}

}  // namespace phasecheck::verify
