// nccl-pat-allgather: NCCL's PAT (Parallel Aggregated Trees) allgather, class PatAGAlgorithm in
// src/include/collectives.h, run by src/device/all_gather.h (RunWorkColl<..., NCCL_ALGO_PAT,
// NCCL_PROTO_SIMPLE>) over the connections of src/device/prims_simple.h (primsModePatAg: receive
// from rank + 2^d, send to rank - 2^d), NCCL 2.30.7 (commit 5067397c; PAT came in 2.23). NCCL
// enables it only with one GPU per node (src/graph/tuning.cc, ncclPatEnable: nNodes == nRanks),
// else it uses ring (or NVLS, CollNet) for allgather.
//
// The block of rank r + s reaches rank r along a binomial tree: the bits of s from the highest
// down, one hop per bit (each hop r' -> r' - 2^d). A single algorithm thread walks the steps: an
// "aggregated step" as (a Gray-code-like sequence over the aggDelta = nrPow2 / aggFactor low
// offsets, nextAs) and within it a = 0 .. aggFactor - 1, s = a aggDelta + as; the offsets that
// are multiples of aggDelta go first, through halving scales (phase 2). Each step sends the block
// one hop on; what it receives waits in the connection's FIFO (NCCL_STEPS slots) until the step
// that forwards it. Modelled: one chunk, messages large enough that only the step depth
// aggregates (aggFactor = the largest 2^k <= 8 reached while below p / 2), one phase per send.
// Each offset 1..p-1 is sent once: p - 1 phases of one block, C2 = p - 1. The staging through the
// FIFOs is not modelled: the program is the table lowered to buffers (docs/algorithms.md).

#include "schedules/nccl/pat_allgather.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/nccl/rows.hpp"

namespace phasecheck::schedules::nccl {
namespace {

constexpr ParameterSpec kParameters[] = {kAllgatherCollective};
constexpr int kStepDepth = 8;  // NCCL_STEPS

unsigned lowest_bit(std::uint64_t x) { return static_cast<unsigned>(std::countr_zero(x)); }

/// The aggregated-step sequence (nextAs): bit d of v flips on a schedule of its own.
class AggregatedSteps {
 public:
  explicit AggregatedSteps(unsigned dims) : count_(dims), zero_steps_(dims, 1) {
    for (unsigned d = 0; d < dims; ++d) count_[d] = dims - d;
  }
  std::uint64_t next() {
    const auto dims = static_cast<unsigned>(count_.size());
    for (unsigned d = 0; d < dims; ++d) {
      const std::uint64_t bit = std::uint64_t{1} << d;
      if (--count_[d] != 0) continue;
      v_ ^= bit;
      count_[d] = bit;
      if ((v_ & bit) != 0) continue;
      // Back to zero: bit d stays zero for a while longer, the longer the rarer.
      count_[d] += zero_steps_[d] == 0 ? dims : lowest_bit(zero_steps_[d]);
      count_[d] -= 1;
      if (count_[d] == 0) {
        v_ ^= bit;
        count_[d] = bit;
      }
      ++zero_steps_[d];
    }
    return v_;
  }

 private:
  std::vector<std::uint64_t> count_;
  std::vector<std::uint64_t> zero_steps_;
  std::uint64_t v_ = 0;
};

void check_header(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "nccl-pat-allgather");
  const Topology& t = header.topology;
  const auto* c = std::get_if<Cluster>(&t);
  const auto* g = std::get_if<Graph>(&t);
  const bool one_gpu_per_node =
      std::holds_alternative<FullyConnected>(t) ||
      (c && std::all_of(c->node_sizes().begin(), c->node_sizes().end(),
                        [](Rank n) { return n == 1; })) ||
      (g && std::all_of(g->hosts().begin(), g->hosts().end(), [](Rank n) { return n <= 1; }));
  if (!one_gpu_per_node)
    throw InputError(
        "nccl-pat-allgather needs one GPU per node (NCCL's ncclPatEnable: nNodes == "
        "nRanks), not " +
        describe(t) + "; NCCL uses ring (or NVLS, CollNet) for allgather there");
  if (header.ranks() < 2)
    throw InputError("nccl-pat-allgather needs at least 2 ranks; with one NCCL copies the buffer");
}

}  // namespace

std::vector<PatSend> pat_allgather_sends(Rank ranks) {
  const std::uint64_t p = ranks;
  const std::uint64_t pow2 = std::bit_ceil(p);
  std::uint64_t agg_factor = 1;
  std::uint64_t agg_delta = pow2;
  for (int depth = kStepDepth; depth > 1 && agg_factor < p / 2; depth /= 2) {
    agg_factor *= 2;
    agg_delta /= 2;
  }
  const auto dims = static_cast<unsigned>(std::countr_zero(agg_delta));
  AggregatedSteps steps(dims);
  std::vector<PatSend> sends;

  // Phase 2: the offsets (2a + 1) scale aggDelta, scale = aggFactor / 2 halving to 1.
  for (std::uint64_t scale = agg_factor / 2; scale > 0; scale /= 2)
    for (std::uint64_t a = 0; a < agg_factor / (2 * scale); ++a) {
      const std::uint64_t s = (2 * a + 1) * scale * agg_delta;
      if (s < p) sends.push_back({static_cast<Rank>(s), lowest_bit(s)});
    }
  // Phases 1 and 0 over the aggregated steps: 1 sends s = a aggDelta + as one hop on; for odd as
  // phase 0 then takes the last hops' arrivals (receive only).
  for (std::uint64_t as = steps.next();;) {
    for (std::uint64_t a = 0; a < agg_factor; ++a) {
      const std::uint64_t s = a * agg_delta + as;
      if (s > 0 && s < p) sends.push_back({static_cast<Rank>(s), lowest_bit(s)});
    }
    // Every offset is sent once: more sends than that is a bug in this model, not bad input.
    if (sends.size() > p) throw std::logic_error("pat_allgather_sends: the walk does not end");
    if (as % 2 == 0) {
      as = steps.next();
      continue;
    }
    as = steps.next();  // after phase 0
    if (as == agg_delta / 2) break;
  }
  return sends;
}

void emit_pat_allgather(Rank ranks, const std::vector<PatSend>& sends, const PhaseSink& out) {
  Phase phase;
  phase.reserve(ranks, ranks);
  for (const PatSend& send : sends) {
    phase.clear();
    phase.set_label("offset " + std::to_string(send.offset) + ", dimension " +
                    std::to_string(send.dim));
    const std::uint64_t hop = std::uint64_t{1} << send.dim;
    for (Rank r = 0; r < ranks; ++r) {
      const auto to = static_cast<Rank>((r + ranks - hop % ranks) % ranks);
      const auto origin = static_cast<Rank>((r + send.offset - hop % ranks + ranks) % ranks);
      phase.add(r, to, Block{origin, kEveryRank});
    }
    out(phase);
  }
}

Algorithm pat_allgather_row() {
  return {"nccl-pat-allgather",
          "NCCL's PAT: binomial trees to rank - 2^d, aggregated steps, one GPU per node",
          "NCCL 2.30.7 src/include/collectives.h PatAGAlgorithm, src/graph/tuning.cc", kParameters,
          [](const ScheduleHeader& h, const PhaseSink& out) {
            check_header(h);
            emit_pat_allgather(h.ranks(), pat_allgather_sends(h.ranks()), out);
          },
          [](const ScheduleHeader& h) {
            check_header(h);
            Claims claims{.phases = PhaseClaim::exactly(
                              h.ranks() - 1, "one send per offset 1..p-1 (PatAGAlgorithm)")};
            claims.c2 = PhaseClaim::exactly(h.ranks() - 1, "one block per send");
            return claims;
          },
          // Every phase is a permutation: one send and one receive per rank, so k >= 1 ports; a
          // single-ported node (Sanders-Traeff) would need a pairing.
          [](const ScheduleHeader&, const Topology& model) {
            return std::holds_alternative<FullyConnected>(model);
          }};
}

}  // namespace phasecheck::schedules::nccl
