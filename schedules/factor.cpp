// The non-hierarchical factor algorithm (Sanders & Träff, "The Hierarchical Factor Algorithm for
// All-to-All Communication", Section 2, Lemma 1 and Fig. 1).
//
// The complete graph on p vertices *with self-loops* splits into p 1-factors G_i, i = 0..p-1:
// in G_i vertex u is matched with v_i(u) = (i - u) mod p. Since v_i(v_i(u)) = u every vertex has
// degree one, and edge (u, v) lies in G_{(u+v) mod p}, the self-loop (u, u) in G_{2u mod p}.
// Round i pairs the neighbours of G_i, which exchange m_uv and m_vu; a vertex matched with itself
// copies m_uu locally. Claimed: p rounds for every p, each a perfect matching, so the schedule is
// contention-free on the single-ported cluster of single-processor nodes and on any k-port machine.

#include "schedules/direct.hpp"
#include "schedules/one_factors.hpp"
#include "schedules/permutation_phases.hpp"

namespace phasecheck::schedules {

void factor(const DirectOptions& options, const DirectSink& out, PhaseRange range) {
  const Rank p = options.ranks;
  // Round i: every step exchange(u, v_i(u)), both halves.
  permutation_phases(
      p, 0, p, options.collective, "round ",
      [p](Rank i, Rank u) { return lemma1_partner(i, u, p); }, out, range);
}

std::vector<Invariant> factor_invariants(const DirectOptions& options) {
  const Rank p = options.ranks;
  return {partners_delivered("Lemma 1: after round i every pair of the 1-factor G_i has exchanged",
                             p, [p](Rank i, Rank u) { return lemma1_partner(i % p, u, p); })};
}

}  // namespace phasecheck::schedules
