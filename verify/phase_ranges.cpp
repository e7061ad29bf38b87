#include "verify/phase_ranges.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/limits.hpp"

namespace phasecheck::verify {

bool EarlierView::holds(Rank r, Block b) const {
  if (local_.holds(r, b)) return true;
  const bool allgather = collective_ == Collective::allgather;
  const bool dest_ok = b.dest < ranks_ || (allgather && b.dest == kEveryRank);
  if (r >= ranks_ || b.origin >= ranks_ || !dest_ok || b.part != 0) return false;
  // A copy of an alltoall block away from its destination: direct phases leave none anywhere.
  if (!allgather && r != b.dest) return false;
  assume(r, b.origin, b.origin + 1);
  return true;
}

bool EarlierView::delivered(Rank origin, Rank dest) const {
  if (origin >= ranks_ || dest >= ranks_) return false;
  if (local_.delivered(origin, dest)) return true;
  assume(dest, origin, origin + 1);
  return true;
}

bool EarlierView::delivered_all(Rank first, Rank last, Rank dest) const {
  if (dest >= ranks_ || last > ranks_) return DataView::delivered_all(first, last, dest);
  if (first >= last || local_.delivered_all(first, last, dest)) return true;
  // The origins of [first, last) but dest that have not arrived here: the gaps between the runs.
  local_.arrived_runs(dest, runs_);
  Rank at = first;
  const auto gap = [&](Rank upto) {  // [at, upto) has not arrived: assumed, but for dest itself
    upto = std::min(upto, last);
    if (at <= dest && dest < upto) {
      assume(dest, at, dest);
      assume(dest, dest + 1, upto);
    } else {
      assume(dest, at, upto);
    }
  };
  for (const auto& [lo, hi] : runs_) {
    if (hi <= at) continue;
    if (lo >= last) break;
    gap(lo);
    at = std::max(at, hi);
  }
  gap(last);
  return true;
}

Rank EarlierView::delivered_count(Rank dest) const {
  exact_ = false;
  return local_.delivered_count(dest);
}

void EarlierView::assume(Rank dest, Rank first, Rank last) const {
  if (!exact_ || first >= last) return;
  // Past kMostAssumed, or past the memory limit, the view gives up rather than refusing the
  // check: the schedule is checked whole instead, as one process would.
  const bool grows = assumed_.size() == assumed_.capacity();
  const std::uint64_t wanted =
      std::max<std::uint64_t>(16, 2 * assumed_.capacity()) * sizeof(Assumed);
  if (assumed_.size() == kMostAssumed || (grows && wanted > limits().max_memory_bytes)) {
    exact_ = false;
    return;
  }
  if (grows) assumed_.reserve(wanted / sizeof(Assumed));
  assumed_.push_back({dest, first, last});
  sorted_ = false;
}

void EarlierView::sort() {
  if (sorted_) return;
  std::sort(assumed_.begin(), assumed_.end());
  // Overlapping or adjacent runs at one destination become one.
  std::size_t kept = 0;
  for (const Assumed& a : assumed_) {
    if (kept > 0 && assumed_[kept - 1].dest == a.dest && a.lo <= assumed_[kept - 1].hi)
      assumed_[kept - 1].hi = std::max(assumed_[kept - 1].hi, a.hi);
    else
      assumed_[kept++] = a;
  }
  assumed_.resize(kept);
  sorted_ = true;
}

void EarlierView::assumed_words(Rank lo, Rank hi, std::vector<std::uint32_t>& out) const {
  if (!sorted_) throw std::logic_error("EarlierView::assumed_words before sort()");
  auto it = std::lower_bound(assumed_.begin(), assumed_.end(), Assumed{lo, 0, 0});
  for (Rank d = lo; d < hi; ++d) {
    const auto end =
        std::find_if(it, assumed_.end(), [d](const Assumed& a) { return a.dest != d; });
    out.push_back(static_cast<std::uint32_t>(end - it));
    for (; it != end; ++it) out.insert(out.end(), {it->lo, it->hi});
  }
}

void range_words(const DeliveryChecker& local, const EarlierView* earlier, Rank lo, Rank hi,
                 std::vector<std::uint32_t>& out) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
  std::vector<std::uint32_t> assumed;
  if (earlier) earlier->assumed_words(lo, hi, assumed);
  std::size_t a = 0;
  for (Rank d = lo; d < hi; ++d) {
    local.arrived_runs(d, runs);
    out.push_back(static_cast<std::uint32_t>(runs.size()));
    for (const auto& [l, h] : runs) out.insert(out.end(), {l, h});
    if (!earlier) {
      out.push_back(0);
      continue;
    }
    const std::uint32_t n = assumed[a];
    out.insert(out.end(), assumed.begin() + static_cast<std::ptrdiff_t>(a),
               assumed.begin() + static_cast<std::ptrdiff_t>(a + 1 + 2 * std::size_t{n}));
    a += 1 + 2 * std::size_t{n};
  }
}

namespace {

/// Reads words written by range_words, refusing any it cannot have written.
class WordReader {
 public:
  explicit WordReader(std::span<const std::uint32_t> words) : words_(words) {}
  /// The next count of runs and the runs, each within [0, ranks).
  std::span<const std::uint32_t> runs(Rank ranks) {
    const std::uint32_t n = next(1)[0];
    const auto r = next(2 * std::size_t{n});
    for (std::size_t i = 0; i < r.size(); i += 2)
      if (r[i] >= r[i + 1] || r[i + 1] > ranks) malformed();
    return r;
  }
  bool done() const { return at_ == words_.size(); }
  [[noreturn]] static void malformed() {
    throw std::runtime_error(
        "the arrivals of a range of phases, from another process, are "
        "malformed");
  }

 private:
  std::span<const std::uint32_t> next(std::size_t n) {
    if (words_.size() - at_ < n) malformed();
    at_ += n;
    return words_.subspan(at_ - n, n);
  }
  std::span<const std::uint32_t> words_;
  std::size_t at_ = 0;
};

}  // namespace

bool fit(Rank ranks, Rank lo, Rank hi, std::span<const std::span<const std::uint32_t>> ranges) {
  std::vector<WordReader> readers(ranges.begin(), ranges.end());
  struct Run {
    std::uint32_t lo, hi, range;
  };
  std::vector<Run> arrived;
  std::vector<std::span<const std::uint32_t>> assumed(ranges.size());
  bool fits = true;
  for (Rank d = lo; d < hi; ++d) {
    arrived.clear();
    for (std::uint32_t k = 0; k < readers.size(); ++k) {
      const auto runs = readers[k].runs(ranks);
      for (std::size_t i = 0; i < runs.size(); i += 2) arrived.push_back({runs[i], runs[i + 1], k});
      assumed[k] = readers[k].runs(ranks);
    }
    if (!fits) continue;  // the words are still read through, to refuse malformed ones
    std::sort(arrived.begin(), arrived.end(),
              [](const Run& a, const Run& b) { return a.lo < b.lo; });
    // Disjoint and every origin but d: each run starts where the one before ended (after d).
    Rank expected = 0;
    for (const Run& r : arrived) {
      if (expected == d) expected = d + 1;
      if (r.lo != expected || (r.lo <= d && d < r.hi)) fits = false;
      expected = r.hi;
    }
    if (expected == d) expected = d + 1;
    fits &= expected == ranks || ranks == 0;
    // Each assumption of range k lies in runs of ranges before k.
    for (std::uint32_t k = 0; fits && k < assumed.size(); ++k)
      for (std::size_t i = 0; fits && i < assumed[k].size(); i += 2) {
        const std::uint32_t a = assumed[k][i], b = assumed[k][i + 1];
        if (a <= d && d < b) fits = false;
        auto it = std::upper_bound(arrived.begin(), arrived.end(), a,
                                   [](std::uint32_t x, const Run& r) { return x < r.lo; });
        if (it != arrived.begin()) --it;
        for (; fits && it != arrived.end() && it->lo < b; ++it)
          if (it->hi > a && it->range >= k) fits = false;
      }
  }
  for (const WordReader& r : readers)
    if (!r.done()) WordReader::malformed();
  return fits;
}

}  // namespace phasecheck::verify
