#pragma once
/// What `optimal` proved (experiments/optimum.hpp), for a person (the verdict line first, then
/// every solver call and the witness check) and for a program (JSON; docs/formats.md).

#include <string>

#include "experiments/optimality_tables.hpp"
#include "experiments/optimum.hpp"
#include "report/format.hpp"

namespace phasecheck::reports {

/// The machine the optimum is about.
struct OptimumMachine {
  std::string source;       ///< the topology file, or "<stdin>"
  std::string description;  ///< describe() of the model
};

/// The formats `optimum_text` and `optimum_json` take.
inline constexpr ReportFormat optimum_formats[] = {ReportFormat::text, ReportFormat::json};

/// PROVEN / UNKNOWN / WITNESS FAILS with the optimum or the gap, whether the best registered
/// algorithm is optimal, then the lower bound, the clique, each solver call and the witness.
std::string optimum_text(const experiments::DirectOptimum& optimum, const OptimumMachine& machine);
/// {"command": "optimal", "verdict", "mode": "direct", "topology", "source", "collective",
/// "lower_bound", "clique", "best_algorithm", "optimum", "steps", "witness"}.
std::string optimum_json(const experiments::DirectOptimum& optimum, const OptimumMachine& machine);

/// The verdict with the Pareto frontier C1:C2, then the frontier table with each point's proof
/// and checked witness, and Bruck et al.'s family against it.
std::string optimum_text(const experiments::ForwardingOptimum& optimum,
                         const OptimumMachine& machine);
/// {"command": "optimal", "verdict", "mode": "forwarding", "topology", "source", "collective",
/// "ranks", "ports", "max_transfer", "least_C1", "frontier", "bruck", "why", "steps"}.
std::string optimum_json(const experiments::ForwardingOptimum& optimum,
                         const OptimumMachine& machine);

/// `whatif optimality --family kport` as text: one table per collective, then the notes.
std::string kport_optimality_text(const experiments::KportOptimality& tables);

}  // namespace phasecheck::reports
