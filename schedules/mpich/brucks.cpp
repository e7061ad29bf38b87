// MPICH's Bruck algorithms, pmodels/mpich main at 6a79bf6575c3b5b41cabbd3d59340634d6f9412d, one row
// for both collectives (--set collective=alltoall|allgather):
//
// alltoall, MPIR_Alltoall_intra_brucks (src/mpi/coll/alltoall/alltoall_intra_brucks.c): Phase 1
// rotates sendbuf up by rank into recvbuf (two copies); per pof2 = 1, 2, 4, ... < p the blocks of
// recvbuf whose index has bit pof2 set are packed into tmp_buf (MPIR_Localcopy with an indexed
// datatype), then one MPIC_Sendrecv sends tmp_buf to rank + pof2 and receives from rank - pof2
// straight into the same indexed blocks of recvbuf; finally recvbuf is rotated up by rank + 1 into
// tmp_buf (two copies) and copied back reversed, block by block. Scratch: tmp_buf, p slots. So
// 3 + 2 ceil(log2 p) phases, ceil(log2 p) of them communicating, with Bruck et al.'s C2 for r = 2.
//
// allgather, MPIR_Allgather_intra_brucks (src/mpi/coll/allgather/allgather_intra_brucks.c): the
// own block to tmp_buf[0]; per pof2 <= p/2 send tmp_buf[0 .. pof2) to rank - pof2 and receive
// tmp_buf[pof2 .. 2 pof2) from rank + pof2; when p is not a power of two one more step with the
// rem = p - pof2 first blocks; then tmp_buf rotated down by rank into recvbuf (two copies).
// Scratch: tmp_buf, p slots. So ceil(log2 p) + 2 phases and C2 = p - 1, the optimum.
//
// Both differ from the generic lowering (tmp_buf, packing, rotations), so both have programs. MPICH
// runs the alltoall only out of place (MPIR_Assert, restrictions: noinplace); the allgather's
// MPI_IN_PLACE variant only changes where the first copy reads and is not modelled here.

#include <algorithm>

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "schedules/bruck.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {
namespace {

constexpr ParameterSpec kParameters[] = {kCollective};
constexpr std::string_view kName = "mpich-brucks";

Rank checked_ranks(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  return header.ranks();
}

constexpr const char* kPhase1 = "Phase 1: rotate sendbuf up by rank into recvbuf";
constexpr const char* kFinal = "final rotation";

std::string pack_label(std::uint64_t pof2) {
  const std::string d = std::to_string(pof2);
  return "pof2 = " + d + ": pack the blocks with bit " + d + " set into tmp_buf";
}
std::string exchange_label(std::uint64_t pof2) {
  const std::string d = std::to_string(pof2);
  return "pof2 = " + d + ": sendrecv tmp_buf to rank + " + d + ", into recvbuf";
}

/// alltoall_program's table, streamed (add_bruck_exchange with k = 2): its local phases are empty.
void alltoall_table(Rank p, const PhaseSink& out) {
  Phase phase;
  const auto local = [&](std::string label) {
    phase.clear();
    phase.set_label(std::move(label));
    out(phase);
  };
  local(kPhase1);
  for (std::uint64_t pof2 = 1; pof2 < p; pof2 *= 2) {
    local(pack_label(pof2));
    phase.clear();
    phase.set_label(exchange_label(pof2));
    add_bruck_exchange(phase, p, 2, pof2, 1);
    out(phase);
  }
  local(rotate_out_label(kFinal));
  local(invert_label(kFinal));
}

Schedule alltoall_program(const ScheduleHeader& header, Rank p) {
  check_program_memory(header, 4 * std::uint64_t{p}, 2 * std::uint64_t{p}, kName);
  Schedule s{header, {}};
  rotate_in(s, p, kPhase1);
  for (std::uint64_t pof2 = 1; pof2 < p; pof2 *= 2) {
    Phase pack(pack_label(pof2));
    Phase exchange(exchange_label(pof2));
    for (Rank rank = 0; rank < p; ++rank) {
      const auto dst = static_cast<Rank>((rank + pof2) % p);
      std::uint64_t packed = 0;
      // The runs [i, i + pof2) of block indices with bit pof2 set, cut at p.
      for (std::uint64_t i = pof2; i < p; i += 2 * pof2) {
        const auto run = static_cast<std::uint32_t>(std::min<std::uint64_t>(pof2, p - i));
        pack.add(BufferOp{rank, rank, output(i), scratch(packed), run});
        exchange.add(BufferOp{rank, dst, scratch(packed), output(i), run});
        packed += run;
      }
    }
    s.phases.push_back(std::move(pack));
    s.phases.push_back(std::move(exchange));
  }
  rotate_out(s, p, kFinal);
  BufferLayout layout = natural_layout(Collective::alltoall, p, 1);
  layout.scratch = p;
  s.header.buffers = layout;
  return s;
}

Schedule allgather_program(const ScheduleHeader& header, Rank p) {
  check_program_memory(header, 4, 2 * std::uint64_t{p}, kName);
  Schedule s{header, {}};
  Phase first("copy the own block to the top of tmp_buf");
  for (Rank rank = 0; rank < p; ++rank) first.add(BufferOp{rank, rank, input(0), scratch(0)});
  s.phases.push_back(std::move(first));
  std::uint64_t pof2 = 1;
  auto step = [&](std::uint64_t count, std::uint64_t curr) {
    Phase phase("pof2 = " + std::to_string(pof2) + ": send tmp_buf[0.." + std::to_string(count) +
                ") to rank - " + std::to_string(pof2) + ", receive from rank + " +
                std::to_string(pof2));
    for (Rank rank = 0; rank < p; ++rank) {
      const auto dst = static_cast<Rank>((rank + p - pof2) % p);
      phase.add(BufferOp{rank, dst, scratch(0), scratch(curr), static_cast<std::uint32_t>(count)});
    }
    s.phases.push_back(std::move(phase));
  };
  std::uint64_t curr = 1;
  for (; pof2 <= p / 2; pof2 *= 2, curr *= 2) step(curr, curr);
  if (const std::uint64_t rem = p - pof2) step(rem, curr);
  Phase rotate("rotate tmp_buf down by rank into recvbuf");
  for (Rank rank = 0; rank < p; ++rank) {
    rotate.add(BufferOp{rank, rank, scratch(0), output(rank), p - rank});
    if (rank != 0) rotate.add(BufferOp{rank, rank, scratch(p - rank), output(0), rank});
  }
  s.phases.push_back(std::move(rotate));
  BufferLayout layout = natural_layout(Collective::allgather, p, 1);
  layout.scratch = p;
  s.header.buffers = layout;
  return s;
}

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  return header.collective == Collective::alltoall ? alltoall_program(header, p)
                                                   : allgather_program(header, p);
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  const unsigned rounds = radix_digits(p, 2);
  const std::string steps = "ceil(log2 p) = " + std::to_string(rounds) + " sendrecvs";
  if (header.collective == Collective::allgather) {
    Claims c{.phases = PhaseClaim::exactly(2 + std::size_t{rounds},
                                           steps + " between the first copy and the rotation")};
    c.c2 = PhaseClaim::exactly(p - 1, "1, 2, 4, ... and the rest: p - 1 blocks in all");
    return c;
  }
  std::uint64_t c2 = 0;
  std::vector<std::size_t> round_end;
  std::uint64_t pof2 = 1;
  for (unsigned x = 0; x < rounds; ++x, pof2 *= 2) {
    c2 += blocks_with_digit(p, 2, pof2, 1);
    round_end.push_back(2 + 2 * std::size_t{x});  // Phase 1, then pack and sendrecv per round
  }
  Claims c{.invariants = {rotation_invariant(p, 2, std::move(round_end))},
           .phases = PhaseClaim::exactly(
               3 + 2 * std::size_t{rounds},
               steps + ", each after its pack, between Phase 1 and the two final rotations")};
  c.c2 = PhaseClaim::exactly(
      c2, "per pof2 the block indices with that bit set (Bruck et al., Section 3.2, r = 2)");
  return c;
}

}  // namespace

namespace {

/// The table: the alltoall's streamed, the allgather's derived from its program (p ops a phase).
void table(const ScheduleHeader& header, const PhaseSink& out) {
  if (header.collective == Collective::alltoall) return alltoall_table(checked_ranks(header), out);
  table_of(program(header), out);
}

}  // namespace

Algorithm brucks() {
  Algorithm row = program_row(
      kName,
      "Bruck with r = 2: alltoall packs the blocks with bit i set; allgather doubles tmp_buf",
      "MPICH main alltoall_intra_brucks.c and allgather_intra_brucks.c; Bruck et al., Sections 3 "
      "and 4 with r = 2, k = 1",
      kParameters, program, claims,
      [](const ScheduleHeader&, const Topology& model) { return fully_connected_with(model, 1); });
  row.generate = table;
  return row;
}

}  // namespace phasecheck::schedules::mpich
