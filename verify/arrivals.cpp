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
  tails_.resize(tail_slots(ranks));
}

std::uint64_t Arrivals::base_bytes(std::uint32_t ranks) {
  return std::uint64_t{ranks} * sizeof(Set) + tail_slots(ranks) * sizeof(Tail);
}

std::size_t Arrivals::find(std::span<const std::uint64_t> runs, std::uint32_t item) {
  // Few runs (the inline ones): a scan; many: a binary search.
  std::size_t after = 0;
  if (runs.size() <= kInline) {
    while (after < runs.size() && lo(runs[after]) <= item) ++after;
  } else {
    after = static_cast<std::size_t>(
        std::upper_bound(runs.begin(), runs.end(),
                         run(item, std::numeric_limits<std::uint32_t>::max())) -
        runs.begin());
  }
  if (after != 0 && hi(runs[after - 1]) > item) return after - 1;
  return after;
}

bool Arrivals::contains(std::uint32_t r, std::uint32_t item) const {
  if (tails_[tail_slot(r)].contains(item)) return true;
  const Set& s = sets_[r];
  if (s.mode == Mode::bits) return (heap_[s.spill][item / 64] >> (item % 64)) & 1;
  const auto d = runs(s);
  const std::size_t at = find(d, item);
  return at != d.size() && lo(d[at]) <= item;
}

bool Arrivals::contains_all(std::uint32_t r, std::uint32_t first, std::uint32_t last) const {
  // The tail and the set's runs are the runs of the whole (none adjacent): one of them holds a
  // range that has arrived.
  const Tail& t = tails_[tail_slot(r)];
  if (t.contains(first) && last <= t.hi) return true;
  const Set& s = sets_[r];
  if (s.mode == Mode::bits) {
    const auto& bits = heap_[s.spill];
    for (std::uint32_t i = first; i < last; ++i)
      if (!((bits[i / 64] >> (i % 64)) & 1)) return false;
    return true;
  }
  const auto d = runs(s);
  const std::size_t at = find(d, first);
  return at != d.size() && lo(d[at]) <= first && hi(d[at]) >= last;
}

bool Arrivals::insert_slow(std::uint32_t r, std::uint32_t item) {
  Set& s = sets_[r];
  Tail& t = tails_[tail_slot(r)];
  if (t.contains(item)) return false;
  if (t.size() > 0) put_back(s, t);
  if (!insert_set(s, item)) return false;
  if (s.mode == Mode::inline_runs) take_tail(s, t, item);
  return true;
}

void Arrivals::put_back(Set& s, Tail& t) {
  std::uint64_t* d = s.inline_;
  std::uint32_t at = 0;
  while (at < s.runs && lo(d[at]) < t.lo) ++at;
  std::copy_backward(d + at, d + s.runs, d + s.runs + 1);
  d[at] = run(t.lo, t.hi);
  ++s.runs;
  s.count += t.size();
  t = Tail{};
}

void Arrivals::take_tail(Set& s, Tail& t, std::uint32_t item) const {
  std::uint64_t* d = s.inline_;
  const auto at = static_cast<std::uint32_t>(find({d, s.runs}, item));
  t.lo = lo(d[at]);
  t.hi = hi(d[at]);
  t.down = at == 0 ? 0 : hi(d[at - 1]) + 1;
  t.limit = at + 1 == s.runs ? UINT32_MAX : lo(d[at + 1]);
  std::copy(d + at + 1, d + s.runs, d + at);
  --s.runs;
  s.count -= t.size();
}

bool Arrivals::insert_set(Set& s, std::uint32_t item) {
  switch (s.mode) {
    case Mode::inline_runs:
      if (!insert_inline(s, item)) return false;
      break;
    case Mode::heap_runs:
      if (!insert_heap(heap_[s.spill], item)) return false;
      break;
    case Mode::bits: {
      std::uint64_t& word = heap_[s.spill][item / 64];
      const std::uint64_t bit = std::uint64_t{1} << (item % 64);
      if (word & bit) return false;
      word |= bit;
      ++s.count;
      return true;
    }
  }
  ++s.count;
  const std::size_t n = s.mode == Mode::inline_runs ? s.runs : heap_[s.spill].size();
  if (n > words_) to_bits(s);
  return true;
}

bool Arrivals::insert_inline(Set& s, std::uint32_t item) {
  std::uint64_t* d = s.inline_;
  const std::uint32_t n = s.runs;
  std::uint32_t next = 0;  // the first run starting after item
  while (next < n && lo(d[next]) <= item) ++next;
  const bool has_prev = next != 0;
  if (has_prev && hi(d[next - 1]) > item) return false;  // already there
  const bool join_prev = has_prev && hi(d[next - 1]) == item;
  const bool join_next = next != n && lo(d[next]) == item + 1;
  if (join_prev && join_next) {
    d[next - 1] = run(lo(d[next - 1]), hi(d[next]));
    std::copy(d + next + 1, d + n, d + next);
    --s.runs;
  } else if (join_prev) {
    d[next - 1] = run(lo(d[next - 1]), item + std::uint64_t{1});
  } else if (join_next) {
    d[next] = run(item, hi(d[next]));
  } else if (n < kInline) {
    std::copy_backward(d + next, d + n, d + n + 1);
    d[next] = run(item, item + std::uint64_t{1});
    ++s.runs;
  } else {
    spill(s);
    return insert_heap(heap_[s.spill], item);
  }
  return true;
}

bool Arrivals::insert_heap(std::vector<std::uint64_t>& d, std::uint32_t item) {
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

void Arrivals::spill(Set& s) {
  // The inline runs move to the heap with room for a few more, charged before the allocation.
  const std::size_t capacity = std::size_t{kInline} + 2;
  charge(0, capacity);
  std::vector<std::uint64_t> d;
  d.reserve(capacity);
  d.assign(s.inline_, s.inline_ + s.runs);
  s.spill = static_cast<std::uint32_t>(heap_.size());
  heap_.push_back(std::move(d));
  s.mode = Mode::heap_runs;
}

void Arrivals::to_bits(Set& s) {
  charge(0, words_);
  std::vector<std::uint64_t> bits(words_, 0);
  for (const std::uint64_t x : runs(s))
    for (std::uint32_t i = lo(x); i < hi(x); ++i) bits[i / 64] |= std::uint64_t{1} << (i % 64);
  if (s.mode == Mode::heap_runs) {
    bytes_ -= heap_[s.spill].capacity() * sizeof(std::uint64_t);
    heap_[s.spill] = std::move(bits);
  } else {
    s.spill = static_cast<std::uint32_t>(heap_.size());
    heap_.push_back(std::move(bits));
  }
  s.mode = Mode::bits;
}

void Arrivals::charge(std::size_t before, std::size_t after) {
  const std::uint64_t grown = (after - before) * sizeof(std::uint64_t);
  check_memory(bytes_ + grown, what_);
  bytes_ += grown;
}

std::uint32_t Arrivals::first_missing(std::uint32_t r, std::uint32_t skip_lo,
                                      std::uint32_t skip_hi) const {
  const Set& s = sets_[r];
  const Tail& t = tails_[tail_slot(r)];
  std::uint32_t c = 0;
  for (;;) {
    if (c >= skip_lo && c < skip_hi) c = skip_hi;
    if (c >= items_) return items_;
    if (t.contains(c)) {
      c = t.hi;
      continue;
    }
    if (s.mode == Mode::bits) {
      // The first clear bit at or after c.
      const auto& bits = heap_[s.spill];
      std::uint32_t w = c / 64;
      std::uint64_t clear = ~bits[w] & (~std::uint64_t{0} << (c % 64));
      while (clear == 0 && ++w < words_) clear = ~bits[w];
      if (clear == 0) return items_;
      const std::uint32_t found = w * 64 + static_cast<std::uint32_t>(std::countr_zero(clear));
      if (found >= items_) return items_;
      if (found >= skip_lo && found < skip_hi) {
        c = skip_hi;
        continue;
      }
      return found;
    }
    const auto d = runs(s);
    const std::size_t at = find(d, c);
    if (at == d.size() || lo(d[at]) > c) return c;
    c = hi(d[at]);
  }
}

void Arrivals::runs_of(std::uint32_t r,
                       std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) const {
  out.clear();
  const Set& s = sets_[r];
  if (s.mode == Mode::bits) {
    const auto& bits = heap_[s.spill];
    for (std::uint32_t w = 0; w < words_; ++w) {
      std::uint64_t word = bits[w];
      while (word != 0) {
        const std::uint32_t at = w * 64 + static_cast<std::uint32_t>(std::countr_zero(word));
        word &= word - 1;
        if (!out.empty() && out.back().second == at)
          ++out.back().second;
        else
          out.emplace_back(at, at + 1);
      }
    }
  } else {
    for (const std::uint64_t x : runs(s)) out.emplace_back(lo(x), hi(x));
  }
  // The tail (only a set of inline runs has one), in its place: never adjacent to a run of the
  // set, nor overlapping one.
  const Tail& t = tails_[tail_slot(r)];
  if (t.size() == 0) return;
  const auto at = std::lower_bound(out.begin(), out.end(), std::pair{t.lo, t.hi});
  out.insert(at, {t.lo, t.hi});
}

}  // namespace phasecheck::verify::detail
