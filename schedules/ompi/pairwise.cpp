// Open MPI's pairwise alltoall, ompi_coll_base_alltoall_intra_pairwise (ompi/mca/coll/base/
// coll_base_alltoall.c, v4.1.4; unchanged in main): "starting from 1 so the local copy is last",
// step s = 1 .. p does one ompi_coll_base_sendrecv of sbuf[rank + s] to rank + s and of rank - s's
// block into rbuf[rank - s]. Step p is rank to itself, which ompi_coll_base_sendrecv turns into a
// local copy: p phases, the last one local, one message per rank and direction in every other, so
// C2 = p - 1. Under MPI_IN_PLACE Open MPI calls the basic in-place algorithm instead
// (ompi-inplace).

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-pairwise";
constexpr ParameterSpec kParameters[] = {kAlltoallCollective};

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  check_program_memory(kName, p, std::uint64_t{p} * p);
  Schedule s = empty_program(header, natural_layout(Collective::alltoall, p, 1));
  for (Rank step = 1; step <= p; ++step) {
    Phase phase(step == p ? "step " + std::to_string(step) + ": local copy sbuf[rank] -> rbuf[rank]"
                          : "step " + std::to_string(step) + ": sendrecv to rank + " +
                                std::to_string(step) + ", from rank - " + std::to_string(step));
    for (Rank rank = 0; rank < p; ++rank) {
      const Rank sendto = shifted(rank, step % p, p);
      // sendto receives it from its rank - step, into rbuf[that rank].
      phase.add(BufferOp{rank, sendto, sbuf(sendto), rbuf(rank), 1});
    }
    s.phases.push_back(std::move(phase));
  }
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  Claims c{.phases = PhaseClaim::exactly(p, "steps 1 .. p, step p the local copy")};
  c.c2 = PhaseClaim::exactly(p - 1, "one block per sendrecv, p - 1 sendrecvs between ranks");
  return c;
}

}  // namespace

Algorithm pairwise() {
  return row({kName, "step s = 1 .. p: sendrecv to rank + s, from rank - s; the self copy last",
              "Open MPI 4.1.4 coll_base_alltoall.c, ompi_coll_base_alltoall_intra_pairwise",
              kParameters, program, claims, one_port});
}

}  // namespace phasecheck::schedules::ompi
