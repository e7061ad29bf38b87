// Open MPI's Sparbit allgather, ompi_coll_base_allgather_intra_sparbit (ompi/mca/coll/base/
// coll_base_allgather.c, since v5.0.0; read at main 8efebee745; Loch and Koslovski 2021). sbuf
// goes to rbuf[rank]; then ceil(log2 p) steps at distance 2^(ceil(log2 p) - 1), halving: rank
// isends data_expected - exclusion blocks, one isend each, rbuf[rank - 2 t distance] to
// rank + distance, and receives as many from rank - distance at rbuf[rank - (2 t + 1) distance];
// exclusion is 1 at the distances whose bit is set in ignore_steps (from the binary form of p),
// where the block received earlier would be written twice. data_expected doubles each step, less
// the exclusion. Every block travels as its own message; the table groups a step's blocks per pair.
// Phases: the copy, then ceil(log2 p) steps; C2 = p - 1 (each rank receives p - 1 blocks, one
// partner per step).

#include <bit>
#include <cmath>

#include "schedules/collective_parameter.hpp"
#include "schedules/ompi/ompi.hpp"

namespace phasecheck::schedules::ompi {
namespace {

constexpr std::string_view kName = "ompi-sparbit";
constexpr ParameterSpec kParameters[] = {kAllgatherCollective};

/// comm_log as Open MPI computes it, in floating point: ceil(log(p) / log(2)).
unsigned comm_log(Rank p) {
  return static_cast<unsigned>(std::ceil(std::log(static_cast<double>(p)) / std::log(2.0)));
}

Schedule program(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  check_program_memory(kName, p, 2 * std::uint64_t{p} * p);
  Schedule s = empty_program(header, natural_layout(Collective::allgather, p, 1));
  s.phases.push_back(own_block_copy(p));
  const unsigned steps = comm_log(p);
  if (steps == 0) return s;
  std::uint64_t distance = std::uint64_t{1} << (steps - 1);
  const auto last_ignore = static_cast<unsigned>(std::countr_zero(p));
  const std::uint32_t ignore_steps = (~(p >> last_ignore) | 1u) << last_ignore;
  std::uint64_t data_expected = 1;
  for (unsigned i = 0; i < steps; ++i) {
    const unsigned exclusion = (distance & ignore_steps) == distance ? 1 : 0;
    Phase step("distance " + std::to_string(distance) + ": " +
               std::to_string(data_expected - exclusion) + " blocks to rank + " +
               std::to_string(distance));
    for (Rank rank = 0; rank < p; ++rank) {
      const Rank sendto = static_cast<Rank>((rank + distance) % p);
      for (std::uint64_t t = 0; t < data_expected - exclusion; ++t) {
        const auto send_disp = static_cast<Rank>((rank + 2 * t * (p - distance % p)) % p);
        step.add(BufferOp{rank, sendto, rbuf(send_disp), rbuf(send_disp), 1});
      }
    }
    s.phases.push_back(std::move(step));
    distance >>= 1;
    data_expected = (data_expected << 1) - exclusion;
  }
  return s;
}

Claims claims(const ScheduleHeader& header) {
  const Rank p = checked_ranks(header, kParameters, kName);
  Claims c{.phases = PhaseClaim::exactly(1 + std::size_t{comm_log(p)},
                                         "the copy, then ceil(log2 p) steps")};
  c.c2 = PhaseClaim::exactly(p - 1, "each rank receives p - 1 blocks, from one rank per step");
  return c;
}

}  // namespace

Algorithm sparbit() {
  return row({kName, "ceil(log2 p) steps at halving distances, each block its own isend (5.0)",
              "Open MPI 5.0 coll_base_allgather.c, ompi_coll_base_allgather_intra_sparbit "
              "(main 8efebee745)",
              kParameters, program, claims, one_port});
}

}  // namespace phasecheck::schedules::ompi
