#pragma once
/// Matchings of a weighted graph on nodes 0..n-1, and the separation oracle of Edmonds' matching
/// polytope: a maximum-weight matching, and Padberg and Rao's minimum odd cut (the odd set of
/// nodes that comes closest to holding more edges than matchings can cover). cluster-coloring's
/// matching pass chooses its phases with them (cluster_coloring.cpp).
///
/// Both are LEMON's (Debian liblemon-dev): Boost 1.74's maximum_weighted_matching returns wrong
/// matchings and can loop or crash on some graphs (boostorg/graph issues 199, 223, 399), and
/// Boost has no Gomory-Hu tree. LEMON 1.3.1's graph maps use std::allocator members that C++20
/// removed, so matching_polytope.cpp alone is compiled as C++17; this header is plain C++17 too.

#include <cstdint>
#include <vector>

namespace phasecheck::schedules {

struct WeightedPair {
  std::uint32_t x = 0, y = 0;  ///< x != y, both < n
  std::int64_t weight = 0;     ///< > 0; below 2^59 (LEMON scales weights by 4)
};

/// A matching of maximum total weight (not necessarily of most pairs): mate[x] is x's partner, or
/// x itself when x is unmatched. O(n m log n) for m pairs (LEMON's MaxWeightedMatching).
std::vector<std::uint32_t> max_weight_matching(std::uint32_t n,
                                               const std::vector<WeightedPair>& pairs);

/// The odd set S of nodes 0..n-1 that minimises cut(S) + spare(S): the capacity of the pairs with
/// one node in S (capacity[x * n + y], symmetric) plus the spare capacities of S's nodes. With
/// spare[x] = t - degree(x), cut(S) + spare(S) >= t for every odd S exactly when every odd S holds
/// at most t (|S| - 1) / 2 capacity inside. Padberg and Rao: the minimum is a fundamental cut of
/// the Gomory-Hu tree of the graph with one more node joined to every x by spare[x]; n max flows.
struct OddCut {
  std::uint64_t value = 0;
  std::vector<std::uint32_t> set;  ///< S, ascending; odd size
};
OddCut min_odd_cut(std::uint32_t n, const std::vector<std::uint64_t>& capacity,
                   const std::vector<std::uint64_t>& spare);

}  // namespace phasecheck::schedules
