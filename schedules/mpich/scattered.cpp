// MPICH's scattered alltoall, MPIR_Alltoall_intra_scattered (src/mpi/coll/alltoall/
// alltoall_intra_scattered.c, pmodels/mpich main at 6a79bf6575c3b5b41cabbd3d59340634d6f9412d): in
// batches of bblock = MPIR_CVAR_ALLTOALL_THROTTLE (default 32; 0 posts everything at once) a rank
// posts ss = min(bblock, p - ii) Irecvs from rank + ii + i into recvbuf[rank + ii + i] and ss
// Isends of sendbuf[rank - ii - i] to rank - ii - i, then Waitalls. Batch 0 includes i = 0, the
// rank's message to itself (an Isend/Irecv pair with itself: a local copy here). Each send reads
// sendbuf and each receive writes recvbuf directly; the row has its own program so that the self
// message stays in batch 0 as MPICH posts it. Claims: exactly ceil(p / bblock) phases, at most
// 2 bblock requests per rank and phase (the Waitall's reqarray), C2 = the number of batches (one
// block per message). MPICH asserts sendbuf != MPI_IN_PLACE (restrictions: noinplace).

#include <algorithm>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {
namespace {

constexpr ParameterSpec kBblock{
    "bblock", UInt{0, kMaxRanks}, Fixed{"32"},
    "requests of each kind a batch posts (MPIR_CVAR_ALLTOALL_THROTTLE; 0: all at once)"};
constexpr ParameterSpec kParameters[] = {kAlltoallCollective, kBblock};
constexpr std::string_view kName = "mpich-scattered";

struct Shape {
  Rank p = 1;
  std::uint64_t bblock = 32;  ///< 0 already replaced by p
};

Shape checked_shape(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  Shape s{header.ranks(), read_uint(header.parameters, kBblock, header.ranks())};
  if (s.bblock == 0) s.bblock = s.p;
  return s;
}

Schedule program(const ScheduleHeader& header) {
  const Shape shape = checked_shape(header);
  const Rank p = shape.p;
  check_program_memory(header, p, p, kName);
  Schedule s{header, {}};
  for (std::uint64_t ii = 0; ii < p; ii += shape.bblock) {
    const std::uint64_t ss = std::min<std::uint64_t>(shape.bblock, p - ii);
    Phase batch("batch ii = " + std::to_string(ii) + ": " + std::to_string(ss) +
                " Isends to rank - ii - i, Irecvs from rank + ii + i, Waitall");
    for (Rank rank = 0; rank < p; ++rank)
      for (std::uint64_t i = 0; i < ss; ++i) {
        const auto dst = static_cast<Rank>((rank + p - (i + ii) % p) % p);
        batch.add(BufferOp{rank, dst, input(dst), output(rank)});
      }
    s.phases.push_back(std::move(batch));
  }
  s.header.buffers = natural_layout(Collective::alltoall, p, 1);
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Shape s = checked_shape(header);
  const std::uint64_t batches = (s.p + s.bblock - 1) / s.bblock;
  Claims c{.phases = PhaseClaim::exactly(
               batches, "ceil(p / bblock) batches, bblock = " + std::to_string(s.bblock))};
  // Batch 0 of one message (bblock = 1, or p = 1) is the self copy alone: no send.
  const bool self_only_batch = s.bblock == 1 || s.p == 1;
  c.c2 = PhaseClaim::exactly(batches - (self_only_batch ? 1 : 0),
                             "one block per message, over the batches that send");
  c.max_requests =
      Claims::RequestLimit{static_cast<std::uint32_t>(2 * s.bblock),
                           "2 bblock requests per Waitall, bblock = " + std::to_string(s.bblock)};
  return c;
}

}  // namespace

Algorithm scattered() {
  return program_row(
      kName, "batches of bblock Isend/Irecv pairs to rank - j / from rank + j, Waitall each",
      "MPICH main alltoall_intra_scattered.c, MPIR_Alltoall_intra_scattered", kParameters, program,
      claims, [](const ScheduleHeader& h, const Topology& model) {
        const Shape s = checked_shape(h);
        return fully_connected_with(model, s.bblock);
      });
}

}  // namespace phasecheck::schedules::mpich
