// Open MPI's Bruck alltoall, ompi_coll_base_alltoall_intra_bruck (ompi/mca/coll/base/
// coll_base_alltoall.c): Bruck et al.'s index algorithm with r = 2 and one port. Step 1 rotates
// sbuf into tmpbuf; each distance 1, 2, 4, ... < p is one sendrecv of a derived datatype (the runs
// of block-ids with bit log2(distance) set) from tmpbuf into rbuf, and a copy of the same runs back
// into tmpbuf; Step 3 rotates tmpbuf into rbuf in reverse. So ceil(log2 p) rounds that communicate
// and ceil(log2 p) + 2 local phases, with C2 = the sum over rounds of the blocks with that bit set
// (Bruck et al., Section 3.2 with r = 2).

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "schedules/bruck.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules {
namespace {

constexpr ParameterSpec kParameters[] = {kAlltoallCollective};

Rank checked_ranks(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "ompi-bruck");
  if (header.collective != Collective::alltoall)
    throw InputError("ompi-bruck is Open MPI's alltoall; for allgather use bruck-concat");
  return header.ranks();
}

Slot tmpbuf(std::uint64_t i) { return {Buffer::scratch, static_cast<std::uint32_t>(i)}; }
Slot rbuf(std::uint64_t i) { return {Buffer::output, static_cast<std::uint32_t>(i)}; }

/// The runs of the datatype of `distance`: blocks [i, i + nblocks) for i = distance, 3 distance,
/// ... < size, nblocks = distance, or size - i for the last (the loop building new_ddt).
template <class Run>
void for_each_run(Rank size, std::uint64_t distance, const Run& run) {
  for (std::uint64_t i = distance; i < size; i += 2 * distance)
    run(i, static_cast<std::uint32_t>(i + distance >= size ? size - i : distance));
}

}  // namespace

std::span<const ParameterSpec> ompi_bruck_parameters() { return kParameters; }

Schedule ompi_bruck_program(const ScheduleHeader& header) {
  const Rank size = checked_ranks(header);
  // Built whole, and its table is derived from it by running it (16 bytes per output and scratch
  // slot, 2 p^2 of them): refused before that passes the memory limit.
  check_memory(checked_mul(std::uint64_t{size} * size, 3 * sizeof(BufferOp) + 2 * 16),
               "ompi-bruck on " + std::to_string(size) +
                   " ranks (its buffer program is built whole, about 3 p^2 ops, and run)");
  Schedule s{header, {}};

  Phase step1("Step 1: local rotation, shift up by rank");
  for (Rank rank = 0; rank < size; ++rank) {
    step1.add(BufferOp{rank, rank, {Buffer::input, rank}, tmpbuf(0), size - rank});
    if (rank != 0) step1.add(BufferOp{rank, rank, {Buffer::input, 0}, tmpbuf(size - rank), rank});
  }
  s.phases.push_back(std::move(step1));

  for (std::uint64_t distance = 1; distance < size; distance <<= 1) {
    const std::string d = std::to_string(distance);
    Phase sendrecv("distance " + d + ": sendrecv tmpbuf to rank + " + d + ", into rbuf");
    Phase copy_back("distance " + d + ": copy back new data from rbuf to tmpbuf");
    for (Rank rank = 0; rank < size; ++rank) {
      const auto sendto = static_cast<Rank>((rank + distance) % size);
      for_each_run(size, distance, [&](std::uint64_t i, std::uint32_t nblocks) {
        sendrecv.add(BufferOp{rank, sendto, tmpbuf(i), rbuf(i), nblocks});
        copy_back.add(BufferOp{rank, rank, rbuf(i), tmpbuf(i), nblocks});
      });
    }
    s.phases.push_back(std::move(sendrecv));
    s.phases.push_back(std::move(copy_back));
  }

  Phase step3("Step 3: local rotation, rbuf[(rank - i) mod p] = tmpbuf[i]");
  for (Rank rank = 0; rank < size; ++rank)
    for (Rank i = 0; i < size; ++i)
      step3.add(BufferOp{rank, rank, tmpbuf(i), rbuf((rank + size - i) % size), 1});
  s.phases.push_back(std::move(step3));

  BufferLayout layout = natural_layout(Collective::alltoall, size, 1);
  layout.scratch = size;  // tmpbuf: span of size * rcount
  s.header.buffers = layout;
  return s;
}

Claims ompi_bruck_claims(const ScheduleHeader& header) {
  const Rank n = checked_ranks(header);
  const unsigned rounds = radix_digits(n, 2);  // ceil(log2 n): distance = 1, 2, 4, ... < n
  std::uint64_t c2 = 0;
  std::vector<std::size_t> round_end;  // the copy back after each round
  std::uint64_t dist = 1;
  for (unsigned x = 0; x < rounds; ++x, dist *= 2) {
    c2 += blocks_with_digit(n, 2, dist, 1);
    round_end.push_back(2 + 2 * std::size_t{x});  // Step 1, then sendrecv and copy back
  }
  Claims claims{.invariants = {rotation_invariant(n, 2, std::move(round_end))},
                .phases = PhaseClaim::exactly(
                    2 + 2 * std::size_t{rounds},
                    "ceil(log2 p) = " + std::to_string(rounds) +
                        " sendrecvs, each followed by its copy back, between Step 1 and Step 3")};
  claims.c2 = PhaseClaim::exactly(
      c2, "per distance the block-ids with that bit set (Bruck et al., Section 3.2, r = 2)");
  return claims;
}

}  // namespace phasecheck::schedules
