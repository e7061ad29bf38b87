// Pairwise exchange by xor, the classic power-of-two all-to-all (Grama et al., Algorithm 4.10 on
// the hypercube; also the factor algorithm's "well-known version" in Sanders & Träff, Section 1):
// in step j = 0..p-1 ranks i and i xor j swap their messages; step 0 is the local copy. Each step
// is a perfect matching, so it is valid on single-ported nodes and k-port machines, and with
// e-cube routing on a hypercube no two messages of a step share a link.

#include <bit>

#include "core/error.hpp"
#include "schedules/direct.hpp"
#include "schedules/permutation_phases.hpp"

namespace phasecheck::schedules {

void pairwise_xor(const DirectOptions& options, const DirectSink& out, PhaseRange range) {
  const Rank p = options.ranks;
  if (!std::has_single_bit(p))
    throw InputError("pairwise-xor needs a power-of-two number of ranks, not " + std::to_string(p));
  permutation_phases(
      p, 0, p, options.collective, "step ", [](Rank j, Rank i) { return i ^ j; }, out, range);
}

std::vector<Invariant> pairwise_xor_invariants(const DirectOptions& options) {
  return {partners_delivered("after step j every rank i has exchanged with rank i xor j",
                             options.ranks, [](Rank j, Rank i) { return i ^ j; })};
}

}  // namespace phasecheck::schedules
