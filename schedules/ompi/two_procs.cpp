// Open MPI's two-process alltoall and allgather, ompi_coll_base_alltoall_intra_two_procs
// (coll_base_alltoall.c) and ompi_coll_base_allgather_intra_two_procs (coll_base_allgather.c),
// v4.1.4: one ompi_coll_base_sendrecv with remote = rank ^ 1 (alltoall: sbuf[remote] into the
// remote's rbuf[rank]; allgather: sbuf into it), then the local copy of the rank's own block.
// Two phases, C2 = 1. On any other size both functions return MPI_ERR_UNSUPPORTED_OPERATION,
// with no fallback: refused here.

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-two-procs";
constexpr ParameterSpec kParameters[] = {kCollective};

void check(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  if (header.ranks() != 2)
    throw InputError("ompi-two-procs needs exactly 2 ranks (p = " + std::to_string(header.ranks()) +
                     "); Open MPI 4.1 returns MPI_ERR_UNSUPPORTED_OPERATION there, with no "
                     "fallback (coll_base_" +
                     std::string(to_string(header.collective)) + ".c, ompi_coll_base_" +
                     std::string(to_string(header.collective)) + "_intra_two_procs)");
}

Schedule program(const ScheduleHeader& header) {
  check(header);
  const bool alltoall = header.collective == Collective::alltoall;
  Schedule s = empty_program(header, natural_layout(header.collective, 2, 1));
  Phase exchange("sendrecv with rank ^ 1");
  Phase self("local copy of the own block into rbuf[rank]");
  for (Rank rank = 0; rank < 2; ++rank) {
    const Rank remote = rank ^ 1;
    exchange.add(BufferOp{rank, remote, sbuf(alltoall ? remote : 0), rbuf(rank), 1});
    self.add(BufferOp{rank, rank, sbuf(alltoall ? rank : 0), rbuf(rank), 1});
  }
  s.phases.push_back(std::move(exchange));
  s.phases.push_back(std::move(self));
  return s;
}

Claims claims(const ScheduleHeader& header) {
  check(header);
  Claims c{.phases = PhaseClaim::exactly(2, "one sendrecv, then the local copy")};
  c.c2 = PhaseClaim::exactly(1, "one block each way");
  return c;
}

}  // namespace

Algorithm two_procs() {
  return row({kName, "p = 2 only: one sendrecv with rank ^ 1, then the local copy",
              "Open MPI 4.1.4 coll_base_alltoall.c and coll_base_allgather.c, "
              "ompi_coll_base_{alltoall,allgather}_intra_two_procs",
              kParameters, program, claims, one_port});
}

}  // namespace phasecheck::schedules::ompi
