#pragma once
/// nccl-pat-allgather's step sequence and emitter, for the row and for tests that perturb it.

#include <functional>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::schedules::nccl {

/// One send of PAT's allgather, the same at every rank r: r sends to r - 2^dim the block of rank
/// r + offset - 2^dim, which the receiver holds at offset `offset` (its block of rank
/// receiver + offset).
struct PatSend {
  Rank offset = 0;
  unsigned dim = 0;
  friend bool operator==(const PatSend&, const PatSend&) = default;
};

/// The sends of PatAGAlgorithm::getNextOp for `ranks` ranks, one chunk and messages large enough
/// that only the step depth (NCCL_STEPS = 8) aggregates, in the order the algorithm thread
/// issues them; recv-only steps and skipped steps are left out. ranks >= 2.
std::vector<PatSend> pat_allgather_sends(Rank ranks);

/// One phase per send of `sends`.
void emit_pat_allgather(Rank ranks, const std::vector<PatSend>& sends, const PhaseSink& out);

}  // namespace phasecheck::schedules::nccl
