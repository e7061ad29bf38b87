#pragma once
/// The direct algorithms whose every phase maps the ranks: phase j sends from every rank i to
/// partner(j, i) (shift, pairwise-xor, factor, hypercube-pairwise). They emit direct phases
/// (core/schedule.hpp), which the checks read as pairs; the registry fills Phases from them for
/// everything else (core/schedule.hpp, filling).

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/limits.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

/// Phases j = first .. end - 1 of `p` transfers each, i -> partner(j, i), labelled `prefix` j:
/// those of them `range` holds (phase j is the schedule's phase j - first). The pairs of one phase
/// are charged against the memory limit before they are allocated.
template <class Partner>
void permutation_phases(Rank p, Rank first, Rank end, Collective collective,
                        std::string_view prefix, const Partner& partner, const DirectSink& out,
                        PhaseRange range = {}) {
  const std::uint64_t from = first + std::min<std::uint64_t>(range.first, end - first);
  const std::uint64_t to = first + std::min<std::uint64_t>(range.last, end - first);
  if (from >= to) return;
  check_memory(checked_mul(p, sizeof(DirectTransfer)),
               "the (src, dst) pairs of one phase of " + std::to_string(p) + " transfers");
  std::vector<DirectTransfer> pairs(p);
  std::string label;
  for (auto j = static_cast<Rank>(from); j < to; ++j) {
    for (Rank i = 0; i < p; ++i) pairs[i] = {i, partner(j, i)};
    numbered_label(label, prefix, j);
    out(DirectPhase{label, collective, pairs});
  }
}

}  // namespace phasecheck::schedules
