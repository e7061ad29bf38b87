// MPICH's in-place alltoall, MPIR_Alltoall_intra_pairwise_sendrecv_replace
// (src/mpi/coll/alltoallv/alltoallv_intra_pairwise_sendrecv_replace.c,
// MPII_alltoall_pairwise_sendrecv_replace, pmodels/mpich main at
// 6a79bf6575c3b5b41cabbd3d59340634d6f9412d): with MPI_IN_PLACE each rank calls
// MPIC_Sendrecv_replace on recvbuf[i] with partner i, for i = 0 .. p - 1 except itself (the
// default branch: MPIR_CVAR_ALLTOALLV_PAIRWISE_NEW off and no intranode table, i.e. a flat
// communicator). With `order=xor` (MPIR_CVAR_ALLTOALLV_PAIRWISE_NEW) the partner of mask = 0, 1,
// ..., up to the next power of two is rank xor mask, skipped when >= p (mask 0 is the rank itself,
// a no-op here). The calls block, so a phase here is what runs at once: the exchange of a pair
// {a, b} happens one phase after the later of a's and b's previous exchanges (as soon as both
// reach it; each rank's sequence of pairs is increasing in the common order, so it never
// deadlocks). An exchange swaps recvbuf[b] of a with recvbuf[a] of b in one phase (Sendrecv_replace
// packs the outgoing block into a temporary first; a phase reads before it writes, so no scratch is
// needed). Format 4: no input, output slot d starts with (r, d). Claims: rank order 2p - 3 phases
// (p >= 2: pair {a, b}, a < b, runs in phase a + b - 1, counting from 0), xor order
// exactly the non-zero masks with a pair below p; two requests per rank and phase.

#include <algorithm>
#include <bit>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {
namespace {

constexpr std::string_view kOrders[] = {"rank", "xor"};
constexpr ParameterSpec kOrder{
    "order", Choice{kOrders}, Fixed{"rank"},
    "rank: partners 0 .. p - 1; xor: rank xor mask (MPIR_CVAR_ALLTOALLV_PAIRWISE_NEW)"};
constexpr ParameterSpec kParameters[] = {kAlltoallCollective, kOrder};
constexpr std::string_view kName = "mpich-pairwise-sendrecv-replace";

struct Shape {
  Rank p = 1;
  bool xor_order = false;
};

Shape checked_shape(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  return {header.ranks(), read_choice(header.parameters, kOrder) == "xor"};
}

/// The phase of each exchange: rank order, pair {a, b} (a < b) in phase a + b - 1 (counting from
/// 0) as the as-soon-as-possible run of the blocking calls gives it.
Schedule rank_order(Schedule s, Rank p) {
  // When each rank is free again: the phase after its last exchange.
  std::vector<std::uint64_t> free_at(p, 0);
  std::vector<std::vector<BufferOp>> phases;
  // Rank a calls partners 0, 1, ... in order; replay the pairs in the common (lexicographic) order,
  // which is each rank's order too.
  for (Rank a = 0; a < p; ++a)
    for (Rank b = a + 1; b < p; ++b) {
      const std::uint64_t t = std::max(free_at[a], free_at[b]);
      if (phases.size() <= t) phases.resize(t + 1);
      phases[t].push_back(BufferOp{a, b, output(b), output(a)});
      phases[t].push_back(BufferOp{b, a, output(a), output(b)});
      free_at[a] = free_at[b] = t + 1;
    }
  for (std::size_t t = 0; t < phases.size(); ++t) {
    Phase phase("phase " + std::to_string(t) + ": Sendrecv_replace of the pairs that reach it");
    for (const BufferOp& op : phases[t]) phase.add(op);
    s.phases.push_back(std::move(phase));
  }
  return s;
}

Schedule xor_order(Schedule s, Rank p) {
  const std::uint64_t max_mask = std::bit_ceil(std::uint64_t{p});
  for (std::uint64_t mask = 1; mask < max_mask; ++mask) {
    Phase phase("mask " + std::to_string(mask) + ": Sendrecv_replace with rank xor " +
                std::to_string(mask));
    for (Rank rank = 0; rank < p; ++rank) {
      const std::uint64_t r = rank ^ mask;
      if (r >= p) continue;
      phase.add(BufferOp{rank, static_cast<Rank>(r), output(r), output(rank)});
    }
    if (!phase.ops().empty()) s.phases.push_back(std::move(phase));
  }
  return s;
}

Schedule program(const ScheduleHeader& header) {
  const Shape shape = checked_shape(header);
  check_program_memory(header, shape.p, shape.p, kName);
  Schedule s{header, {}};
  s.header.buffers = natural_layout(Collective::alltoall, shape.p, 1, true);
  return shape.xor_order ? xor_order(std::move(s), shape.p) : rank_order(std::move(s), shape.p);
}

Claims claims(const ScheduleHeader& header) {
  const Shape s = checked_shape(header);
  Claims c;
  if (s.xor_order) {
    // The masks below the next power of two that pair at least one rank with a rank below p.
    std::size_t masks = 0;
    for (std::uint64_t mask = 1; mask < std::bit_ceil(std::uint64_t{s.p}); ++mask)
      for (std::uint64_t r = 0; r < s.p; ++r)
        if ((r ^ mask) < s.p) {
          ++masks;
          break;
        }
    c.phases = PhaseClaim::exactly(masks, "one phase per mask with a pair below p");
  } else {
    c.phases = PhaseClaim::exactly(s.p < 2 ? 0 : 2 * std::size_t{s.p} - 3,
                                   "pair {a, b} (a < b) runs in phase a + b - 1: 2p - 3 phases");
  }
  c.max_requests = Claims::RequestLimit{2, "one MPIC_Sendrecv_replace at a time"};
  return c;
}

}  // namespace

Algorithm pairwise_sendrecv_replace() {
  return program_row(
      kName, "in place: MPIC_Sendrecv_replace with every partner in rank (or xor) order",
      "MPICH main alltoallv_intra_pairwise_sendrecv_replace.c, "
      "MPIR_Alltoall_intra_pairwise_sendrecv_replace",
      kParameters, program, claims,
      [](const ScheduleHeader&, const Topology& model) { return fully_connected_with(model, 1); },
      true);
}

}  // namespace phasecheck::schedules::mpich
