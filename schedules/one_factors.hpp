#pragma once
/// 1-factorizations of the complete graph with self-loops (Sanders & Träff, Lemma 1), shared by
/// the factor algorithms. A 1-factor pairs every vertex with exactly one vertex, possibly itself;
/// the n factors together contain every edge {u, v}, self-loops included, exactly once.

#include <cstdint>

namespace phasecheck::schedules {

/// Lemma 1: in factor i of n, vertex u is matched with v_i(u) = (i - u) mod n. Edge {u, v} lies
/// in factor (u + v) mod n. For odd n every factor has exactly one self-loop.
constexpr std::uint32_t lemma1_partner(std::uint32_t i, std::uint32_t u, std::uint32_t n) {
  return static_cast<std::uint32_t>((std::uint64_t{i} + n - u) % n);
}

/// The "small modification" of Sanders & Träff, Section 2, that concentrates the self-loops in
/// one factor when n is even: factors 0..n-2 are Lemma 1's factors on the first n - 1 vertices
/// (an odd number, so each has one self-loop) with that self-loop (u, u) replaced by the edge
/// (u, n - 1); factor n - 1 holds all n self-loops. For odd n it is Lemma 1 itself.
constexpr std::uint32_t concentrated_partner(std::uint32_t i, std::uint32_t u, std::uint32_t n) {
  if (n % 2 == 1) return lemma1_partner(i, u, n);
  if (i == n - 1) return u;
  const std::uint32_t m = n - 1;
  if (u == m) return static_cast<std::uint32_t>((std::uint64_t{i} * (m + 1) / 2) % m);  // 2v = i
  const std::uint32_t v = lemma1_partner(i, u, m);
  return v == u ? m : v;
}

}  // namespace phasecheck::schedules
