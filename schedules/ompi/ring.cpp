// Open MPI's ring allgather, ompi_coll_base_allgather_intra_ring (ompi/mca/coll/base/
// coll_base_allgather.c, v4.1.4; unchanged in main). sbuf goes to rbuf[rank]; at step
// i = 0 .. p - 2 rank sends rbuf[rank - i] to rank + 1 and receives rbuf[rank - i - 1] from
// rank - 1, all in rbuf. Phases: the copy, then p - 1 steps of one block: C2 = p - 1.

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-ring";
constexpr ParameterSpec kParameters[] = {kAllgatherCollective};

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  check_program_memory(kName, p, std::uint64_t{p} * p);
  Schedule s = empty_program(header, natural_layout(Collective::allgather, p, 1));
  s.phases.push_back(own_block_copy(p));
  for (Rank i = 0; i + 1 < p; ++i) {
    Phase step("step " + std::to_string(i) + ": send rbuf[rank - " + std::to_string(i) +
               "] to rank + 1");
    for (Rank rank = 0; rank < p; ++rank) {
      const Rank senddatafrom = shifted(rank, -static_cast<std::int64_t>(i), p);
      step.add(BufferOp{rank, shifted(rank, 1, p), rbuf(senddatafrom), rbuf(senddatafrom), 1});
    }
    s.phases.push_back(std::move(step));
  }
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  Claims c{.phases = PhaseClaim::exactly(p, "the copy, then p - 1 steps")};
  c.c2 = PhaseClaim::exactly(p - 1, "one block per step");
  return c;
}

}  // namespace

Algorithm ring() {
  return row({kName, "step i = 0 .. p-2: send rbuf[rank - i] to rank + 1, all in rbuf",
              "Open MPI 4.1.4 coll_base_allgather.c, ompi_coll_base_allgather_intra_ring",
              kParameters, program, claims, one_port});
}

}  // namespace phasecheck::schedules::ompi
