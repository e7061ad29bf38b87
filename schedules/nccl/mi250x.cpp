// The 16-GCD MI250X machine of RCCL's rome_model_56 (src/graph/rome_models.cc at ROCm/rccl
// commit 0cbce2a7): its connMatrix (xGMI links per pair of GCDs) and ringBase (six rings, the
// last three the first three reversed).

#include "schedules/nccl/mi250x.hpp"

#include <string>
#include <vector>

namespace phasecheck::schedules::nccl {

Graph mi250x_16() {
  // clang-format off
  static constexpr unsigned kLinks[kMi250xGcds][kMi250xGcds] = {
      // 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15
      {0, 4, 1, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},  // 0
      {4, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},  // 1
      {1, 1, 0, 4, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0},  // 2
      {0, 1, 4, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0},  // 3
      {2, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},  // 4
      {0, 1, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0},  // 5
      {0, 0, 1, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 1, 1, 0},  // 6
      {0, 0, 0, 2, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 1},  // 7
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 0, 2, 0, 0, 0},  // 8
      {0, 0, 0, 0, 0, 0, 0, 0, 4, 0, 1, 1, 0, 1, 0, 0},  // 9
      {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 4, 0, 0, 1, 0},  // 10
      {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 0, 2},  // 11
      {0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 4, 0, 0},  // 12
      {0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 4, 0, 0, 0},  // 13
      {0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 4},  // 14
      {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 4, 0}};  // 15
  // clang-format on
  std::vector<std::string> routers;
  for (Rank i = 0; i < kMi250xGcds; ++i) routers.push_back("gcd" + std::to_string(i));
  std::vector<Graph::NamedLink> links;
  std::vector<std::uint32_t> capacities;
  for (Rank i = 0; i < kMi250xGcds; ++i)
    for (Rank j = i + 1; j < kMi250xGcds; ++j)
      if (kLinks[i][j] > 0) {
        links.push_back({routers[i], routers[j]});
        capacities.push_back(kLinks[i][j]);
      }
  return Graph(routers, std::move(links), std::vector<Rank>(kMi250xGcds, 1), std::move(capacities),
               std::vector<std::uint32_t>(kMi250xGcds, 7));
}

const std::array<RingOrder, 3>& mi250x_rings() {
  static constexpr std::array<RingOrder, 3> kRings = {{
      {0, 1, 3, 2, 6, 7, 15, 14, 10, 11, 9, 8, 12, 13, 5, 4},
      {0, 1, 2, 3, 7, 6, 13, 12, 8, 9, 10, 11, 15, 14, 5, 4},
      {0, 2, 3, 7, 6, 14, 15, 11, 10, 8, 9, 13, 12, 4, 5, 1},
  }};
  return kRings;
}

}  // namespace phasecheck::schedules::nccl
