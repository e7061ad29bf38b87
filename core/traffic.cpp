// Traffic matrices: their limits, sums and transpose (core/traffic.hpp).

#include "core/traffic.hpp"

#include <algorithm>

#include "core/limits.hpp"

namespace phasecheck {

std::optional<std::uint64_t> traffic_memory_bytes(std::uint64_t ranks) {
  return checked_mul(checked_mul(ranks, ranks), sizeof(std::uint64_t));
}

Traffic zero_traffic(Rank ranks, std::uint64_t element_bytes) {
  check_memory(traffic_memory_bytes(ranks), "a traffic matrix of " + std::to_string(ranks) +
                                                " ranks");
  Traffic traffic;
  traffic.ranks = ranks;
  traffic.element_bytes = element_bytes;
  traffic.counts.assign(std::size_t{ranks} * ranks, 0);
  return traffic;
}

Traffic uniform_traffic(Rank ranks, std::uint64_t count, std::uint64_t element_bytes) {
  Traffic traffic = zero_traffic(ranks, element_bytes);
  std::fill(traffic.counts.begin(), traffic.counts.end(), count);
  return traffic;
}

std::optional<std::string> traffic_problem(const Traffic& traffic) {
  const std::uint64_t p = traffic.ranks;
  if (p == 0) return "a traffic matrix needs at least one rank";
  if (traffic.counts.size() != p * p)
    return "the matrix has " + std::to_string(traffic.counts.size()) + " cells, not " +
           std::to_string(p) + " x " + std::to_string(p);
  if (traffic.element_bytes == 0 || traffic.element_bytes > kMaxElementBytes)
    return "element_bytes: " + std::to_string(traffic.element_bytes) + " is not in 1.." +
           std::to_string(kMaxElementBytes);
  const std::uint64_t max_elements = kMaxTrafficRankBytes / traffic.element_bytes;
  std::vector<std::uint64_t> received(p, 0);
  for (std::uint64_t s = 0; s < p; ++s) {
    std::uint64_t sent = 0;
    for (std::uint64_t d = 0; d < p; ++d) {
      const std::uint64_t c = traffic.counts[s * p + d];
      const auto cell = [&] {  // built only for a message
        return "counts[" + std::to_string(s) + "][" + std::to_string(d) + "]";
      };
      if (c > kMaxTrafficCount)
        return cell() + ": " + std::to_string(c) + " elements, more than an MPI count holds (" +
               std::to_string(kMaxTrafficCount) + ")";
      sent += c;  // each term < 2^31 and p <= 2^24: no overflow
      received[d] += c;
      if (sent > max_elements)
        return cell() + ": rank " + std::to_string(s) + " would send more than " +
               format_bytes(kMaxTrafficRankBytes);
      if (received[d] > max_elements)
        return cell() + ": rank " + std::to_string(d) + " would receive more than " +
               format_bytes(kMaxTrafficRankBytes);
    }
  }
  return std::nullopt;
}

std::uint64_t sent_bytes(const Traffic& traffic, Rank s) {
  std::uint64_t sum = 0;
  for (Rank d = 0; d < traffic.ranks; ++d)
    if (d != s) sum += traffic.count(s, d);
  return sum * traffic.element_bytes;
}

std::uint64_t received_bytes(const Traffic& traffic, Rank d) {
  std::uint64_t sum = 0;
  for (Rank s = 0; s < traffic.ranks; ++s)
    if (s != d) sum += traffic.count(s, d);
  return sum * traffic.element_bytes;
}

Traffic transpose(const Traffic& traffic) {
  Traffic t = zero_traffic(traffic.ranks, traffic.element_bytes);
  for (Rank s = 0; s < traffic.ranks; ++s)
    for (Rank d = 0; d < traffic.ranks; ++d) t.counts[std::size_t{d} * t.ranks + s] = traffic.count(s, d);
  return t;
}

std::uint64_t max_pieces(const Traffic& traffic, Pieces pieces) {
  std::uint64_t most = 0;
  for (std::uint64_t c : traffic.counts) most = std::max(most, pieces.of(c));
  return most;
}

}  // namespace phasecheck
