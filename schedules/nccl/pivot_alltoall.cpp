// rccl-pivot-alltoall: RCCL's AllToAllPivot (src/device/alltoall_pivot.h, runRing; chosen in
// src/collectives.cc ncclAllToAll), at ROCm/rccl commit 0cbce2a7. RCCL enables it only on the
// 16-GCD MI250X model (rome_model_56: pivotA2AEnabled=1, pivotA2ANumBiRings=3; mi250x.hpp), with at
// least 6 channels and messages of at least 744 KiB per rank; elsewhere ncclAllToAll is grouped
// send/recv (nccl-p2p-alltoall). Channel b runs ring b mod 6: rings 0-2 and the same reversed
// (3-5); channels b and b + 3 share chunk b of every message (of nChannels / 2 = 3 chunks,
// nChannels = 6 modelled). For num_hops h = 0..p/2 every rank sends its chunk for the rank h
// ahead on its ring, relayed h - 1 times (send, recvSend, directRecv); h = 0 is the local copy,
// and at h = p/2 = 8 the two directions reach the same rank, so each carries half the chunk. So
// 1 + (1 + ... + 8) = 37 phases, each moving one chunk to the ring neighbour on all six rings.

#include "schedules/nccl/pivot_alltoall.hpp"

#include <string>
#include <vector>

#include "core/error.hpp"
#include "schedules/collective_parameter.hpp"
#include "schedules/nccl/rows.hpp"

namespace phasecheck::schedules::nccl {
namespace {

constexpr ParameterSpec kParameters[] = {kAlltoallCollective};
constexpr Rank kHalf = kMi250xGcds / 2;

/// The six channels' rings: rings 0-2, then the same reversed.
std::array<RingOrder, 6> channel_rings() {
  std::array<RingOrder, 6> rings{};
  for (std::size_t c = 0; c < 3; ++c) {
    rings[c] = mi250x_rings()[c];
    for (Rank i = 0; i < kMi250xGcds; ++i) rings[c + 3][i] = rings[c][kMi250xGcds - 1 - i];
  }
  return rings;
}

void check_header(const ScheduleHeader& header) {
  check_parameters(header.parameters, kParameters, header.ranks(), "rccl-pivot-alltoall");
  if (header.collective != Collective::alltoall)
    throw InputError("rccl-pivot-alltoall is RCCL's alltoall only");
  if (!(header.topology == Topology(mi250x_16())))
    throw InputError(
        "rccl-pivot-alltoall runs only on the 16-GCD MI250X machine RCCL enables "
        "AllToAllPivot on (rome_model_56, three bidirectional rings; "
        "tests/schedules/nccl/mi250x-16/topology.json), not on " +
        describe(header.topology) +
        "; elsewhere RCCL's ncclAllToAll is grouped send/recv (nccl-p2p-alltoall)");
}

}  // namespace

void emit_pivot_alltoall(const std::function<Rank(Rank, Rank)>& origin_back, const PhaseSink& out) {
  const auto rings = channel_rings();
  Phase phase("hops 0: the local copy");
  std::vector<Block> blocks;
  for (Rank r = 0; r < kMi250xGcds; ++r) {
    blocks.clear();
    for (std::uint32_t k = 0; k < kPivotParts; ++k) blocks.push_back({r, r, k});
    phase.add(r, r, blocks);
  }
  out(phase);
  for (Rank h = 1; h <= kHalf; ++h)
    for (Rank j = 0; j < h; ++j) {
      phase.clear();
      phase.set_label("hops " + std::to_string(h) + ", step " + std::to_string(j));
      for (std::uint32_t c = 0; c < rings.size(); ++c) {
        const RingOrder& ring = rings[c];
        const std::uint32_t chunk = c % 3;
        const bool reverse = c >= 3;
        for (Rank i = 0; i < kMi250xGcds; ++i) {
          const Rank back = origin_back(h, j);
          const Rank origin = ring[(i + kMi250xGcds - back % kMi250xGcds) % kMi250xGcds];
          const Rank dest = ring[(i + kMi250xGcds - back % kMi250xGcds + h) % kMi250xGcds];
          blocks.clear();
          if (h < kHalf || !reverse) blocks.push_back({origin, dest, 2 * chunk});
          if (h < kHalf || reverse) blocks.push_back({origin, dest, 2 * chunk + 1});
          phase.add(ring[i], ring[(i + 1) % kMi250xGcds], blocks);
        }
      }
      out(phase);
    }
}

Algorithm pivot_alltoall_row() {
  Algorithm row{
      "rccl-pivot-alltoall",
      "RCCL's AllToAllPivot: chunks relayed hop by hop along three bidirectional rings",
      "RCCL src/device/alltoall_pivot.h runRing, src/graph/rome_models.cc rome_model_56",
      kParameters,
      [](const ScheduleHeader& h, const PhaseSink& out) {
        check_header(h);
        emit_pivot_alltoall([](Rank, Rank step) { return step; }, out);
      },
      [](const ScheduleHeader& h) {
        check_header(h);
        return Claims{.phases =
                          PhaseClaim::exactly(kPivotPhases,
                                              "hop 0 the local copy, then h relay steps for "
                                              "h = 1..p/2 (alltoall_pivot.h's num_hops loop)")};
      },
      // Ring neighbours only, and the rings share no directed link beyond its xGMI links.
      [](const ScheduleHeader&, const Topology& model) { return model == Topology(mi250x_16()); },
      [](const ScheduleHeader&) { return kPivotParts; }};
  row.only_machine = [] { return Topology(mi250x_16()); };
  row.library = "RCCL";  // NCCL's fork: its row lives with NCCL's (schedules/nccl/)
  return row;
}

}  // namespace phasecheck::schedules::nccl
