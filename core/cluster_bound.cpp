#include "core/cluster_bound.hpp"

#include <algorithm>

namespace phasecheck {

ClusterBound cluster_bound(const std::vector<Rank>& node_sizes) {
  ClusterBound b;
  std::uint64_t before = 0;
  for (const std::uint64_t n : node_sizes) {
    b.largest = std::max(b.largest, n);
    b.exchanges += n * before;  // pairs with a processor of an earlier node
    before += n;
  }
  b.node_ops = before == 0 ? 0 : b.largest * (before - 1);
  b.per_phase = node_sizes.size() / 2;
  if (b.per_phase > 0 && b.exchanges > 0)
    b.pair_phases = (b.exchanges + b.per_phase - 1) / b.per_phase;
  return b;
}

}  // namespace phasecheck
