#pragma once
/// The execution model of format 3: what every slot of every rank holds, phase by phase.
///
/// apply() runs one phase: every op reads its `count` source slots as they are at the phase's
/// start; all writes land at its end. Faults are reported as data (OpFault), never thrown: a read
/// or write beyond a declared buffer, a read of an empty slot, a write to an input buffer (the
/// collective must not modify it), two writes to one slot in one phase. A faulty op moves only
/// the chunks it could read; an op that reaches beyond a buffer moves nothing.
///
/// The sends of the phase are returned as an ordinary phase table: the sends between one pair
/// form one transfer carrying the chunks they read, in the order the ops name them.
///
/// State: 8 bytes per slot (the chunk it holds), 8 per slot (the phase and op of its last write),
/// 4 per chunk (how many copies exist), and for every output slot the op that last wrote it
/// (20 bytes), for counterexamples. Cost per phase O(ops + chunks moved).

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/buffers.hpp"
#include "core/schedule.hpp"

namespace phasecheck {

struct OpFault {
  enum class Kind {
    read_beyond,   ///< from + count passes the end of the source buffer
    write_beyond,  ///< to + count passes the end of the destination buffer
    empty_read,    ///< a source slot holds no chunk
    input_write,   ///< the destination is an input buffer
    double_write,  ///< a slot written by two ops (or twice by one) in one phase
  };
  Kind kind = Kind::empty_read;
  std::size_t op = 0;  ///< position in the phase's ops
  Rank rank = 0;       ///< the rank whose slot it is
  Slot slot;           ///< the offending slot (the first beyond the end for *_beyond)
  std::size_t other_op = 0;  ///< double_write: the op that wrote the slot first
  friend bool operator==(const OpFault&, const OpFault&) = default;
};

/// Who last wrote a slot: phase, op, and where the op read it.
struct Provenance {
  std::uint32_t phase = 0;
  std::uint32_t op = 0;
  Rank src = 0;  ///< the rank the op read from (== the slot's rank for a local copy)
  Slot from;
  friend bool operator==(const Provenance&, const Provenance&) = default;
};

/// Where the last copy of a chunk was overwritten.
struct Loss {
  std::uint32_t phase = 0;
  std::uint32_t op = 0;
  Rank rank = 0;
  Slot slot;
  BufferOp by;  ///< the op whose write overwrote it
  friend bool operator==(const Loss&, const Loss&) = default;
};

class BufferState {
 public:
  /// Throws InputError, before allocating, when the state exceeds the memory limit, or when
  /// `layout` does not fit the collective (layout_problem).
  BufferState(Collective collective, Rank ranks, const BufferLayout& layout);
  static std::optional<std::uint64_t> memory_bytes(Collective collective, Rank ranks,
                                                   const BufferLayout& layout);

  using FaultSink = std::function<void(const OpFault&)>;
  /// Applies phase `index` (0-based, consecutive): `ops` as one step. Replaces the transfers of
  /// `table` by the table the sends form (its ops and label are left alone, so `table` may be
  /// the phase that holds `ops`). The ops must be well-formed (op_problem).
  void apply(std::size_t index, std::span<const BufferOp> ops, Phase& table, const FaultSink& fault);

  /// The chunk in `slot` of `rank`, if any (the slot must exist).
  std::optional<Block> at(Rank rank, Slot slot) const;
  /// The op that last wrote output slot `index` of `rank`; empty if none did.
  std::optional<Provenance> written(Rank rank, std::uint32_t output_index) const;
  /// Where the last copy of `chunk` was overwritten, if it has no copy left.
  std::optional<Loss> lost(const Block& chunk) const;
  /// The first slot (by rank, then input, output, scratch) that holds `chunk`. O(slots).
  std::optional<std::pair<Rank, Slot>> find(const Block& chunk) const;
  /// How many slots hold `chunk` now.
  std::uint32_t copies(const Block& chunk) const;

  Collective collective() const { return collective_; }
  Rank ranks() const { return ranks_; }
  const BufferLayout& layout() const { return layout_; }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  std::uint64_t key(const Block& chunk) const;
  Block chunk(std::uint64_t key) const;
  std::pair<Rank, Slot> locate(std::size_t offset) const;  ///< the inverse of slot_offset
  std::size_t slot_offset(Rank rank, Slot slot) const {
    return std::size_t{rank} * per_rank_ + base_[static_cast<int>(slot.buffer)] + slot.index;
  }

  struct Write {
    std::size_t slot;     ///< slot_offset of the destination
    std::uint64_t chunk;  ///< key
    std::uint32_t op;
    std::uint32_t offset;  ///< position within the op
  };

  Collective collective_;
  Rank ranks_;
  BufferLayout layout_;
  std::uint64_t per_rank_ = 0;
  std::uint64_t base_[3] = {0, 0, 0};
  std::vector<std::uint64_t> slots_;      // by slot_offset: chunk key or kEmpty
  std::vector<std::uint32_t> stamp_;      // by slot_offset: phase + 1 of its last write
  std::vector<std::uint32_t> writer_;     // by slot_offset: the op of its last write
  std::vector<std::uint32_t> copies_;     // by chunk key
  std::vector<Provenance> provenance_;    // by rank * output + index; phase == 0 and op == ~0: none
  std::unordered_map<std::uint64_t, Loss> lost_;
  std::vector<Write> writes_;  // this phase's writes, applied at its end
  // Grouping sends into transfers.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> send_chunks_;  // (transfer, chunk key)
  std::vector<std::pair<Rank, Rank>> pairs_;
  std::unordered_map<std::uint64_t, std::uint32_t> pair_index_;
  std::vector<Block> blocks_;
  std::vector<std::uint32_t> fill_;
};

}  // namespace phasecheck
