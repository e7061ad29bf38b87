// The optimal all-to-all personalized algorithm on a hypercube (Grama et al., Section 4.5.3,
// Algorithm 4.10, Fig. 4.21, Equation 4.10): p - 1 steps; in step j node i exchanges its message
// for i xor j directly with it. With e-cube routing (bits corrected from the least significant up)
// no directed link carries two messages in a step, so T = (t_s + t_w m)(p - 1), which meets the
// traffic bound in its t_w term. Unlike pairwise-xor it has no step 0: M_ii stays where it is.

#include "schedules/direct.hpp"
#include "schedules/grama.hpp"
#include "schedules/permutation_phases.hpp"

namespace phasecheck::schedules {

void hypercube_pairwise(const HypercubeOptions& o, const DirectSink& out, PhaseRange range) {
  const Rank p = Rank{1} << o.dimension;
  // Algorithm 4.10: for i := 1 to 2^d - 1
  permutation_phases(
      p, 1, p, o.collective, "step ", [](Rank j, Rank i) { return i ^ j; }, out, range);
}

Claims hypercube_pairwise_claims(const HypercubeOptions& o) {
  const Rank p = Rank{1} << o.dimension;
  Claims claims{
      .invariants = {partners_delivered("after step j every node i has received M_{i xor j, i}", p,
                                        [](Rank j, Rank i) { return i ^ (j + 1); })},
      .phases = PhaseClaim::exactly(p - 1, "p - 1 steps")};
  claims.cost.push_back({"Eq. 4.10: (t_s + t_w m)(p - 1)",
                         [p](double ts, double tw, double m) { return (ts + tw * m) * (p - 1); }});
  claims.cost.push_back({"Section 4.5.3 traffic bound, one port per node: t_w m (p - 1)",
                         [p](double, double tw, double m) { return tw * m * (p - 1); },
                         CostFormula::Kind::lower_bound});
  return claims;
}

}  // namespace phasecheck::schedules
