#pragma once
/// Uneven all-to-all traffic (MPI_Alltoallv, mixture-of-experts dispatch): a traffic matrix
/// counts[s][d], the elements rank s sends rank d, and the size of an element in bytes.
///
/// An alltoallv is an alltoall whose messages have sizes. Its block algebra is the alltoall's
/// (block [o, d] is the message from o to d; core/schedule.hpp), so every checker of blocks
/// applies unchanged; the matrix adds three things: a message of zero elements is no block at all
/// (nothing to deliver, no transfer may carry it), a message may be cut into pieces of
/// `piece_elements` elements (block [o, d, k] holds elements k*g .. min((k+1)*g, count) - 1, the
/// last piece possibly shorter), and a transfer weighs the bytes of its blocks, which the bounds
/// and the cost count (verify/traffic_bounds.hpp). docs/formats.md, "phasecheck.traffic/1".

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/topology.hpp"

namespace phasecheck {

/// The most elements one cell may count: MPI's count is an int.
inline constexpr std::uint64_t kMaxTrafficCount = (std::uint64_t{1} << 31) - 1;
/// The largest element, in bytes.
inline constexpr std::uint64_t kMaxElementBytes = std::uint64_t{1} << 30;
/// The most bytes one rank may send or receive in all (a row or column sum times the element
/// size): 1 PiB, so sums of rows and phases stay far inside 64 bits.
inline constexpr std::uint64_t kMaxTrafficRankBytes = std::uint64_t{1} << 50;

struct Traffic {
  Rank ranks = 1;
  std::uint64_t element_bytes = 1;
  /// Row-major: counts[s * ranks + d] elements from s to d (s == d: the rank's own block).
  std::vector<std::uint64_t> counts = std::vector<std::uint64_t>(1, 0);

  std::uint64_t count(Rank s, Rank d) const { return counts[std::size_t{s} * ranks + d]; }
  std::uint64_t bytes(Rank s, Rank d) const { return count(s, d) * element_bytes; }
  std::span<const std::uint64_t> row(Rank s) const {
    return std::span<const std::uint64_t>(counts).subspan(std::size_t{s} * ranks, ranks);
  }
  friend bool operator==(const Traffic&, const Traffic&) = default;
};

/// A p x p matrix of zeros, checked against the memory limit before it allocates (InputError).
Traffic zero_traffic(Rank ranks, std::uint64_t element_bytes = 1);
/// Every cell `count` (the self block too): the uniform alltoall as an alltoallv.
Traffic uniform_traffic(Rank ranks, std::uint64_t count, std::uint64_t element_bytes = 1);
/// What is wrong with `traffic` as an input, naming the cell ("counts[3][7]: ..."), or nothing:
/// a count beyond kMaxTrafficCount, an element size of 0 or beyond kMaxElementBytes, a rank
/// sending or receiving more than kMaxTrafficRankBytes, a matrix that is not ranks x ranks.
std::optional<std::string> traffic_problem(const Traffic& traffic);
/// The bytes of the matrix, for check_memory before reading or building one.
std::optional<std::uint64_t> traffic_memory_bytes(std::uint64_t ranks);

/// The bytes rank s sends to others (its own block excluded), and the bytes rank d receives.
std::uint64_t sent_bytes(const Traffic& traffic, Rank s);
std::uint64_t received_bytes(const Traffic& traffic, Rank d);
/// The transpose: the return trip (a mixture-of-experts combine after its dispatch).
Traffic transpose(const Traffic& traffic);

/// A traffic matrix shared by the headers that carry it (a header is copied often; a 4,096-rank
/// matrix is 128 MiB). Equal when the matrices are.
class SharedTraffic {
 public:
  SharedTraffic() = default;
  explicit SharedTraffic(Traffic traffic)
      : traffic_(std::make_shared<const Traffic>(std::move(traffic))) {}
  explicit operator bool() const { return traffic_ != nullptr; }
  const Traffic& operator*() const { return *traffic_; }
  const Traffic* operator->() const { return traffic_.get(); }
  friend bool operator==(const SharedTraffic& a, const SharedTraffic& b) {
    return a.traffic_ == b.traffic_ || (a.traffic_ && b.traffic_ && *a.traffic_ == *b.traffic_);
  }

 private:
  std::shared_ptr<const Traffic> traffic_;
};

/// How an alltoallv's messages are cut: whole (piece_elements 0) or into pieces of
/// `piece_elements` elements. The number of pieces of each message and the elements of each.
struct Pieces {
  std::uint64_t piece_elements = 0;  ///< 0: every message is one piece

  /// ceil(count / piece_elements); 0 for an empty message, 1 when whole.
  std::uint64_t of(std::uint64_t count) const {
    if (count == 0) return 0;
    return piece_elements == 0 ? 1 : (count + piece_elements - 1) / piece_elements;
  }
  /// The elements of piece k of a message of `count` elements (k < of(count)).
  std::uint64_t elements(std::uint64_t count, std::uint64_t k) const {
    if (piece_elements == 0) return count;
    const std::uint64_t first = k * piece_elements;
    return std::min(piece_elements, count - first);
  }
  friend bool operator==(const Pieces&, const Pieces&) = default;
};

/// The most pieces any message of `traffic` has when cut by `pieces` (the schedule's parts).
std::uint64_t max_pieces(const Traffic& traffic, Pieces pieces);

}  // namespace phasecheck
