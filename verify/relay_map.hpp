#pragma once
// Internal to the delivery checker: where copies of alltoall blocks sit at intermediate ranks of a
// forwarding schedule. An open-addressing hash map from (block, rank) to the phase of arrival,
// 12 bytes a slot, because forwarding schedules leave millions of such copies (hypercube
// exchange: about p^2 log p / 2) and a node-based std::unordered_map costs four times as much.

#include <cstdint>
#include <vector>

namespace phasecheck::verify::detail {

class RelayMap {
 public:
  /// The phase stored for `key`, or 0 when absent. Keys are never ~0.
  std::uint32_t find(std::uint64_t key) const {
    if (keys_.empty()) return 0;
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return values_[i];
      if (keys_[i] == kEmpty) return 0;
    }
  }
  /// Stores `value` unless `key` is present (the earliest arrival is kept).
  void try_emplace(std::uint64_t key, std::uint32_t value) {
    if ((size_ + 1) * 2 > keys_.size()) grow();
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return;
      if (keys_[i] == kEmpty) {
        keys_[i] = key;
        values_[i] = value;
        ++size_;
        return;
      }
    }
  }
  std::size_t size() const { return size_; }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  std::size_t slot(std::uint64_t key) const {
    key ^= key >> 33;  // a murmur-style finaliser: keys are dense integers
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return static_cast<std::size_t>(key) & mask_;
  }
  void grow() {
    std::vector<std::uint64_t> keys = std::move(keys_);
    std::vector<std::uint32_t> values = std::move(values_);
    const std::size_t capacity = keys.empty() ? 1024 : keys.size() * 2;
    keys_.assign(capacity, kEmpty);
    values_.assign(capacity, 0);
    mask_ = capacity - 1;
    size_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != kEmpty) try_emplace(keys[i], values[i]);
  }

  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> values_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace phasecheck::verify::detail
