// All-to-all personalized communication on a hypercube by dimension exchange (Grama et al.,
// Section 4.5.3, Fig. 4.20, Equation 4.9): log p steps; in step k every node exchanges with its
// neighbour across dimension k the p/2 blocks it holds whose destination differs from it in bit
// k. Dimensions go from the least significant up, so after step k every block sits on a node
// that agrees with its destination in the k lowest bits. T = (t_s + t_w m p/2) log p: fewer
// start-ups than Algorithm 4.10, more data, and not optimal in C2.

#include <bit>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/grama.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kParameters[] = {kCollective};

}  // namespace

std::span<const ParameterSpec> HypercubeOptions::parameters() { return kParameters; }

HypercubeOptions HypercubeOptions::from(const ScheduleHeader& header, std::string_view algorithm) {
  check_parameters(header.parameters, kParameters, header.ranks(), algorithm);
  const Rank p = header.ranks();
  if (!std::has_single_bit(p))
    throw InputError(std::string(algorithm) + " needs a power-of-two number of ranks, not " +
                     std::to_string(p));
  return {static_cast<unsigned>(std::countr_zero(p)), header.collective};
}

void hypercube_exchange(const HypercubeOptions& o, const PhaseSink& out) {
  const Rank p = Rank{1} << o.dimension;
  Phase step;
  std::vector<Block> blocks;
  for (unsigned k = 0; k < o.dimension; ++k) {
    step.clear();
    step.set_label("step " + std::to_string(k + 1) + " (dimension " + std::to_string(k) + ")");
    const Rank low = (Rank{1} << k) - 1, bit = Rank{1} << k;
    for (Rank i = 0; i < p; ++i) {
      // Node i holds the blocks [o, d] with o agreeing with i above bit k - 1 and d agreeing
      // with i below bit k; it sends those whose destination differs from it in bit k.
      blocks.clear();
      for (Rank a = 0; a <= low; ++a) {  // o's low k bits
        const Rank origin = (i & ~low) | a;
        // Allgather: the block [o] serves every destination, so it is sent once (this is the
        // recursive doubling of all-to-all broadcast, Section 4.2.3).
        const Rank highs = o.collective == Collective::allgather ? 1 : p >> (k + 1);
        for (Rank high = 0; high < highs; ++high) {  // d's bits above k
          const Rank dest = (high << (k + 1)) | ((i ^ bit) & bit) | (i & low);
          blocks.push_back(direct_block(o.collective, origin, dest));
        }
      }
      step.add(i, i ^ bit, blocks);
    }
    out(step);
  }
}

Claims hypercube_exchange_claims(const HypercubeOptions& o) {
  const unsigned d = o.dimension;
  const Rank p = Rank{1} << d;
  Invariant low_bits{
      "after step s every block sits on a node that agrees with its destination in the s lowest "
      "dimensions",
      [p, d, collective = o.collective](const Boundary& at, const DataView& data) -> Finding {
        if (at.phase >= d)
          return Finding::not_applicable();  // beyond step log p; the phase claim reports it
        const Rank mask = (Rank{2} << at.phase) - 1;
        for (Rank origin = 0; origin < p; ++origin)
          for (Rank dest = 0; dest < p; ++dest) {
            const Rank node = (origin & ~mask) | (dest & mask);
            const Block b = direct_block(collective, origin, dest);
            if (!data.holds(node, b))
              return Finding::broken("block " + to_string(b) + " is not at node " +
                                     std::to_string(node) + " after step " +
                                     std::to_string(at.phase + 1));
          }
        return Finding::holds();
      }};
  Claims claims{.invariants = {std::move(low_bits)},
                .phases = PhaseClaim::exactly(d, "log p steps")};
  if (o.collective == Collective::alltoall) {
    claims.cost.push_back(
        {"Eq. 4.9: (t_s + t_w m p/2) log p",
         [p, d](double ts, double tw, double m) { return (ts + tw * m * p / 2) * d; }});
    claims.cost.push_back({"Section 4.5.3 traffic bound, one port per node: t_w m (p - 1)",
                           [p](double, double tw, double m) { return tw * m * (p - 1); },
                           CostFormula::Kind::lower_bound});
  }
  return claims;
}

}  // namespace phasecheck::schedules
