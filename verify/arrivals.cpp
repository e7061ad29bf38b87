#include "verify/arrivals.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include "core/limits.hpp"

namespace phasecheck::verify::detail {

Arrivals::Arrivals(std::uint32_t ranks, std::uint32_t items, std::string what)
    : items_(items), words_((items + 63) / 64), bytes_(base_bytes(ranks)), what_(std::move(what)) {
  check_memory(bytes_, what_);
  sets_.resize(ranks);
}

std::uint64_t Arrivals::base_bytes(std::uint32_t ranks) {
  return std::uint64_t{ranks} * sizeof(Set);
}

std::vector<std::uint64_t>::const_iterator Arrivals::find(const Set& s, std::uint32_t item) {
  const auto after = std::upper_bound(s.data.begin(), s.data.end(),
                                      run(item, std::numeric_limits<std::uint32_t>::max()));
  if (after != s.data.begin() && hi(*std::prev(after)) > item) return std::prev(after);
  return after;
}

bool Arrivals::contains(std::uint32_t r, std::uint32_t item) const {
  const Set& s = sets_[r];
  if (s.bits) return (s.data[item / 64] >> (item % 64)) & 1;
  const auto it = find(s, item);
  return it != s.data.end() && lo(*it) <= item;
}

bool Arrivals::contains_all(std::uint32_t r, std::uint32_t first, std::uint32_t last) const {
  const Set& s = sets_[r];
  if (s.bits) {
    for (std::uint32_t i = first; i < last; ++i)
      if (!((s.data[i / 64] >> (i % 64)) & 1)) return false;
    return true;
  }
  const auto it = find(s, first);
  return it != s.data.end() && lo(*it) <= first && hi(*it) >= last;
}

bool Arrivals::insert(std::uint32_t r, std::uint32_t item) {
  Set& s = sets_[r];
  if (s.bits) {
    std::uint64_t& word = s.data[item / 64];
    const std::uint64_t bit = std::uint64_t{1} << (item % 64);
    if (word & bit) return false;
    word |= bit;
    ++s.count;
    return true;
  }
  if (!insert_run(s, item)) return false;
  ++s.count;
  if (s.data.size() > words_) to_bits(s);
  return true;
}

bool Arrivals::insert_run(Set& s, std::uint32_t item) {
  auto& d = s.data;
  auto next =
      std::upper_bound(d.begin(), d.end(), run(item, std::numeric_limits<std::uint32_t>::max()));
  const bool has_prev = next != d.begin();
  if (has_prev && hi(*std::prev(next)) > item) return false;  // already there
  const bool join_prev = has_prev && hi(*std::prev(next)) == item;
  const bool join_next = next != d.end() && lo(*next) == item + 1;
  if (join_prev && join_next) {
    *std::prev(next) = run(lo(*std::prev(next)), hi(*next));
    d.erase(next);
  } else if (join_prev) {
    *std::prev(next) = run(lo(*std::prev(next)), item + std::uint64_t{1});
  } else if (join_next) {
    *next = run(item, hi(*next));
  } else {
    if (d.size() == d.capacity()) {  // grow here, charged before the allocation
      const std::size_t at = static_cast<std::size_t>(next - d.begin());
      const std::size_t capacity = std::max<std::size_t>(2, 2 * d.capacity());
      charge(d.capacity(), capacity);
      d.reserve(capacity);
      next = d.begin() + static_cast<std::ptrdiff_t>(at);
    }
    d.insert(next, run(item, item + std::uint64_t{1}));
  }
  return true;
}

void Arrivals::to_bits(Set& s) {
  charge(0, words_);
  std::vector<std::uint64_t> bits(words_, 0);
  for (const std::uint64_t x : s.data)
    for (std::uint32_t i = lo(x); i < hi(x); ++i) bits[i / 64] |= std::uint64_t{1} << (i % 64);
  bytes_ -= s.data.capacity() * sizeof(std::uint64_t);
  s.data = std::move(bits);
  s.bits = true;
}

void Arrivals::charge(std::size_t before, std::size_t after) {
  const std::uint64_t grown = (after - before) * sizeof(std::uint64_t);
  check_memory(bytes_ + grown, what_);
  bytes_ += grown;
}

std::uint32_t Arrivals::first_missing(std::uint32_t r, std::uint32_t skip_lo,
                                      std::uint32_t skip_hi) const {
  const Set& s = sets_[r];
  std::uint32_t c = 0;
  for (;;) {
    if (c >= skip_lo && c < skip_hi) c = skip_hi;
    if (c >= items_) return items_;
    if (s.bits) {
      // The first clear bit at or after c.
      std::uint32_t w = c / 64;
      std::uint64_t clear = ~s.data[w] & (~std::uint64_t{0} << (c % 64));
      while (clear == 0 && ++w < words_) clear = ~s.data[w];
      if (clear == 0) return items_;
      const std::uint32_t found = w * 64 + static_cast<std::uint32_t>(std::countr_zero(clear));
      if (found >= items_) return items_;
      if (found >= skip_lo && found < skip_hi) {
        c = skip_hi;
        continue;
      }
      return found;
    }
    const auto it = find(s, c);
    if (it == s.data.end() || lo(*it) > c) return c;
    c = hi(*it);
  }
}

}  // namespace phasecheck::verify::detail
