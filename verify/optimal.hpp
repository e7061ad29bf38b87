#pragma once
/// The minimal number of phases T* of a direct schedule (every message sent once, straight to its
/// destination) on a machine model, with proofs: Z3 finds a schedule in T phases (SAT: the
/// witness is checked by the same checkers as any schedule) or shows that none exists (UNSAT).
/// T* is proven when T* is SAT and T* - 1 is UNSAT, or T* equals the model's lower bound. A
/// solver timeout is reported as unknown with the bounds known, never as proven.
///
/// Encoding (Boolean, cardinality constraints; toolchain.md measured Int encodings 20-60x slower):
///  - x[m][t]: message m in phase t; exactly one t per message;
///  - routed models (tree, hypercube, mesh, ring, graph): at most one message per directed link
///    and phase;
///  - k-port: at most k sends and at most k receives per rank and phase;
///  - cluster: per SMP node and phase at most one operation, where m_uv and m_vu between two nodes
///    form one operation (an exchange) through a[{u,v}][t] >= x[m_uv][t], x[m_vu][t].
///  - symmetry breaking: message 0 is in phase 0 (sound: renumbering phases maps any schedule
///    to one with this property, and changes neither the phase count nor validity).
/// Phases t >= T are switched off by assumptions, so one incremental solver serves every T.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::verify {

struct OptimalOptions {
  Collective collective = Collective::alltoall;
  std::uint64_t lower = 0;  ///< a proven lower bound on phases (the model's)
  std::uint64_t upper = 0;  ///< phases of a known valid schedule (0: the number of messages)
  double timeout = 60;      ///< seconds per solver call
  bool symmetry = true;     ///< fix message 0 in phase 0
  std::string smt2;         ///< write the instance at T = upper as SMT-LIB2 here
};

struct OptimalStep {
  std::uint64_t phases = 0;
  std::string answer;  ///< "sat", "unsat" or "unknown"
  double seconds = 0;
};

struct OptimalResult {
  std::uint64_t lower = 0, upper = 0;  ///< what is known: lower <= T* <= upper
  bool proven = false;                 ///< lower == upper, by proof
  std::optional<Schedule> witness;     ///< a schedule in `upper` phases (verified by the caller)
  std::vector<OptimalStep> steps;
  std::string why;  ///< how the answer was reached
};

/// Searches T = lower, lower + 1, ... up to `upper`. Throws InputError for more than 12 ranks
/// (the encoding has p^2 T variables; larger instances are beyond a proof in a minute).
OptimalResult optimal_phases(const Topology& model, const OptimalOptions& options);

}  // namespace phasecheck::verify
