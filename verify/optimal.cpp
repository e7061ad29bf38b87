#include "verify/optimal.hpp"

#include <z3++.h>

#include <chrono>
#include <fstream>
#include <map>

#include "core/error.hpp"

namespace phasecheck::verify {
namespace {

struct Message {
  Rank src, dst;
};

}  // namespace

OptimalResult optimal_phases(const Topology& model, const OptimalOptions& o) {
  const Rank p = ranks(model);
  if (p > 12)
    throw InputError("optimal: at most 12 ranks (" + describe(model) + " has " + std::to_string(p) +
                     ")");
  std::vector<Message> messages;
  for (Rank s = 0; s < p; ++s)
    for (Rank d = 0; d < p; ++d)
      if (s != d) messages.push_back({s, d});
  OptimalResult result;
  result.lower = o.lower;
  result.upper = o.upper ? o.upper : messages.size();
  if (messages.empty()) {
    result.lower = result.upper = 0;
    result.proven = true;
    result.witness = Schedule{};
    result.why = "one rank: nothing to send";
    return result;
  }
  const std::uint64_t T = result.upper;

  z3::context ctx;
  z3::solver solver(ctx);
  z3::params params(ctx);
  params.set("timeout", static_cast<unsigned>(o.timeout * 1000));
  solver.set(params);

  // X(m, t)
  std::vector<z3::expr_vector> x;
  for (std::size_t m = 0; m < messages.size(); ++m) {
    z3::expr_vector row(ctx);
    for (std::uint64_t t = 0; t < T; ++t)
      row.push_back(ctx.bool_const(("x_" + std::to_string(m) + "_" + std::to_string(t)).c_str()));
    solver.add(z3::atleast(row, 1));
    solver.add(z3::atmost(row, 1));
    x.push_back(row);
  }
  // expr_vector is indexed by int.
  const auto X = [&x](std::size_t m, std::uint64_t t) { return x[m][static_cast<int>(t)]; };
  if (o.symmetry) solver.add(X(0, 0));

  for (std::uint64_t t = 0; t < T; ++t) {
    if (const auto* f = std::get_if<FullyConnected>(&model)) {
      std::map<Rank, z3::expr_vector> out, in;
      for (std::size_t m = 0; m < messages.size(); ++m) {
        out.try_emplace(messages[m].src, ctx).first->second.push_back(X(m, t));
        in.try_emplace(messages[m].dst, ctx).first->second.push_back(X(m, t));
      }
      for (auto& [r, v] : out) solver.add(z3::atmost(v, f->ports));
      for (auto& [r, v] : in) solver.add(z3::atmost(v, f->ports));
    } else if (const auto* c = std::get_if<Cluster>(&model)) {
      // One operation per SMP node: an exchange between two nodes (either direction or both)
      // or one intra-node message.
      std::map<std::uint32_t, z3::expr_vector> ops;
      std::map<std::pair<Rank, Rank>, std::size_t> index;
      for (std::size_t m = 0; m < messages.size(); ++m)
        index[{messages[m].src, messages[m].dst}] = m;
      for (std::size_t m = 0; m < messages.size(); ++m) {
        const auto [u, v] = std::pair{messages[m].src, messages[m].dst};
        const std::uint32_t U = c->node_of(u), V = c->node_of(v);
        if (U == V) {
          ops.try_emplace(U, ctx).first->second.push_back(X(m, t));
          continue;
        }
        if (u > v) continue;  // the pair {u, v} once
        const z3::expr a = ctx.bool_const(
            ("a_" + std::to_string(u) + "_" + std::to_string(v) + "_" + std::to_string(t)).c_str());
        solver.add(z3::implies(X(m, t), a));
        solver.add(z3::implies(X(index[{v, u}], t), a));
        ops.try_emplace(U, ctx).first->second.push_back(a);
        ops.try_emplace(V, ctx).first->second.push_back(a);
      }
      for (auto& [node, v] : ops) solver.add(z3::atmost(v, 1));
    } else {
      std::map<LinkId, z3::expr_vector> users;
      for (std::size_t m = 0; m < messages.size(); ++m)
        for_each_link(model, messages[m].src, messages[m].dst, [&](LinkId l) {
          users.try_emplace(l, ctx).first->second.push_back(X(m, t));
        });
      for (auto& [l, v] : users)
        if (v.size() > 1) solver.add(z3::atmost(v, 1));
    }
  }
  if (!o.smt2.empty()) {
    std::ofstream f(o.smt2);
    if (!f) throw InputError(o.smt2 + ": cannot write the file");
    f << "; phasecheck optimal: " << describe(model) << ", direct " << to_string(o.collective)
      << ", at most " << T << " phases\n"
      << solver.to_smt2();
  }

  // Phases t >= k off: one assumption per message and phase.
  const auto check = [&](std::uint64_t k) {
    z3::expr_vector off(ctx);
    for (std::size_t m = 0; m < messages.size(); ++m)
      for (std::uint64_t t = k; t < T; ++t) off.push_back(!X(m, t));
    const auto start = std::chrono::steady_clock::now();
    const z3::check_result answer = solver.check(off);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.steps.push_back({k,
                            answer == z3::sat     ? "sat"
                            : answer == z3::unsat ? "unsat"
                                                  : "unknown (" + solver.reason_unknown() + ")",
                            s});
    return answer;
  };
  const auto witness = [&](std::uint64_t k) {
    const z3::model mod = solver.get_model();
    Schedule s;
    s.header.algorithm = "optimal";
    s.header.collective = o.collective;
    s.header.topology = model;
    s.phases.resize(k);
    for (std::size_t m = 0; m < messages.size(); ++m)
      for (std::uint64_t t = 0; t < k; ++t)
        if (mod.eval(X(m, t), true).is_true()) {
          s.phases[t].add(messages[m].src, messages[m].dst,
                          direct_block(o.collective, messages[m].src, messages[m].dst));
          break;
        }
    for (std::uint64_t t = 0; t < k; ++t) s.phases[t].set_label("phase " + std::to_string(t));
    return s;
  };

  // Up from the lower bound: the first SAT is the optimum, and the UNSAT just below (or the
  // bound itself) is the proof.
  for (std::uint64_t k = std::max<std::uint64_t>(o.lower, 1); k <= T; ++k) {
    const z3::check_result answer = check(k);
    if (answer == z3::unsat) {
      result.lower = k + 1;
      continue;
    }
    if (answer == z3::sat) {
      // Every T below k is UNSAT or below the proven lower bound: k is the optimum.
      result.upper = result.lower = k;
      result.witness = witness(k);
      result.proven = true;
      result.why = "SAT at " + std::to_string(k) + ", UNSAT at " + std::to_string(k - 1);
      if (k == o.lower && k > 1) {
        // The bound alone proves it; the solver confirms the bound independently.
        const z3::check_result below = check(k - 1);
        if (below == z3::sat) {
          result.proven = false;
          result.why = "the solver found a schedule in " + std::to_string(k - 1) +
                       " phases, below the lower bound " + std::to_string(k) +
                       ": the bound or the encoding is wrong";
        } else if (below != z3::unsat) {
          result.why = "SAT at the lower bound " + std::to_string(k) +
                       " (the solver could not confirm the bound below it in time)";
        }
      }
      return result;
    }
    result.why = "the solver gave up at " + std::to_string(k) + " phases (" +
                 solver.reason_unknown() + "): the optimum is between " +
                 std::to_string(result.lower) + " and " + std::to_string(result.upper);
    return result;  // unknown: never reported as proven
  }
  // Not even the upper bound: the schedule it came from was not a direct one.
  result.why = "no direct schedule has " + std::to_string(T) + " phases or fewer";
  return result;
}

}  // namespace phasecheck::verify
