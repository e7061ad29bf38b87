#pragma once
/// What the bvn and two-stage-v tests share: the matrix families and a verification that
/// returns the checks by id.

#include <doctest/doctest.h>

#include <random>

#include "schedules/alltoallv/moe_like.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::testing {

/// Uniform, random with zeros, MoE-like (Zipf 1), all zero but one cell, all zero.
enum class VFamily { uniform, random, moe, one, empty };
inline constexpr VFamily kVFamilies[] = {VFamily::uniform, VFamily::random, VFamily::moe,
                                         VFamily::one, VFamily::empty};

inline Traffic v_matrix(VFamily family, Rank p, std::uint32_t seed) {
  if (family == VFamily::moe)
    return moe_like({.ranks = p,
                     .experts = 2 * p,
                     .top_k = 2,
                     .tokens = 40,
                     .zipf = 1,
                     .element_bytes = 8,
                     .seed = seed});
  Traffic t = zero_traffic(p, 8);
  std::mt19937 rng(seed);
  for (Rank s = 0; s < p; ++s)
    for (Rank d = 0; d < p; ++d) {
      std::uint64_t& c = t.counts[std::size_t{s} * p + d];
      switch (family) {
        case VFamily::uniform:
          c = 5;
          break;
        case VFamily::random:
          c = rng() % 3 == 0 ? 0 : 1 + rng() % 700;
          break;
        case VFamily::moe:
          break;
        case VFamily::one:
          c = (s == 0 && d + 1 == p) ? 3000 : 0;
          break;
        case VFamily::empty:
          c = 0;
          break;
      }
    }
  return t;
}

/// The schedule verified on its own machine against its registered claims.
inline verify::Report v_verified(const Schedule& s) {
  return verify::verify(s, s.header.topology, schedules::claims_for(s.header));
}

inline Verdict v_verdict(const verify::Report& r, CheckId id) {
  for (const CheckResult& c : r.checks)
    if (c.id == id) return c.verdict;
  FAIL("no check " << to_string(id));
  return Verdict::fail;
}

inline std::string v_explanation(const verify::Report& r, CheckId id) {
  for (const CheckResult& c : r.checks)
    if (c.id == id && c.counterexample) return c.counterexample->explanation;
  return {};
}

}  // namespace phasecheck::testing
