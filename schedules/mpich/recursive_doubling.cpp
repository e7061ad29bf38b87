// MPICH's recursive-doubling allgather, MPIR_Allgather_intra_recursive_doubling
// (src/mpi/coll/allgather/allgather_intra_recursive_doubling.c, pmodels/mpich main at
// 6a79bf6575c3b5b41cabbd3d59340634d6f9412d): the own block into recvbuf[rank]; per mask = 1, 2,
// 4, ... < p one MPIC_Sendrecv with rank xor mask, sending the curr_cnt = mask blocks from
// recvbuf[my_tree_root] and receiving at recvbuf[dst_tree_root] (the roots: rank and dst with their
// low log2(mask) bits cleared). Its own program for those recvbuf offsets (the lowering would give
// the same slots but one op per block). Claims: exactly log2 p + 1 phases, C2 = p - 1, two requests
// per rank and phase. MPICH asserts a power of two (MPIR_Assert under HAVE_ERROR_CHECKING;
// coll_algorithms.txt: "restrictions: power-of-two"); the non-power-of-two code after it is marked
// experimental and unused, so other p are refused here.

#include <bit>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/mpich/mpich.hpp"

namespace phasecheck::schedules::mpich {
namespace {

constexpr ParameterSpec kParameters[] = {kAllgatherCollective};
constexpr std::string_view kName = "mpich-recursive-doubling";

Rank checked_ranks(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  const Rank p = header.ranks();
  if (!std::has_single_bit(p))
    throw InputError(std::string(kName) +
                     " needs a power-of-two number of ranks (p = " + std::to_string(p) +
                     "); MPICH asserts it (allgather_intra_recursive_doubling.c, restrictions: "
                     "power-of-two) and its selection uses another allgather there (brucks or "
                     "ring, e.g. mpich-brucks)");
  return p;
}

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  check_program_memory(header, 1 + std::bit_width(p), p, kName);
  Schedule s{header, {}};
  Phase copy("the own block into recvbuf[rank]");
  for (Rank rank = 0; rank < p; ++rank) copy.add(BufferOp{rank, rank, input(0), output(rank)});
  s.phases.push_back(std::move(copy));
  for (Rank mask = 1; mask < p; mask <<= 1) {
    Phase step("mask " + std::to_string(mask) + ": sendrecv " + std::to_string(mask) +
               " blocks with rank xor " + std::to_string(mask));
    for (Rank rank = 0; rank < p; ++rank) {
      const Rank dst = rank ^ mask;
      const Rank my_tree_root = rank & ~(mask - 1);
      // dst receives at its own dst_tree_root: the root of dst xor mask, this rank's.
      const Rank recv_offset = (dst ^ mask) & ~(mask - 1);
      step.add(BufferOp{rank, dst, output(my_tree_root), output(recv_offset), mask});
    }
    s.phases.push_back(std::move(step));
  }
  s.header.buffers = natural_layout(Collective::allgather, p, 1);
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header);
  const auto steps = static_cast<std::size_t>(std::countr_zero(p));
  return sendrecv_claims(1 + steps, "the own copy, then log2 p sendrecvs", p - 1,
                         "1, 2, 4, ..., p/2 blocks");
}

}  // namespace

Algorithm recursive_doubling() {
  return program_row(
      kName, "log2 p sendrecvs with rank xor mask, doubling the blocks (p = 2^n)",
      "MPICH main allgather_intra_recursive_doubling.c, "
      "MPIR_Allgather_intra_recursive_doubling",
      kParameters, program, claims, [](const ScheduleHeader&, const Topology& model) {
        return std::holds_alternative<Hypercube>(model) || fully_connected_with(model, 1);
      });
}

}  // namespace phasecheck::schedules::mpich
