#include "programs/local_copies.hpp"

namespace phasecheck::programs {

std::optional<std::vector<const BufferOp*>> order_local_copies(
    std::span<const BufferOp* const> copies) {
  const auto overlaps = [](Slot a, std::uint32_t n, Slot b, std::uint32_t m) {
    return a.buffer == b.buffer && a.index < b.index + m && b.index < a.index + n;
  };
  const std::size_t n = copies.size();
  std::vector<std::vector<std::size_t>> after(n);  // after[i]: copies that must follow i
  std::vector<std::size_t> indegree(n, 0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && overlaps(copies[i]->from, copies[i]->count, copies[j]->to, copies[j]->count)) {
        after[i].push_back(j);
        ++indegree[j];
      }
  std::vector<const BufferOp*> order;
  std::vector<std::size_t> ready;
  for (std::size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push_back(i);
  for (std::size_t h = 0; h < ready.size(); ++h) {
    order.push_back(copies[ready[h]]);
    for (std::size_t j : after[ready[h]])
      if (--indegree[j] == 0) ready.push_back(j);
  }
  if (order.size() != n) return std::nullopt;
  return order;
}

}  // namespace phasecheck::programs
