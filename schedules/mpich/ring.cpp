// MPICH's ring allgather, MPIR_Allgather_intra_ring (src/mpi/coll/allgather/allgather_intra_ring.c,
// pmodels/mpich main at 6a79bf6575c3b5b41cabbd3d59340634d6f9412d): the own block is copied into
// recvbuf[rank]; then p - 1 MPIC_Sendrecv steps send recvbuf[j] to rank + 1 and receive
// recvbuf[jnext] from rank - 1, starting with j = rank, jnext = rank - 1 and moving both one block
// down per step. Every block goes from and into recvbuf at its origin's index, which is what the
// generic lowering does too; the row has its own program only to keep the copy a phase of its own,
// as MPICH does. Claims: exactly p phases, C2 = p - 1, two requests per rank and phase.
// MPI_IN_PLACE only skips the copy (not modelled).

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {
namespace {

constexpr ParameterSpec kParameters[] = {kAllgatherCollective};
constexpr std::string_view kName = "mpich-ring";

Rank checked_ranks(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  return header.ranks();
}

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  check_program_memory(header, p, p, kName);
  Schedule s{header, {}};
  Phase copy("load the own block into recvbuf[rank]");
  for (Rank rank = 0; rank < p; ++rank) copy.add(BufferOp{rank, rank, input(0), output(rank)});
  s.phases.push_back(std::move(copy));
  for (Rank i = 1; i < p; ++i) {
    Phase step("step " + std::to_string(i) + ": recvbuf[rank - " + std::to_string(i - 1) +
               "] to rank + 1");
    for (Rank rank = 0; rank < p; ++rank) {
      // j = rank - (i - 1): what arrived in the previous step (the own block in the first).
      const Rank j = (rank + p - (i - 1)) % p;
      step.add(BufferOp{rank, (rank + 1) % p, output(j), output(j)});
    }
    s.phases.push_back(std::move(step));
  }
  s.header.buffers = natural_layout(Collective::allgather, p, 1);
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  return sendrecv_claims(p, "the own copy, then p - 1 sendrecv steps", p - 1, "one block per step");
}

}  // namespace

Algorithm ring() {
  return program_row(kName, "p - 1 sendrecvs to rank + 1, forwarding what arrived last",
                     "MPICH main allgather_intra_ring.c, MPIR_Allgather_intra_ring", kParameters,
                     program, claims, [](const ScheduleHeader&, const Topology& model) {
                       return std::holds_alternative<Ring>(model) || fully_connected_with(model, 1);
                     });
}

}  // namespace phasecheck::schedules::mpich
