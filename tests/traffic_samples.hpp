#pragma once
// A traffic matrix for the tests that loop over every registered algorithm: an alltoallv row
// needs one (make_header refuses it without), every other row refuses one.

#include <string>
#include <vector>

#include "core/traffic.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::testing {

/// Empty for an algorithm of equal blocks; for an alltoallv one a fixed uneven p x p matrix
/// with zero and non-zero cells (the self block included).
inline SharedTraffic sample_traffic(const schedules::Algorithm& a, Rank p) {
  if (!schedules::is_alltoallv(a)) return {};
  Traffic t = zero_traffic(p, 4);
  for (Rank s = 0; s < p; ++s)
    for (Rank d = 0; d < p; ++d) t.counts[std::size_t{s} * p + d] = (7 * s + 13 * d + s * d) % 5;
  return SharedTraffic(std::move(t));
}

/// The values of the `collective` parameter the generic tests try for `a`.
inline std::vector<std::string> collectives_of(const schedules::Algorithm& a) {
  if (schedules::is_alltoallv(a)) return {"alltoallv"};
  return {"alltoall", "allgather"};
}

}  // namespace phasecheck::testing
