#pragma once
/// Birkhoff-von Neumann peeling of a square matrix of nonnegative integers (bvn.cpp): pad the
/// matrix until every row and column sums to the same L (Solstice's "stuffing", Liu et al.,
/// CoNEXT 2015, Section 4.1), then repeatedly take a perfect matching on its support and
/// subtract its least cell. Birkhoff: a matrix with equal line sums has a perfect matching on its
/// support, and subtracting one weighted permutation keeps the line sums equal, so peeling ends at
/// zero after at most L matchings (each takes at least 1 from every line) and the weights sum to L.
///
/// The matchings are Boost.Graph's (Edmonds' maximum cardinality matching on K_{p,p} filtered by
/// a threshold on the cells), warm-started from the previous one.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "core/topology.hpp"

namespace phasecheck::schedules::alltoallv {

/// A p x p matrix, row-major: cells[s * p + d].
struct SquareMatrix {
  Rank size = 0;
  std::vector<std::uint64_t> cells;
  std::uint64_t& at(Rank s, Rank d) { return cells[std::size_t{s} * size + d]; }
  std::uint64_t at(Rank s, Rank d) const { return cells[std::size_t{s} * size + d]; }
  friend bool operator==(const SquareMatrix&, const SquareMatrix&) = default;
};

/// The largest row or column sum of `m`.
std::uint64_t largest_line_sum(const SquareMatrix& m);
/// The most nonzero cells of one row or column of `m`.
std::uint64_t largest_line_degree(const SquareMatrix& m);

/// `m` with cells added until every row and column sums to largest_line_sum(m): first to its
/// nonzero cells (keeping the support), then to any cell, the diagonal included. O(p^2).
SquareMatrix stuffed(const SquareMatrix& m);

/// One weighted permutation: row s is matched with column receiver[s] (s itself: the diagonal).
struct WeightedPermutation {
  std::vector<Rank> receiver;
  std::uint64_t weight = 0;
  friend bool operator==(const WeightedPermutation&, const WeightedPermutation&) = default;
};

/// Peels a matrix of equal line sums. Each step matches at a threshold: a perfect matching on the
/// cells >= threshold, the threshold starting at the largest cell and falling by an eighth (at
/// least 1) while none exists (at 1 one always does), so each matching's least cell is at least
/// 7/8 of the best possible (an approximate bottleneck matching: the heavy cells go first). The
/// best least cell never grows as cells shrink, so the threshold only falls.
class Peeler {
 public:
  /// Precondition: every row and column of `m` has the same sum (stuffed()).
  explicit Peeler(SquareMatrix m);
  ~Peeler();
  Peeler(const Peeler&) = delete;
  Peeler& operator=(const Peeler&) = delete;

  /// The next weighted permutation, its weight (its least cell) already subtracted; nothing once
  /// the matrix is zero. O(p^2) per threshold tried plus Boost's augmentations.
  std::optional<WeightedPermutation> next();
  /// What is left of the matrix.
  const SquareMatrix& rest() const { return m_; }

 private:
  struct Matcher;
  SquareMatrix m_;
  std::uint64_t threshold_ = 0;
  std::unique_ptr<Matcher> matcher_;
};

}  // namespace phasecheck::schedules::alltoallv
