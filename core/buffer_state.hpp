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
/// State: 16 bytes per output and scratch slot (the chunk it holds, the phase and op of its last
/// write), allocated as zero pages so that slots never used cost nothing; the input is computed;
/// in place 4 bytes per chunk (how many copies exist: a chunk can be lost);
/// and, for counterexamples, the writer of each output slot that holds a chunk that does not
/// belong there. Cost per phase O(ops + chunks moved), no division per chunk.

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/buffers.hpp"
#include "core/schedule.hpp"
#include "core/zeroed_array.hpp"

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
  std::size_t op = 0;        ///< position in the phase's ops
  Rank rank = 0;             ///< the rank whose slot it is
  Slot slot;                 ///< the offending slot (the first beyond the end for *_beyond)
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
  void apply(std::size_t index, std::span<const BufferOp> ops, Phase& table,
             const FaultSink& fault);

  /// The chunk in `slot` of `rank`, if any (the slot must exist).
  std::optional<Block> at(Rank rank, Slot slot) const;
  /// The op that last wrote output slot `index` of `rank`, when it wrote a chunk that does not
  /// belong there (and it was among the first kMaxMisplaced such slots); empty otherwise.
  std::optional<Provenance> written(Rank rank, std::uint32_t output_index) const;
  /// The phase and op of the last write to `slot` of `rank`, if any.
  std::optional<std::pair<std::uint32_t, std::uint32_t>> last_write(Rank rank, Slot slot) const {
    if (slot.buffer == Buffer::input) return std::nullopt;
    const Cell& c = slots_[slot_offset(rank, slot)];
    if (c.stamp == 0) return std::nullopt;
    return std::pair{c.stamp - 1, c.op};
  }
  /// Where the last copy of `chunk` was overwritten, if it has no copy left.
  std::optional<Loss> lost(const Block& chunk) const;
  /// The output slots that do not hold their chunk (alltoall: output slot s*c + k of rank r holds
  /// (s, r, k); allgather: (s, k)): how many, and the first by rank and index. One pass over the
  /// output, no division.
  struct Misplaced {
    std::uint64_t count = 0;
    Rank rank = 0;
    std::uint32_t index = 0;
  };
  Misplaced misplaced() const;
  /// A slot that holds `chunk`: on rank `near` first (the rank that needs it), then any output or
  /// scratch slot, then an input slot. O(slots).
  std::optional<std::pair<Rank, Slot>> find(const Block& chunk, Rank near) const;
  /// How many slots hold `chunk` now. O(slots).
  std::uint32_t copies(const Block& chunk) const;

  Collective collective() const { return collective_; }
  Rank ranks() const { return ranks_; }
  const BufferLayout& layout() const { return layout_; }

 private:
  static constexpr std::size_t kMaxMisplaced = std::size_t{1} << 20;
  /// A chunk packed in 8 bytes, origin + 1 in bits 0-23 (0: an empty slot), destination in bits
  /// 24-47 (all ones: every rank), part in bits 48-63: no division to pack or unpack.
  static constexpr std::uint64_t kEveryCode = 0xFFFFFF;
  static std::uint64_t pack(const Block& b) {
    return (std::uint64_t{b.origin} + 1) |
           (b.dest == kEveryRank ? kEveryCode : std::uint64_t{b.dest}) << 24 |
           std::uint64_t{b.part} << 48;
  }
  static Block unpack(std::uint64_t c) {
    const auto dest = static_cast<Rank>((c >> 24) & kEveryCode);
    return {static_cast<Rank>((c & kEveryCode) - 1), dest == kEveryCode ? kEveryRank : dest,
            static_cast<std::uint32_t>(c >> 48)};
  }
  static_assert(kMaxRanks < kEveryCode && kMaxParts < (1u << 16));
  /// An output or scratch slot: its chunk, and the phase + 1 and op of its last write (all zero:
  /// empty, never written), in 16 bytes so that a write touches one cache line. The input is not
  /// stored: it cannot change (writing it is a fault), so its chunks are computed.
  struct Cell {
    std::uint64_t chunk = 0;
    std::uint32_t stamp = 0;
    std::uint32_t op = 0;
  };
  /// The chunk input slot `index` of `rank` holds, packed; 0 when none.
  std::uint64_t input_chunk(Rank rank, std::uint32_t index) const;
  std::uint64_t key(const Block& chunk) const {  // index into copies_
    return collective_ == Collective::alltoall
               ? (std::uint64_t{chunk.origin} * ranks_ + chunk.dest) * layout_.chunks + chunk.part
               : std::uint64_t{chunk.origin} * layout_.chunks + chunk.part;
  }
  /// The transfer of this phase for sends src -> dst (a flat hash of the pairs seen).
  std::uint32_t transfer_of(Rank src, Rank dst);
  std::pair<Rank, Slot> locate(std::size_t offset) const;  ///< the inverse of slot_offset
  /// Where an output or scratch slot is stored.
  std::size_t slot_offset(Rank rank, Slot slot) const {
    return std::size_t{rank} * per_rank_ + (slot.buffer == Buffer::scratch ? layout_.output : 0) +
           slot.index;
  }

  struct Write {
    std::size_t slot;  ///< slot_offset of the destination
    std::uint64_t chunk;
    std::uint32_t op;
    std::uint32_t offset;  ///< position within the op
  };

  Collective collective_;
  Rank ranks_;
  BufferLayout layout_;
  std::uint64_t per_rank_ = 0;  // output + scratch slots
  ZeroedArray<Cell> slots_;     // by slot_offset
  /// By chunk key, only where a chunk can lose its last copy: in place (otherwise the input keeps
  /// one of every chunk).
  std::vector<std::uint32_t> copies_;
  /// Output slots whose last write put a chunk there that does not belong: who wrote it. A
  /// correct program records nothing; at most kMaxMisplaced are kept.
  std::unordered_map<std::size_t, Provenance> misplaced_;  // by slot_offset
  std::unordered_map<std::uint64_t, Loss> lost_;
  std::vector<Write> writes_;  // this phase's writes, applied at its end
  // Grouping sends into transfers.
  std::vector<std::pair<std::uint32_t, Block>> send_chunks_;  // (transfer, chunk)
  std::vector<std::pair<Rank, Rank>> pairs_;                  // by transfer
  std::vector<std::uint64_t> pair_keys_;                      // open addressing, by hash
  std::vector<std::uint32_t> pair_values_, pair_stamp_;       // stamp: phase + 1 of the entry
  std::uint32_t pair_now_ = 0;
  std::vector<Block> blocks_;
  std::vector<std::uint32_t> fill_;
};

}  // namespace phasecheck
