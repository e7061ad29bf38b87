#pragma once
/// `phasecheck optimal`: the proven optimum of one machine next to what the registered
/// algorithms and the lower bounds give. Direct mode: the fewest contention-free phases
/// (verify::optimal_phases between the model's lower bound and the best registered algorithm).
/// Forwarding mode: the (C1, C2) Pareto frontier on a k-port machine against Bruck et al.'s
/// family. Every witness is checked by the verifier inside verify/ before anything is proven.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "core/verdict.hpp"
#include "verify/optimal.hpp"

namespace phasecheck::experiments {

/// The registered algorithm with the fewest phases (with communication) whose schedule on
/// `model` is direct, delivers and is free of contention: {phases, name}, or {0, ""} if none.
/// The upper end of the optimum search (verify/optimal.hpp).
std::pair<std::uint64_t, std::string> best_direct_algorithm(const Topology& model, Collective c);

struct DirectOptimum {
  Collective collective = Collective::alltoall;
  std::uint64_t lower_bound = 0;  ///< the model's best lower bound on phases (docs/bounds.md)
  std::string best;               ///< the best registered direct algorithm ("" when none is valid)
  std::uint64_t best_phases = 0;  ///< its phases
  verify::OptimalResult solver;   ///< what the solver found, its witness checked
  /// The solver gave up, but the best algorithm's schedule (direct, delivered, contention-free:
  /// checked by the verifier) meets the lower bound: that proves the optimum.
  bool met_by_algorithm = false;
  /// pass: the optimum is proven (by the solver, or the bound met by an algorithm); fail: the
  /// solver's witness breaks a check (an encoding bug); unknown: the gap is open.
  Verdict verdict = Verdict::unknown;
  std::uint64_t known_lower = 0, known_upper = 0;  ///< lower <= optimum <= upper
  std::string proof;                               ///< how the optimum (or the gap) is known
};

/// Throws InputError for a machine beyond verify::kMaxOptimalRanks (checked before any work).
DirectOptimum direct_optimum(const Topology& model, verify::OptimalOptions options);

/// One schedule of Bruck et al. against the frontier.
struct BruckAgainstFrontier {
  std::string name;  ///< "bruck-index r=3"
  std::uint64_t c1 = 0, c2 = 0;
  bool fits = true;                       ///< its transfers fit --max-transfer
  std::optional<std::uint64_t> least_c2;  ///< the proven least C2 at its C1, if known
};

struct ForwardingOptimum {
  Collective collective = Collective::alltoall;
  Rank ranks = 0;
  std::uint32_t ports = 0;
  std::uint64_t max_transfer = 0;  ///< 0: no limit
  verify::ForwardingResult solver;
  std::vector<bool> pareto;  ///< per frontier point: not dominated by the one before
  std::vector<BruckAgainstFrontier> bruck;
  std::size_t bruck_optimal = 0;  ///< of them, those at the least C2 of their C1
  double solver_seconds = 0;      ///< over every solver call
};

/// Throws InputError unless the model is k-port with at most verify::kMaxForwardingRanks ranks.
ForwardingOptimum forwarding_optimum(const Topology& model, verify::ForwardingOptions options);

}  // namespace phasecheck::experiments
