#pragma once
// Internal to the delivery checker: for every receiving rank, the set of items that have arrived
// there (item = origin x parts + part). Memory follows the order in which a schedule delivers,
// not ranks^2:
//  - a rank's set starts as a sorted list of runs [lo, hi) of consecutive items, 8 bytes a run,
//    the first kInline of them inside the set's own 64-byte cache line.
//    Schedules deliver in orderly sweeps (shift: origins d-1, d-2, ... at d; Faraj-Yuan: a
//    subtree's machines one after another), so a rank's runs stay few and the whole state is a
//    cache line per rank: 65,536 ranks of Faraj-Yuan take megabytes where a bit per pair takes
//    512 MiB. The run the last arrival made or extended (the tail) is kept apart, 16 bytes a
//    rank in an array of its own, so that an arrival extending it touches that alone;
//  - once a rank's runs would take more memory than one bit per item, they become that bitset,
//    so no order costs more than ranks^2 x parts bits in all.
// Growth is charged against the memory limit (core/limits.hpp) as it happens: a schedule whose
// order needs more state than the limit allows is refused (InputError) at the arrival that would
// exceed it, before the allocation.

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace phasecheck::verify::detail {

class Arrivals {
 public:
  /// `ranks` sets of items in [0, items); `what` names the work in a refusal ("checking delivery
  /// on 65536 ranks").
  Arrivals(std::uint32_t ranks, std::uint32_t items, std::string what);

  /// The memory of the empty state: what a checker on `ranks` ranks needs at least.
  static std::uint64_t base_bytes(std::uint32_t ranks);

  bool contains(std::uint32_t r, std::uint32_t item) const;
  /// Every item of [lo, hi) has arrived at `r`.
  bool contains_all(std::uint32_t r, std::uint32_t lo, std::uint32_t hi) const;
  /// Adds `item` to the set of `r`; false when it was there already.
  bool insert(std::uint32_t r, std::uint32_t item) {
    // The usual arrival extends the rank's tail run at either end without reaching a neighbour:
    // here, reading 16 bytes of state and no call; every other case in insert_slow.
    Tail& t = tails_[tail_slot(r)];
    if (item == t.hi && item + 1 < t.limit) {
      ++t.hi;
      return true;
    }
    if (item + 1 == t.lo && item >= t.down) {
      --t.lo;
      return true;
    }
    return insert_slow(r, item);
  }
  /// Items that have arrived at `r`.
  std::uint32_t size(std::uint32_t r) const { return sets_[r].count + tails_[tail_slot(r)].size(); }
  /// The smallest item in [0, items) outside [skip_lo, skip_hi) that has not arrived at `r`;
  /// `items` when there is none.
  std::uint32_t first_missing(std::uint32_t r, std::uint32_t skip_lo, std::uint32_t skip_hi) const;
  /// The items that have arrived at `r`, as sorted runs [lo, hi) of consecutive items, none
  /// adjacent, replacing `out`'s contents. O(runs), or O(items / 64) for a rank kept as bits.
  void runs_of(std::uint32_t r, std::vector<std::pair<std::uint32_t, std::uint32_t>>& out) const;
  /// Memory held now, in bytes.
  std::uint64_t bytes() const { return bytes_; }

  /// Runs a set keeps inside its own cache line before they move to the heap: the orderly
  /// schedules need a few (Faraj-Yuan on a two-level tree at most 4), so an arrival touches one
  /// cache line of state.
  static constexpr std::uint32_t kInline = 6;

 private:
  enum class Mode : std::uint8_t { inline_runs, heap_runs, bits };
  // Runs mode: sorted disjoint runs, each (lo << 32 | hi), no two adjacent; in `inline_` while
  // there are at most kInline of them, then in heap_[spill]. Bits mode: one bit per item, in
  // heap_[spill]. `count` counts the items of the set without its tail.
  struct alignas(64) Set {
    std::uint64_t inline_[kInline] = {};
    std::uint32_t count = 0;
    std::uint16_t runs = 0;  // inline runs in use
    Mode mode = Mode::inline_runs;
    std::uint32_t spill = 0;  // index in heap_ (heap runs, bits)
  };
  // A set of inline runs keeps the run its last arrival made or extended apart, here: [lo, hi),
  // which may grow up to just before the next run (limit: its lo) and down to just after the
  // previous one (down: its hi + 1) without touching the set. So an orderly arrival reads and
  // writes 16 bytes a rank (256 KiB at 16,384 ranks, within a core's L2), not the set's line.
  // The tail is never adjacent to a run of the set, so the set's runs and the tail are the runs
  // of the whole. Empty: lo == hi, and neither test of insert() can pass: items are below
  // `items` <= 2^32 - 1, so item + 1 never wraps round to a lo of 0.
  struct Tail {
    std::uint32_t lo = 0, hi = 0;
    std::uint32_t down = UINT32_MAX;
    std::uint32_t limit = 0;
    std::uint32_t size() const { return hi - lo; }
    bool contains(std::uint32_t item) const { return lo <= item && item < hi; }
  };
  static std::uint32_t lo(std::uint64_t run) { return static_cast<std::uint32_t>(run >> 32); }
  static std::uint32_t hi(std::uint64_t run) { return static_cast<std::uint32_t>(run); }
  static std::uint64_t run(std::uint64_t lo, std::uint64_t hi) { return lo << 32 | hi; }
  /// The runs of a set in runs mode.
  std::span<const std::uint64_t> runs(const Set& s) const {
    return s.mode == Mode::inline_runs ? std::span<const std::uint64_t>(s.inline_, s.runs)
                                       : std::span<const std::uint64_t>(heap_[s.spill]);
  }
  /// The run containing `item`, or the first run after it (an index into `runs`).
  static std::size_t find(std::span<const std::uint64_t> runs, std::uint32_t item);
  bool insert_slow(std::uint32_t r, std::uint32_t item);
  bool insert_set(Set& s, std::uint32_t item);
  /// The tail back into its inline runs (it fits: it was taken from them), and empty.
  static void put_back(Set& s, Tail& t);
  /// Where rank r's tail is: r with its low 8 bits mixed with a hash of the rest, a permutation
  /// within each block of 256 ranks. A schedule's phase reaches ranks a subtree apart (t_j,y for
  /// every j: 256 ranks apart on a 128 x 256 tree), whose tails at r would be 4 KiB apart, in
  /// one set of the L1 and L2 caches, each arrival a miss; mixed, they spread over the sets
  /// (Faraj-Yuan on 128 x 256, one thread: 0.79x the time of the packed layout).
  static std::size_t tail_slot(std::uint32_t r) { return r ^ (((r >> 8) * 0x9E3779B1u) >> 24); }
  /// The tails kept for `ranks` ranks: whole blocks of 256, which tail_slot permutes, except a
  /// first block alone (ranks 0-255 keep their own slots: r >> 8 is 0), so small checks keep
  /// 16 bytes a rank.
  static std::uint64_t tail_slots(std::uint32_t ranks) {
    return ranks <= 256 ? ranks : (std::uint64_t{ranks} + 255) / 256 * 256;
  }
  /// The inline run holding `item` out of the set, as its tail.
  void take_tail(Set& s, Tail& t, std::uint32_t item) const;
  bool insert_inline(Set& s, std::uint32_t item);
  bool insert_heap(std::vector<std::uint64_t>& d, std::uint32_t item);
  void spill(Set& s);
  void to_bits(Set& s);
  /// Charges a change of a heap vector's capacity from `before` elements; throws past the limit.
  void charge(std::size_t before, std::size_t after);

  std::vector<Set> sets_;
  std::vector<Tail> tails_;  // beside the sets, at tail_slot(rank): the hot 16 bytes of each
  std::vector<std::vector<std::uint64_t>> heap_;  // spilled runs and bitsets
  std::uint32_t items_;
  std::uint32_t words_;  // a bitset's 64-bit words
  std::uint64_t bytes_;
  std::string what_;
};

}  // namespace phasecheck::verify::detail
