// MPICH's pairwise alltoall, MPIR_Alltoall_intra_pairwise (src/mpi/coll/alltoall/
// alltoall_intra_pairwise.c, pmodels/mpich main at 6a79bf6575c3b5b41cabbd3d59340634d6f9412d): the
// local copy sendbuf[rank] -> recvbuf[rank] first, then p - 1 MPIC_Sendrecv steps. For p a power of
// two step i exchanges with rank xor i (src = dst); otherwise step i sends to rank + i and
// receives from rank - i. Each send reads sendbuf[dst] and each receive writes recvbuf[src]
// directly: the generic lowering would fold the self copy into the first step, so the row has its
// own program. Claims: exactly p phases (the copy, then p - 1 steps), C2 = p - 1, two requests per
// rank and phase (one sendrecv). MPICH asserts sendbuf != MPI_IN_PLACE (restrictions: noinplace).

#include <bit>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {
namespace {

constexpr ParameterSpec kParameters[] = {kAlltoallCollective};
constexpr std::string_view kName = "mpich-pairwise";

Rank checked_ranks(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  return header.ranks();
}

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  check_program_memory(header, p, p, kName);
  const bool is_pof2 = std::has_single_bit(p);
  Schedule s{header, {}};
  Phase copy("local copy sendbuf[rank] -> recvbuf[rank]");
  for (Rank rank = 0; rank < p; ++rank) copy.add(BufferOp{rank, rank, input(rank), output(rank)});
  s.phases.push_back(std::move(copy));
  for (Rank i = 1; i < p; ++i) {
    Phase step(is_pof2
                   ? "step " + std::to_string(i) + ": sendrecv with rank xor " + std::to_string(i)
                   : "step " + std::to_string(i) + ": send to rank + " + std::to_string(i) +
                         ", receive from rank - " + std::to_string(i));
    for (Rank rank = 0; rank < p; ++rank) {
      const Rank dst = is_pof2 ? rank ^ i : (rank + i) % p;
      step.add(BufferOp{rank, dst, input(dst), output(rank)});
    }
    s.phases.push_back(std::move(step));
  }
  s.header.buffers = natural_layout(Collective::alltoall, p, 1);
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  return sendrecv_claims(p, "the local copy, then p - 1 sendrecv steps", p - 1,
                         "one block per step");
}

}  // namespace

Algorithm pairwise() {
  return program_row(
      kName, "self copy, then p - 1 sendrecvs: rank xor i for p a power of two, else rank + i",
      "MPICH main alltoall_intra_pairwise.c, MPIR_Alltoall_intra_pairwise", kParameters, program,
      claims,
      [](const ScheduleHeader&, const Topology& model) { return fully_connected_with(model, 1); });
}

}  // namespace phasecheck::schedules::mpich
