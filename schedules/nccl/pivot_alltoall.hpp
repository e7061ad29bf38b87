#pragma once
/// rccl-pivot-alltoall's emitter, for the row and for tests that perturb it.

#include <functional>

#include "core/schedule.hpp"
#include "schedules/nccl/mi250x.hpp"

namespace phasecheck::schedules::nccl {

/// Parts per message: chunk c (of nChannels / 2 = 3) rides bidirectional ring c, and at p/2 hops
/// (the pivot) its two halves go one each way: 6 parts.
inline constexpr std::uint32_t kPivotParts = 6;
/// 1 + (1 + 2 + ... + 8): hop 0 the local copy, then h relay steps for each h = 1..8.
inline constexpr std::size_t kPivotPhases = 37;

/// At hop count h, step j (0 <= j < h), a rank forwards the block that started `origin_back(h, j)`
/// ring positions behind it (j in RCCL's loop; a test hands in a perturbed one).
void emit_pivot_alltoall(const std::function<Rank(Rank hops, Rank step)>& origin_back,
                         const PhaseSink& out);

}  // namespace phasecheck::schedules::nccl
