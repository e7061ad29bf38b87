// Open MPI's neighbor-exchange allgather, ompi_coll_base_allgather_intra_neighborexchange
// (ompi/mca/coll/base/coll_base_allgather.c, v4.1.4; unchanged in main; Chen et al. 2005).
// sbuf goes to rbuf[rank]. Even ranks talk to rank + 1 first and rank - 1 next, odd ranks the
// other way round, alternating: step 0 exchanges the rank's own block with neighbor[0]; steps
// i = 1 .. p/2 - 1 send the two blocks received last (rbuf[send_data_from], 2 blocks) to
// neighbor[i % 2] and receive two at recv_data_from[i % 2], which moves by +-2 each time.
// Phases: the copy, then p/2 steps: C2 = 1 + 2 (p/2 - 1) = p - 1. At odd p Open MPI switches to
// ring (ompi_coll_base_allgather_intra_ring, registered as ompi-ring): refused here.

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-neighbor-exchange";
constexpr ParameterSpec kParameters[] = {kAllgatherCollective};

Rank supported_ranks(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  if (p % 2 != 0)
    throw InputError(
        "ompi-neighbor-exchange needs an even number of ranks (p = " + std::to_string(p) +
        "); Open MPI 4.1 falls back to ring there (coll_base_allgather.c, "
        "ompi_coll_base_allgather_intra_ring; registered as ompi-ring)");
  return p;
}

/// One rank's walk: neighbours, where its blocks arrive and where it sends from.
struct Walk {
  Rank neighbor[2];
  std::int64_t offset_at_step[2];
  Rank recv_data_from[2];
  Rank send_data_from;
};

Walk start(Rank rank, Rank p) {
  Walk w{};
  if (rank % 2 == 0) {
    w.neighbor[0] = shifted(rank, 1, p);
    w.neighbor[1] = shifted(rank, -1, p);
    w.recv_data_from[0] = w.recv_data_from[1] = rank;
    w.offset_at_step[0] = 2;
    w.offset_at_step[1] = -2;
    w.send_data_from = rank;
  } else {
    w.neighbor[0] = shifted(rank, -1, p);
    w.neighbor[1] = shifted(rank, 1, p);
    w.recv_data_from[0] = w.recv_data_from[1] = w.neighbor[0];
    w.offset_at_step[0] = -2;
    w.offset_at_step[1] = 2;
    w.send_data_from = w.recv_data_from[0];
  }
  return w;
}

Schedule program(const ScheduleHeader& header) {
  const Rank p = supported_ranks(header);
  check_program_memory(kName, p, std::uint64_t{p} * (p / 2 + 1));
  Schedule s = empty_program(header, natural_layout(Collective::allgather, p, 1));
  s.phases.push_back(own_block_copy(p));
  Phase first("step 0: exchange the own block with neighbor[0]");
  std::vector<Walk> walks;
  walks.reserve(p);
  for (Rank rank = 0; rank < p; ++rank) {
    walks.push_back(start(rank, p));
    first.add(BufferOp{rank, walks.back().neighbor[0], rbuf(rank), rbuf(rank), 1});
  }
  s.phases.push_back(std::move(first));
  for (Rank i = 1; i < p / 2; ++i) {
    const unsigned parity = i % 2;
    Phase step("step " + std::to_string(i) + ": two blocks with neighbor[" +
               std::to_string(parity) + "]");
    for (Rank rank = 0; rank < p; ++rank) {
      Walk& w = walks[rank];
      w.recv_data_from[parity] = shifted(w.recv_data_from[parity], w.offset_at_step[parity], p);
      // The two blocks keep their place in the neighbour's rbuf (its recv_data_from).
      step.add(
          BufferOp{rank, w.neighbor[parity], rbuf(w.send_data_from), rbuf(w.send_data_from), 2});
      w.send_data_from = w.recv_data_from[parity];
    }
    s.phases.push_back(std::move(step));
  }
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = supported_ranks(header);
  Claims c{.phases = PhaseClaim::exactly(1 + std::size_t{p / 2}, "the copy, then p/2 steps")};
  c.c2 = PhaseClaim::exactly(p - 1, "one block at step 0, two at each of the p/2 - 1 others");
  return c;
}

}  // namespace

Algorithm neighbor_exchange() {
  return row(
      {kName, "p even: exchange with rank +- 1 alternately, forwarding the two blocks last got",
       "Open MPI 4.1.4 coll_base_allgather.c, ompi_coll_base_allgather_intra_neighborexchange",
       kParameters, program, claims, one_port});
}

}  // namespace phasecheck::schedules::ompi
