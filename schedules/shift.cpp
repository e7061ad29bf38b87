// The shift (ring-offset) order used by MPICH's pairwise MPI_Alltoall for non-power-of-two p:
// in step j = 0..p-1 rank i sends to (i + j) mod p and receives from (i - j) mod p; step 0 is the
// local copy. Every step is a permutation, so the schedule is valid on a fully-connected
// machine with one port per direction (p steps, ceil((p-1)/k) = p-1 being the bound), but
// on a tree or a single-ported cluster the sends of a step collide.

#include "schedules/direct.hpp"
#include "schedules/permutation_phases.hpp"

namespace phasecheck::schedules {
namespace {

Rank target(Rank j, Rank i, Rank p) { return static_cast<Rank>((std::uint64_t{i} + j) % p); }

}  // namespace

void shift(const DirectOptions& options, const DirectSink& out, PhaseRange range) {
  const Rank p = options.ranks;
  permutation_phases(
      p, 0, p, options.collective, "step ", [p](Rank j, Rank i) { return target(j, i, p); }, out,
      range);
}

std::vector<Invariant> shift_invariants(const DirectOptions& options) {
  const Rank p = options.ranks;
  return {partners_delivered("after step j every rank i has received from rank i - j", p,
                             [p](Rank j, Rank i) { return target(j % p, i, p); })};
}

}  // namespace phasecheck::schedules
