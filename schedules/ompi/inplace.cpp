// Open MPI's in-place alltoall, mca_coll_base_alltoall_intra_basic_inplace (ompi/mca/coll/base/
// coll_base_alltoall.c, v4.1.4), which every coll/base alltoall calls under MPI_IN_PLACE. Round
// i = 1 .. floor(p/2) exchanges with both neighbours at distance i, right = rank + i and
// left = rank - i, through one block of temporary memory: pack rbuf[right] into tmp_buffer, irecv
// rbuf[right] from right; when left != right send rbuf[left] to left, wait, irecv rbuf[left] from
// left; then send tmp_buffer to right and wait. Model: each round is two phases, "send left" (the
// pack, the send of rbuf[left], the receive from right) and "send right" (tmp_buffer to right,
// the receive from left); in the last round of an even p left == right and its first phase is
// the pack alone. So 2 floor(p/2) phases, p - 1 of them sending one block each: C2 = p - 1.

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-inplace";
constexpr ParameterSpec kParameters[] = {kAlltoallCollective};

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  check_program_memory(kName, p, 3 * std::uint64_t{p} * p);
  BufferLayout layout = natural_layout(Collective::alltoall, p, 1, true);
  layout.scratch = 1;  // tmp_buffer: max_size = one block
  Schedule s = empty_program(header, layout);
  s.header.inplace = true;
  for (Rank i = 1; i <= p / 2; ++i) {
    const std::string d = std::to_string(i);
    Phase left_phase("round " + d + ": pack rbuf[rank + " + d + "], send rbuf[rank - " + d +
                     "] to rank - " + d);
    Phase right_phase("round " + d + ": send tmp_buffer to rank + " + d);
    for (Rank rank = 0; rank < p; ++rank) {
      const Rank right = shifted(rank, i, p);
      const Rank left = shifted(rank, -static_cast<std::int64_t>(i), p);
      left_phase.add(BufferOp{rank, rank, rbuf(right), tmpbuf(0), 1});
      // left receives it from its right (this rank) into its rbuf[rank].
      if (left != right) left_phase.add(BufferOp{rank, left, rbuf(left), rbuf(rank), 1});
      // right receives it from its left (this rank) into its rbuf[rank].
      right_phase.add(BufferOp{rank, right, tmpbuf(0), rbuf(rank), 1});
    }
    s.phases.push_back(std::move(left_phase));
    s.phases.push_back(std::move(right_phase));
  }
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  Claims c{.phases = PhaseClaim::exactly(
               2 * std::size_t{p / 2}, "floor(p/2) rounds of two phases (send left, send right)")};
  c.c2 = PhaseClaim::exactly(p - 1, "one block per message; p - 1 phases send");
  return c;
}

}  // namespace

Algorithm inplace() {
  return row({kName,
              "in place: round i swaps with rank +- i through one block of scratch (MPI_IN_PLACE)",
              "Open MPI 4.1.4 coll_base_alltoall.c, mca_coll_base_alltoall_intra_basic_inplace",
              kParameters, program, claims, one_port, true});
}

}  // namespace phasecheck::schedules::ompi
