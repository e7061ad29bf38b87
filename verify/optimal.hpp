#pragma once
/// Proven optima for small instances, with Z3.
///
/// Direct mode (optimal_phases): the minimal number of phases T* of a direct schedule (every
/// message sent once, straight to its destination) on a machine model. Z3 finds a schedule in T
/// phases (SAT: the witness is checked by the same checkers as any schedule) or shows that none
/// exists (UNSAT). T* is proven when T* is SAT and T* - 1 is UNSAT, or T* equals a proven lower
/// bound. A solver timeout is reported as unknown with the bounds known, never as proven.
///
/// Encoding (Boolean; toolchain.md measured Int encodings 20-60x slower):
///  - x[m][t]: message m in phase t; exactly one t per message;
///  - routed models (tree, hypercube, mesh, ring, graph): at most one message per directed link
///    and phase, at most c on a graph's link of capacity c (link_capacity);
///  - k-port: at most k sends and at most k receives per rank and phase;
///  - cluster: per SMP node and phase at most one operation, where m_uv and m_vu between two nodes
///    form one operation (an exchange) through a[{u,v}][t] >= x[m_uv][t], x[m_vu][t].
///  "At most one" is a cardinality constraint (z3::atmost) or, with Encoding::pairwise, one
///  clause per pair; docs/optimality.md has the measurements that chose the default.
///
/// Symmetry breaking. Phases are interchangeable: permuting the phases of a valid schedule gives a
/// valid schedule with the same phase count. Symmetry::clique takes a set of messages that
/// pairwise conflict (all through the busiest link of capacity 1; all sent from the largest SMP
/// node; all sent by rank 0 under one port), which any schedule must put in distinct phases, and
/// fixes message i of the set in phase i. This is sound: a permutation of the phases maps any
/// schedule to one that satisfies it. The clique size is also a lower bound, so the search starts
/// there. The clique is not taken on trust: before it is used the solver checks every pair of it
/// on the encoding of one phase (both messages in it: UNSAT), so a certified clique of c messages
/// is the solver's own proof that c - 1 phases are impossible.
/// Symmetry::first fixes only one message in phase 0 (the case of a clique of one).
/// Phases t >= T are switched off by assumptions, so one incremental solver serves every T.
///
/// Forwarding mode (optimal_forwarding): the k-port model of Bruck et al. with store-and-forward.
/// Blocks may be relayed; a round lets each rank send to at most k ranks and receive from at most
/// k ranks, each transfer carrying any set of blocks the sender holds. C1 is the number of rounds,
/// C2 the sum over rounds of the largest transfer in blocks. For each C1 from the least feasible
/// up to the direct value ceil((n - 1) / k), the least C2 is proven: the Pareto frontier. The
/// search for C2 starts at the counting bound (verify/bounds.hpp, reach_c2_bound) and a witness
/// that meets it needs no UNSAT answer.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

enum class Symmetry { none, first, clique };
/// How "at most k" is written: Z3's cardinality constraints, one clause per pair (k = 1), or
/// standard SMT-LIB that any solver reads (pairwise clauses, and a sum of ite terms <= k for
/// k > 1): the --smt2 export uses the last.
enum class Encoding { cardinality, pairwise, smtlib };

struct OptimalOptions {
  Collective collective = Collective::alltoall;
  std::uint64_t lower = 0;  ///< a proven lower bound on phases (the model's)
  std::uint64_t upper = 0;  ///< phases of a known valid schedule (0: the number of messages)
  double timeout = 60;      ///< seconds per solver call
  Symmetry symmetry = Symmetry::clique;
  Encoding encoding = Encoding::cardinality;
  /// When the optimum equals the lower bound, also ask the solver for UNSAT one below it, as an
  /// independent check of the bound (costs the hardest solver call; the table skips it).
  bool confirm_bound = true;
  /// Write an instance as standard SMT-LIB2 here for a second solver: T = optimum - 1 when the
  /// optimum is proven (expected unsat, with only one message fixed so the answer is not
  /// trivial), else T = the lower bound (the open question). The file's first line says which.
  std::string smt2;
};

struct OptimalStep {
  std::uint64_t phases = 0;
  std::string answer;  ///< "sat", "unsat" or "unknown (reason)"
  double seconds = 0;
};

struct OptimalResult {
  std::uint64_t lower = 0, upper = 0;  ///< what is known: lower <= T* <= upper
  bool proven = false;                 ///< lower == upper, by proof
  std::uint64_t clique = 0;            ///< messages that pairwise conflict (a lower bound)
  double clique_seconds = 0;           ///< the solver's pairwise check of the clique
  std::optional<Schedule> witness;     ///< a schedule in `upper` phases
  /// The verifier's judgement of `witness`, made inside optimal_phases before `proven` may stand:
  /// delivery and contention pass and the schedule is direct, in `upper` phases. A witness that
  /// fails is a bug in the encoding: the result is then not proven (fail, with the reason).
  /// not_evaluated when there is no witness.
  CheckResult witness_check{CheckId::witness, Verdict::not_evaluated, "no witness", {}};
  std::vector<OptimalStep> steps;
  std::string why;  ///< how the answer was reached
  /// fail when the witness fails its checks (an encoding bug), pass when proven, else unknown.
  Verdict verdict() const;
};

/// The largest machines the solver is given: direct mode, and forwarding mode (k-port).
inline constexpr Rank kMaxOptimalRanks = 12;
inline constexpr Rank kMaxForwardingRanks = 8;
/// What the refusal of a larger machine suggests instead.
inline constexpr const char* kLargerMachines =
    "for larger machines `phasecheck bounds` gives the lower bounds and `phasecheck survey` the "
    "best registered algorithm against them";

/// The verifier on a solver's schedule: delivery and contention must pass, and `expect` says what
/// else must hold of its counts (returns "" when it does, else what is wrong). Fail carries the
/// first failing check's counterexample. optimal_phases and optimal_forwarding call it on every
/// witness before they call anything proven.
CheckResult check_witness(const Schedule& witness, const Topology& model,
                          const std::function<std::string(const Counts&)>& expect);

/// Searches T = max(lower, clique), ... up to `upper`. Throws InputError for more than 12 ranks
/// (the encoding has p^2 T variables; larger instances are beyond a proof in a minute).
OptimalResult optimal_phases(const Topology& model, const OptimalOptions& options);

/// Has Z3 check, pair by pair on the encoding of one phase, that no two of `messages` can share a
/// phase on `model` (timeout in seconds per pair). "" when they pairwise conflict, else the first
/// pair that does not (or could not be decided). optimal_phases certifies its clique this way.
std::string certify_clique(const Topology& model,
                           const std::vector<std::pair<Rank, Rank>>& messages, double timeout = 60);

/// Messages of a direct schedule that pairwise conflict on `model` (see Symmetry::clique); one
/// message when the model has no pairwise conflicts (k-port with k >= 2, a graph whose only
/// shared links have capacity > 1). Messages are (src, dst).
std::vector<std::pair<Rank, Rank>> conflict_clique(const Topology& model);

// ---- forwarding mode -------------------------------------------------------------------------

struct ForwardingOptions {
  Collective collective = Collective::alltoall;  ///< index (alltoall) or concatenation (allgather)
  std::uint64_t max_transfer = 0;                ///< blocks per transfer (0: no limit)
  double timeout = 60;                           ///< seconds per solver call
  /// Known valid schedules on the same machine (Bruck's, say), by name: each is an upper bound
  /// on C2 at its C1, so the solver only has to beat it. The caller verifies them.
  std::vector<std::pair<std::string, Schedule>> known;
  /// Do not trust the counting bound: every point ends with an UNSAT answer from the solver, and
  /// a schedule below the bound is reported as an error (tests use this to check the bound).
  bool confirm_bound = false;
};

/// One point of the frontier: at `c1` rounds the least C2 lies in [c2_lower, c2_upper]; proven
/// when they meet. `witness` is a schedule with c1 rounds and C2 = c2_upper.
struct FrontierPoint {
  std::uint64_t c1 = 0;
  std::uint64_t c2_lower = 0, c2_upper = 0;
  bool proven = false;
  /// How the least C2 is proven: "bound" (the witness meets the counting bound) or "unsat" (the
  /// solver shows C2 - 1 infeasible); empty when unknown.
  std::string proof;
  double seconds = 0;
  std::optional<Schedule> witness;
  /// Where the witness comes from: "solver", "direct", a known schedule's name, or "C1 = c" (the
  /// previous point's, whose schedule also fits in this many rounds).
  std::string source;
  /// The verifier's judgement of `witness` (delivery, contention, C1 <= c1 and C2 = c2_upper),
  /// made inside optimal_forwarding before `proven` may stand.
  CheckResult witness_check{CheckId::witness, Verdict::not_evaluated, "no witness", {}};
};

struct ForwardingResult {
  std::uint64_t c1_lower = 0;  ///< rounds proven infeasible below this
  bool c1_proven = false;      ///< the first point's c1 is the least feasible
  std::string c1_proof;        ///< why fewer rounds cannot work (counting or the solver's UNSAT)
  std::vector<FrontierPoint> frontier;
  std::vector<OptimalStep> steps;  ///< every solver call: rounds, answer, time
  std::string why;
  /// fail when a point's witness fails its checks, pass when the least C1 and every point are
  /// proven, else unknown.
  Verdict verdict() const;
};

/// The (C1, C2) Pareto frontier of forwarding schedules on a FullyConnected model of at most 8
/// ranks (throws InputError otherwise).
ForwardingResult optimal_forwarding(const Topology& model, const ForwardingOptions& options);

}  // namespace phasecheck::verify
