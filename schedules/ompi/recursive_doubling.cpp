// Open MPI's recursive-doubling allgather, ompi_coll_base_allgather_intra_recursivedoubling
// (ompi/mca/coll/base/coll_base_allgather.c, v4.1.4; unchanged in main). sbuf goes to
// rbuf[rank]; at distance 1, 2, 4, ... < p rank exchanges with rank ^ distance the `distance`
// blocks it holds, rbuf[sendblocklocation ..], which land at the same offsets in the partner's
// rbuf (sendblocklocation moves down by distance on the upper rank). Phases: the copy, then
// log2 p exchanges of 1, 2, 4, ... blocks: C2 = p - 1. Off powers of two Open MPI switches to
// Bruck (ompi_coll_base_allgather_intra_bruck; it sends what ompi-bruck-k sends with radix 2, as
// the recorded runs show): refused here.

#include <bit>

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-recursive-doubling";
constexpr ParameterSpec kParameters[] = {kAllgatherCollective};

Rank supported_ranks(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  if (!std::has_single_bit(p))
    throw InputError(
        "ompi-recursive-doubling needs a power-of-two number of ranks (p = " + std::to_string(p) +
        "); Open MPI 4.1 falls back to bruck there (coll_base_allgather.c, "
        "ompi_coll_base_allgather_intra_bruck, which sends what ompi-bruck-k sends with radix 2)");
  return p;
}

Schedule program(const ScheduleHeader& header) {
  const Rank p = supported_ranks(header);
  check_program_memory(kName, p, std::uint64_t{p} * (std::bit_width(p) + 1));
  Schedule s = empty_program(header, natural_layout(Collective::allgather, p, 1));
  s.phases.push_back(own_block_copy(p));
  std::vector<Rank> location(p);  // sendblocklocation of every rank
  for (Rank rank = 0; rank < p; ++rank) location[rank] = rank;
  for (Rank distance = 1; distance < p; distance <<= 1) {
    Phase exchange("distance " + std::to_string(distance) + ": sendrecv with rank ^ " +
                   std::to_string(distance));
    for (Rank rank = 0; rank < p; ++rank) {
      const Rank remote = rank ^ distance;
      // The partner receives at the offset it computes for us: our blocks keep their place.
      exchange.add(BufferOp{rank, remote, rbuf(location[rank]), rbuf(location[rank]), distance});
    }
    for (Rank rank = 0; rank < p; ++rank)
      if (rank > (rank ^ distance)) location[rank] -= distance;
    s.phases.push_back(std::move(exchange));
  }
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = supported_ranks(header);
  const auto rounds = static_cast<std::size_t>(std::countr_zero(p));
  Claims c{.phases = PhaseClaim::exactly(1 + rounds, "the copy, then log2 p exchanges")};
  c.c2 = PhaseClaim::exactly(p - 1, "1 + 2 + ... + p/2 blocks");
  return c;
}

}  // namespace

Algorithm recursive_doubling() {
  return row({kName, "p a power of two: exchange with rank ^ d the d blocks held, d = 1, 2, 4, ...",
              "Open MPI 4.1.4 coll_base_allgather.c, "
              "ompi_coll_base_allgather_intra_recursivedoubling",
              kParameters, program, claims, one_port});
}

}  // namespace phasecheck::schedules::ompi
