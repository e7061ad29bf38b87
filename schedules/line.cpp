#include "schedules/line.hpp"

#include <algorithm>

namespace phasecheck::schedules::detail {
namespace {

/// The direction (+1 or -1) and hop count of a cluster from position a to position b.
std::pair<int, std::size_t> route(std::size_t a, std::size_t b, std::size_t n, LineRouting r) {
  const std::size_t forward = (b + n - a) % n;
  switch (r) {
    case LineRouting::forward:
      return {+1, forward};
    case LineRouting::shortest:
      return forward <= n - forward ? std::pair{+1, forward} : std::pair{-1, n - forward};
    case LineRouting::linear:
      return b > a ? std::pair{+1, b - a} : std::pair{-1, a - b};
  }
  return {+1, forward};  // unreachable: every routing is handled above
}

}  // namespace

std::size_t line_steps(std::size_t n, LineRouting routing) {
  if (n <= 1) return 0;
  return routing == LineRouting::shortest ? n / 2 : n - 1;
}

void line_alltoall(const std::vector<std::vector<Rank>>& lines, LineRouting routing,
                   const ClusterFn& cluster, const std::function<std::string(std::size_t)>& label,
                   const std::string& last_suffix, const PhaseSink& out) {
  std::size_t steps = 0;
  for (const auto& line : lines) steps = std::max(steps, line_steps(line.size(), routing));
  Phase phase;
  std::vector<Block> blocks;
  const bool wraps = routing != LineRouting::linear;
  for (std::size_t s = 1; s <= steps; ++s) {
    phase.clear();
    phase.set_label(label(s) + (s == steps ? last_suffix : ""));
    for (std::size_t l = 0; l < lines.size(); ++l) {
      const auto& line = lines[l];
      const std::size_t n = line.size();
      for (std::size_t x = 0; x < n; ++x)
        for (const int dir : {+1, -1}) {
          // The clusters forwarded now started s - 1 positions behind x.
          const auto back =
              static_cast<std::ptrdiff_t>(x) - dir * static_cast<std::ptrdiff_t>(s - 1);
          if (!wraps && (back < 0 || back >= static_cast<std::ptrdiff_t>(n))) continue;
          const std::size_t origin = static_cast<std::size_t>(
              (back % static_cast<std::ptrdiff_t>(n) + static_cast<std::ptrdiff_t>(n)) %
              static_cast<std::ptrdiff_t>(n));
          const auto next = static_cast<std::ptrdiff_t>(x) + dir;
          if (!wraps && (next < 0 || next >= static_cast<std::ptrdiff_t>(n))) continue;
          blocks.clear();
          // Targets in order of distance, so the consolidated message reads nearest first.
          for (std::size_t d = s; d < n; ++d) {
            const std::size_t t =
                wraps ? (dir > 0 ? (origin + d) % n : (origin + n - d % n) % n)
                      : static_cast<std::size_t>(static_cast<std::ptrdiff_t>(origin) +
                                                 dir * static_cast<std::ptrdiff_t>(d));
            if (!wraps && t >= n) break;
            const auto [rdir, hops] = route(origin, t, n, routing);
            if (rdir != dir || hops != d) continue;
            cluster(l, static_cast<Rank>(origin), static_cast<Rank>(t), blocks);
          }
          if (blocks.empty()) continue;
          // Allgather clusters overlap (every node on the way needs [o]): send each block once.
          if (blocks.front().dest == kEveryRank) {
            std::vector<Block> unique;
            for (const Block& b : blocks)
              if (std::find(unique.begin(), unique.end(), b) == unique.end()) unique.push_back(b);
            blocks.swap(unique);
          }
          const std::size_t to = static_cast<std::size_t>((next + static_cast<std::ptrdiff_t>(n)) %
                                                          static_cast<std::ptrdiff_t>(n));
          phase.add(line[x], line[to], blocks);
        }
    }
    out(phase);
  }
}

}  // namespace phasecheck::schedules::detail
