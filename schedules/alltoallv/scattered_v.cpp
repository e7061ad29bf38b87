// scattered-v: MPICH's scattered alltoallv, MPIR_Alltoallv_intra_scattered (src/mpi/coll/
// alltoallv/alltoallv_intra_scattered.c, pmodels/mpich main at 6a79bf65): in batches of bblock =
// MPIR_CVAR_ALLTOALL_THROTTLE (default 32; 0 posts everything at once) a rank posts Irecvs from
// rank + ii + i and Isends to rank - ii - i for i < min(bblock, p - ii), each skipped when its
// count is 0, then Waitalls. Batch 0 holds the message to itself (a local copy here).
// ceil(p / bblock) phases, at most 2 bblock requests per rank and phase.

#include <algorithm>

#include "schedules/alltoallv/direct_v.hpp"
#include "schedules/alltoallv/rows.hpp"
#include "schedules/collective_parameter.hpp"

namespace phasecheck::schedules::alltoallv {
namespace {

constexpr std::string_view kName = "scattered-v";
constexpr ParameterSpec kBblock{
    "bblock", UInt{0, kMaxRanks}, Fixed{"32"},
    "messages of each kind a batch posts (MPIR_CVAR_ALLTOALL_THROTTLE; 0: all at once)"};
constexpr ParameterSpec kParameters[] = {kAlltoallvCollective, kBblock};

std::uint64_t batch_size(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), kName);
  const std::uint64_t bblock = read_uint(header.parameters, kBblock, header.ranks());
  return bblock == 0 ? header.ranks() : bblock;
}

/// Batch ii: rank r sends to r - ii - i, for i < ss.
Phase batch(const Traffic& traffic, std::uint64_t ii, std::uint64_t bblock) {
  const Rank p = traffic.ranks;
  const std::uint64_t ss = std::min<std::uint64_t>(bblock, p - ii);
  Phase phase("batch ii = " + std::to_string(ii) + ": " + std::to_string(ss) +
              " Isends to rank - ii - i, Irecvs from rank + ii + i, Waitall");
  for (Rank r = 0; r < p; ++r)
    for (std::uint64_t i = 0; i < ss; ++i)
      add_message(phase, traffic, r, static_cast<Rank>((r + p - (i + ii) % p) % p));
  return phase;
}

void generate(const ScheduleHeader& header, const PhaseSink& out) {
  const std::uint64_t bblock = batch_size(header);
  const Traffic& traffic = traffic_of(header, kName);
  for (std::uint64_t ii = 0; ii < traffic.ranks; ii += bblock) out(batch(traffic, ii, bblock));
}

Claims claims(const ScheduleHeader& header) {
  const std::uint64_t bblock = batch_size(header);
  const Traffic& traffic = traffic_of(header, kName);
  const Rank p = traffic.ranks;
  // Batch ii sends the messages rank -> rank + j for p - ii - ss < j <= p - ii (mod p).
  std::uint64_t cost = 0;
  for (std::uint64_t ii = 0; ii < p; ii += bblock) {
    std::uint64_t largest = 0;
    for (std::uint64_t i = ii; i < std::min<std::uint64_t>(ii + bblock, p); ++i)
      for (Rank d = 0; d < p && i > 0; ++d)
        largest = std::max(largest, traffic.bytes(static_cast<Rank>((d + i) % p), d));
    cost += largest;
  }
  const std::uint64_t batches = (p + bblock - 1) / bblock;
  Claims c{.phases = PhaseClaim::exactly(
               batches, "ceil(p / bblock) batches, bblock = " + std::to_string(bblock))};
  c.cost_bytes = PhaseClaim::exactly(cost, "the sum over batches of their largest message");
  c.max_requests =
      Claims::RequestLimit{static_cast<std::uint32_t>(2 * bblock),
                           "2 bblock requests per Waitall, bblock = " + std::to_string(bblock)};
  return c;
}

}  // namespace

Algorithm scattered_v() {
  return {kName,
          "batches of bblock Isend/Irecv pairs to rank - j / from rank + j, Waitall each",
          "MPICH alltoallv_intra_scattered.c, MPIR_Alltoallv_intra_scattered",
          kParameters,
          generate,
          claims,
          [](const ScheduleHeader& h, const Topology& model) {
            return fully_connected_with(model, batch_size(h));
          }};
}

}  // namespace phasecheck::schedules::alltoallv
