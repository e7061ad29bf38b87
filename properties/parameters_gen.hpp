#pragma once
// Random parameters for a registered algorithm, drawn from the declarations it makes
// (Algorithm::parameter_specs): every declared knob is fuzzed within its declared range, not only
// the defaults.

#include <rapidcheck.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/overloaded.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::properties {

/// Where the fuzzer draws from less than a declared range, and why. Each narrowing is intersected
/// with the declaration, so it can never leave it.
struct FuzzNarrowing {
  std::string_view parameter;
  UInt range;
  std::uint64_t step = 1;  ///< draw range.min + step * i
};
inline constexpr FuzzNarrowing kFuzzNarrowings[] = {
    // More than p - 1 ports act as p - 1: draws above p would only repeat that case.
    {"ports", UInt{1, RankCount{}}},
    // Even, 2..16: with an odd max_queue or 0, Algorithm 2 holds more requests than max_queue, a
    // documented finding of the `requests` check (docs/algorithms.md), not a regression.
    {"max_queue", UInt{2, 16}, 2},
    // Small, so that the parts (ceil(bytes / block_size)) stay few.
    {"bytes", UInt{1, 63}},
    {"block_size", UInt{1, 16}},
};

/// An integer of `spec` on p ranks, within its range and any narrowing of it.
inline std::uint64_t random_uint(const ParameterSpec& spec, const UInt& declared, Rank p) {
  auto [min, max] = range_on(declared, p);
  std::uint64_t step = 1;
  for (const FuzzNarrowing& n : kFuzzNarrowings)
    if (n.parameter == spec.name) {
      const auto [narrow_min, narrow_max] = range_on(n.range, p);
      min = std::max(min, narrow_min);
      max = std::max(min, std::min(max, narrow_max));
      step = n.step;
    }
  const std::uint64_t steps = (max - min) / step;
  if (steps == UINT64_MAX) return *rc::gen::arbitrary<std::uint64_t>();  // the whole of uint64
  return min + step * *rc::gen::inRange<std::uint64_t>(0, steps + 1);
}

/// Parameters for `a` on p ranks: every declared knob drawn within its declaration (integers
/// shrink toward the range's low end, choices toward the first value). Text knobs (root, ranks)
/// are left to the algorithm's default: their form is the algorithm's to know.
inline Parameters random_parameters(const schedules::Algorithm& a, Rank p) {
  Parameters params;
  for (const ParameterSpec& spec : a.parameter_specs) {
    const std::string key(spec.name);
    std::visit(
        Overloaded{
            [&](const UInt& t) { params.set(key, std::to_string(random_uint(spec, t, p))); },
            [&](Boolean) { params.set(key, *rc::gen::element<std::string>("false", "true")); },
            [&](const Choice& t) {
              const std::vector<std::string> values(t.values.begin(), t.values.end());
              params.set(key, *rc::gen::elementOf(values));
            },
            [](const Text&) {}},
        spec.type);
  }
  return params;
}

/// A traffic matrix for `a` on p ranks: none for an algorithm of equal blocks (make_header refuses
/// one); for an alltoallv one, counts of 0 to 40 elements with about a third of the cells empty
/// (the self block too), so zero-count pairs, empty rows and uneven loads all occur. Shrinks
/// toward smaller counts.
inline SharedTraffic random_traffic(const schedules::Algorithm& a, Rank p) {
  if (!schedules::is_alltoallv(a)) return {};
  Traffic t = zero_traffic(p, *rc::gen::element<std::uint64_t>(1, 4, 8));
  const auto cells = *rc::gen::container<std::vector<std::uint64_t>>(
      std::size_t{p} * p, rc::gen::weightedOneOf<std::uint64_t>(
                              {{1, rc::gen::just<std::uint64_t>(0)},
                               {2, rc::gen::inRange<std::uint64_t>(1, 41)}}));
  t.counts = cells;
  return SharedTraffic(std::move(t));
}

}  // namespace phasecheck::properties
