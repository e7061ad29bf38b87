#pragma once
/// A small mixture-of-experts-like traffic matrix for the bvn and two-stage-v tests and bench
/// (the project's generator, experiments/traffic_models, is another part of issue 37): every rank
/// routes `tokens` tokens each to `top_k` distinct experts drawn from a Zipf(`zipf`) popularity
/// over `experts` experts, expert e living on rank e / (experts / p); a token sent to an expert on
/// its own rank stays there (the self block). One element per (token, expert).

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/traffic.hpp"

namespace phasecheck::testing {

struct MoeLike {
  Rank ranks = 8;
  std::uint32_t experts = 16;  ///< a multiple of ranks
  std::uint32_t top_k = 2;     ///< <= experts
  std::uint32_t tokens = 64;   ///< per rank
  double zipf = 0;             ///< 0: uniform popularity
  std::uint64_t element_bytes = 4;
  std::uint32_t seed = 1;
};

inline Traffic moe_like(const MoeLike& m) {
  Traffic t = zero_traffic(m.ranks, m.element_bytes);
  std::vector<double> popularity(m.experts);
  for (std::uint32_t e = 0; e < m.experts; ++e) popularity[e] = 1.0 / std::pow(e + 1.0, m.zipf);
  std::discrete_distribution<std::uint32_t> expert(popularity.begin(), popularity.end());
  std::mt19937_64 rng(m.seed);
  const std::uint32_t per_rank = m.experts / m.ranks;
  std::vector<std::uint32_t> chosen;
  for (Rank s = 0; s < m.ranks; ++s)
    for (std::uint32_t token = 0; token < m.tokens; ++token) {
      chosen.clear();
      while (chosen.size() < m.top_k) {
        const std::uint32_t e = expert(rng);
        bool fresh = true;
        for (std::uint32_t c : chosen) fresh = fresh && c != e;
        if (fresh) chosen.push_back(e);
      }
      for (std::uint32_t e : chosen) ++t.counts[std::size_t{s} * m.ranks + e / per_rank];
    }
  return t;
}

}  // namespace phasecheck::testing
