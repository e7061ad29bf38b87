#pragma once
// Internal to the delivery checker: where copies of alltoall blocks sit at intermediate ranks of a
// forwarding schedule. Forwarding schedules leave many such copies (hypercube exchange: about
// p^2 log p / 2, 100 million at p = 4096), so the layout matters:
//  - per block, the latest intermediate holder in a dense array (4 bytes a block, allocated on
//    the first copy): the copy a schedule forwards next and an invariant asks about is almost
//    always the latest, and a scan in block order reads this array sequentially;
//  - every older copy appended to a log of (block, rank) keys, 8 bytes each, turned into an
//    open-addressing hash set the first time a question is not about the latest holder (a
//    schedule forwarding from an old copy, or a check about to fail). Well-behaved store-and-
//    forward schedules never ask, and pay for sequential appends only.
// Copies are only ever added; the checker adds a phase's copies after the phase, so membership
// alone says "arrived in an earlier phase". Every allocation is charged against the memory limit
// before it is made (core/limits.hpp): 4 bytes a block is 16 GiB at 65,536 ranks, so a forwarding
// schedule that large is refused at its first forwarded copy, naming the limit.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/limits.hpp"

namespace phasecheck::verify::detail {

class RelayCopies {
 public:
  /// `blocks`: the number of block ids (origin * p + dest, times the parts per message).
  /// `what` names the work in a refusal ("checking delivery on 65536 ranks").
  RelayCopies(std::uint32_t ranks, std::uint64_t blocks, std::string what)
      : ranks_(ranks), blocks_(blocks), what_(std::move(what)) {}

  /// Rank `r` holds a copy of block number `block` (origin * p + dest).
  bool contains(std::uint64_t block, std::uint32_t r) const {
    if (latest_.empty()) return false;
    if (latest_[block] == r) return true;
    if (latest_[block] == kNone) return false;
    if (!indexed_) index();
    return older_contains(block * ranks_ + r);
  }
  /// Records a copy of `block` at `r` (a no-op if it is already there).
  void add(std::uint64_t block, std::uint32_t r) {
    if (latest_.empty()) {
      check_memory(checked_mul(blocks_, sizeof(std::uint32_t)),
                   what_ + ": the latest copy of every block at an intermediate rank");
      latest_.assign(blocks_, kNone);
    }
    std::uint32_t& latest = latest_[block];
    if (latest == r) return;
    if (latest != kNone) {
      if (!indexed_) {
        if (log_.size() == log_.capacity()) charge_log();
        log_.push_back(block * ranks_ + latest);  // duplicates are dropped when indexing
      } else {
        if (older_contains(block * ranks_ + r)) return;
        older_insert(block * ranks_ + latest);
      }
    }
    latest = r;
  }

 private:
  /// Moves the log into the hash set; from then on copies go straight to the set.
  void index() const {
    for (const std::uint64_t k : log_) older_insert(k);
    log_ = {};
    indexed_ = true;
  }

  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};

  std::size_t slot(std::uint64_t key) const {
    key ^= key >> 33;  // a murmur-style finaliser: keys are dense integers
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key) & mask_;
  }
  bool older_contains(std::uint64_t key) const {
    if (keys_.empty()) return false;
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return true;
      if (keys_[i] == kEmpty) return false;
    }
  }
  void older_insert(std::uint64_t key) const {
    if ((size_ + 1) * 10 > keys_.size() * 7) grow();  // load factor at most 0.7
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return;
      if (keys_[i] == kEmpty) {
        keys_[i] = key;
        ++size_;
        return;
      }
    }
  }
  /// The memory held with `more` bytes added, checked against the limit.
  void charge(std::uint64_t more) const {
    const std::uint64_t held = (latest_.capacity() * sizeof(std::uint32_t)) +
                               (log_.capacity() + keys_.capacity()) * sizeof(std::uint64_t);
    check_memory(held + more, what_ + ": the copies at intermediate ranks");
  }
  void charge_log() {
    const std::size_t capacity = std::max<std::size_t>(1024, 2 * log_.capacity());
    charge((capacity - log_.capacity()) * sizeof(std::uint64_t));
    log_.reserve(capacity);
  }
  void grow() const {
    const std::size_t capacity = keys_.empty() ? 1024 : keys_.size() * 2;
    charge(capacity * sizeof(std::uint64_t));
    std::vector<std::uint64_t> keys = std::move(keys_);
    keys_.assign(capacity, kEmpty);
    mask_ = capacity - 1;
    size_ = 0;
    for (const std::uint64_t k : keys)
      if (k != kEmpty) older_insert(k);
  }

  std::uint32_t ranks_;
  std::uint64_t blocks_;
  std::string what_;
  std::vector<std::uint32_t> latest_;  // by block: the latest intermediate holder, or kNone
  // The older copies, as a log or as a set: the same answers either way, so the switch from one
  // to the other may happen in a const query.
  mutable std::vector<std::uint64_t> log_;  // before indexing: block * ranks + rank
  mutable bool indexed_ = false;
  mutable std::vector<std::uint64_t> keys_;  // after indexing
  mutable std::size_t mask_ = 0;
  mutable std::size_t size_ = 0;
};

}  // namespace phasecheck::verify::detail
