#pragma once
/// The machine RCCL enables AllToAllPivot on: 16 GCDs of four MI250X (RCCL src/graph/
/// rome_models.cc, rome_model_56, the only model with pivotA2AEnabled=1), and its three
/// bidirectional rings. Rank i is the model's GPU i (RCCL matches the machine's GPUs to the
/// model's before it uses the rings).

#include <array>

#include "core/topology.hpp"

namespace phasecheck::schedules::nccl {

inline constexpr Rank kMi250xGcds = 16;
/// A ring order of the 16 GCDs.
using RingOrder = std::array<Rank, kMi250xGcds>;

/// The GCDs as routers gcd0..gcd15, one rank each, joined by the model's xGMI links (a pair's
/// parallel links as the link's capacity); each GCD drives its 7 links at once (host ports 7).
Graph mi250x_16();

/// rome_model_56's ringBase rings 0..2 (channels 0..2); channels 3..5 are the same rings reversed.
const std::array<RingOrder, 3>& mi250x_rings();

}  // namespace phasecheck::schedules::nccl
