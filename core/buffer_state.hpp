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
/// State (docs/performance.md, "Buffer programs"): per output and scratch slot only the chunk it
/// holds, packed in 4 bytes whenever the machine's chunks fit (8 otherwise), so the state of
/// 1024 ranks x 10 chunks is 42 MB and a phase's writes touch a quarter of the cache lines 16-byte
/// slots did; the input is computed, never stored (writing it is a fault). Who wrote a slot is
/// kept only where a counterexample can ask for it: the writer of each output slot that holds a
/// chunk that does not belong there (kMaxMisplaced of them in full; past that the phase and op of
/// every later output write, in an array allocated then). Two writes to one slot in one phase are
/// found with one bit per slot, set by the phase's writes and cleared after them; the op that
/// wrote the slot before is looked up only in a phase that has such a fault. In place, 4 bytes per
/// chunk (how many copies exist: a chunk can be lost). Cost per phase O(ops + chunks moved), op by
/// op (no division per chunk), plus O(pairs) to form the table. The reads run first and ask for the
/// cache lines the writes will land in, so that the misses of a phase that writes every rank's
/// slots overlap; an op that reads a run of one message from the input keeps nothing between
/// its read and its write (the codes of the run step by one part).

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
  /// How wide a slot's chunk is stored: in 4 bytes whenever every chunk fits (the origin, the
  /// destination and the part packed in bit fields of the widths the machine needs), else 8;
  /// `wide` takes 8 bytes always (tests run both on small machines).
  enum class Codes { narrowest, wide };

  /// Throws InputError, before allocating, when the state exceeds the memory limit, or when
  /// `layout` does not fit the collective (layout_problem).
  BufferState(Collective collective, Rank ranks, const BufferLayout& layout,
              Codes codes = Codes::narrowest);
  static std::optional<std::uint64_t> memory_bytes(Collective collective, Rank ranks,
                                                   const BufferLayout& layout);

  using FaultSink = std::function<void(const OpFault&)>;
  /// Applies phase `index` (0-based, consecutive): `ops` as one step. Replaces the transfers of
  /// `table` by the table the sends form (its ops and label are left alone, so `table` may be
  /// the phase that holds `ops`). The ops must be well-formed (op_problem). Returns the chunk
  /// moves the ops name (the sum of their counts, faulty ones included).
  std::uint64_t apply(std::size_t index, std::span<const BufferOp> ops, Phase& table,
                      const FaultSink& fault);

  /// The chunk in `slot` of `rank`, if any (the slot must exist).
  std::optional<Block> at(Rank rank, Slot slot) const;
  /// The op that last wrote output slot `index` of `rank`, when it wrote a chunk that does not
  /// belong there (and it was among the first kMaxMisplaced such slots); empty otherwise.
  std::optional<Provenance> written(Rank rank, std::uint32_t output_index) const;
  /// The phase and op of the last write to output slot `index` of `rank` when the slot holds a
  /// chunk that does not belong there and an op put it there; empty otherwise (it is empty, or
  /// holds its chunk, or holds what it started with).
  std::optional<std::pair<std::uint32_t, std::uint32_t>> last_write(Rank rank,
                                                                    std::uint32_t index) const;
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
  /// Bytes per stored slot: 4 or 8 (Codes).
  std::size_t code_bytes() const { return wide_ ? 8 : 4; }

 private:
  static constexpr std::size_t kMaxMisplaced = std::size_t{1} << 20;

  /// A chunk packed in bit fields, no division to pack or unpack: origin + 1 in the lowest
  /// `dest_shift_` bits (0: an empty slot), then the destination (alltoall only: an allgather's is
  /// every rank), then the part from bit `part_shift_` on.
  struct Packing {
    unsigned dest_shift = 0, part_shift = 0, bits = 0;
    Packing(Collective collective, Rank ranks, std::uint32_t chunks);
  };
  std::uint64_t pack(const Block& b) const {
    return (std::uint64_t{b.origin} + 1) |
           (allgather_ ? 0 : std::uint64_t{b.dest} << packing_.dest_shift) |
           std::uint64_t{b.part} << packing_.part_shift;
  }
  Block unpack(std::uint64_t c) const {
    return {static_cast<Rank>((c & origin_mask_) - 1),
            allgather_ ? kEveryRank : static_cast<Rank>((c & dest_mask_) >> packing_.dest_shift),
            static_cast<std::uint32_t>(c >> packing_.part_shift)};
  }
  /// Whether chunk `c` belongs in output slot `index` of `rank`: (s, d, k) in slot s*c + k of
  /// rank d (of every rank, for an allgather).
  bool belongs(std::uint64_t c, Rank rank, std::uint32_t index) const {
    return ((c & origin_mask_) - 1) * layout_.chunks + (c >> packing_.part_shift) == index &&
           (c & dest_mask_) == dest_bits(rank);
  }
  /// The chunk input slot `index` of `rank` holds, packed; 0 when none.
  std::uint64_t input_chunk(Rank rank, std::uint32_t index) const;
  std::uint64_t key(const Block& chunk) const {  // index into copies_
    return collective_ == Collective::alltoall
               ? (std::uint64_t{chunk.origin} * ranks_ + chunk.dest) * layout_.chunks + chunk.part
               : std::uint64_t{chunk.origin} * layout_.chunks + chunk.part;
  }
  /// The transfer of this phase for sends src -> dst: by the first pair of src when it is
  /// that one (an array by rank), else through a flat hash of the pairs of ranks that send to
  /// more than one rank in the phase.
  std::uint32_t transfer_of(Rank src, Rank dst) {
    FirstPair& first = first_pair_[src];
    if (first.stamp != pair_now_) {  // the first send from src in this phase: a new pair
      first = {pair_now_, dst, static_cast<std::uint32_t>(pairs_.size()), false};
      pairs_.emplace_back(src, dst);
      return first.transfer;
    }
    return first.dst == dst ? first.transfer : another_pair(src, dst);
  }
  std::uint32_t another_pair(Rank src, Rank dst);  ///< src's second destination or later
  /// The transfer of src -> dst in the hash, entered as `fresh` if absent (a new transfer when
  /// `fresh` is the next one).
  std::uint32_t hashed(Rank src, Rank dst, std::uint32_t fresh);
  std::uint32_t* probe(std::uint64_t key, bool insert = false);
  std::pair<Rank, Slot> locate(std::size_t offset) const;  ///< the inverse of slot_offset
  /// Where an output or scratch slot is stored.
  std::size_t slot_offset(Rank rank, Slot slot) const {
    return std::size_t{rank} * per_rank_ + (slot.buffer == Buffer::scratch ? layout_.output : 0) +
           slot.index;
  }
  std::uint64_t code_at(std::size_t offset) const {
    return wide_ ? wide_cells_[offset] : narrow_cells_[offset];
  }
  std::size_t slot_count() const { return wide_ ? wide_cells_.size() : narrow_cells_.size(); }
  template <class Code>
  std::uint64_t apply_to(ZeroedArray<Code>& cells, std::size_t index, std::span<const BufferOp> ops,
                         Phase& table, const FaultSink& fault);
  template <class Code>
  Misplaced misplaced_in(const ZeroedArray<Code>& cells) const;
  /// The bookkeeping of a write of `chunk` to output slot `slot` (slot_offset `w`): the writer of
  /// a chunk that does not belong there.
  void note_output(std::size_t w, std::uint64_t chunk, std::uint32_t slot, std::uint32_t phase,
                   std::uint32_t op_index, const BufferOp& op, std::uint32_t j);
  /// Sets the bits of slots [w, w + n) and returns true when none was set; else changes nothing.
  bool claim(std::size_t w, std::size_t n) {
    const unsigned at = w % 64;
    if (at + n > 128) return claim_range(w, n);
    std::uint64_t* word = &written_now_[w / 64];
    if (at + n <= 64) {
      const std::uint64_t bits = low_bits(static_cast<unsigned>(n)) << at;
      if (word[0] & bits) return false;
      word[0] |= bits;
      return true;
    }
    // Across two words: bits [at, 64) of the first, [0, at + n - 64) of the second.
    const std::uint64_t first = ~std::uint64_t{0} << at,
                        second = low_bits(static_cast<unsigned>(at + n - 64));
    if ((word[0] & first) | (word[1] & second)) return false;
    word[0] |= first;
    word[1] |= second;
    return true;
  }
  bool claim_range(std::size_t w, std::size_t n);
  static std::uint64_t low_bits(unsigned n) {
    return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
  }
  std::uint64_t dest_bits(Rank rank) const {  // the destination field of a chunk to `rank`
    return allgather_ ? 0 : std::uint64_t{rank} << packing_.dest_shift;
  }
  void form_table(Phase& table);

  /// One op's reads, to be written at the phase's end: its chunks are pending_[first, first +
  /// count), 0 where it read an empty slot; or, when `run` is not 0, parts of one message from
  /// the input, run + j << part_shift (not stored).
  struct Move {
    std::uint32_t op;
    std::uint32_t count;
    std::size_t first;
    std::size_t to;  ///< slot_offset of the first destination slot
    bool full;       ///< every read found a chunk
    std::uint64_t run;
  };
  /// The writer of a slot: phase + 1 (0: none) and op.
  struct Writer {
    std::uint32_t stamp = 0;
    std::uint32_t op = 0;
  };
  /// A run of consecutive sends of one transfer: sends_[begin, end).
  struct Run {
    std::uint32_t transfer;
    std::size_t begin, end;
  };

  Collective collective_;
  Rank ranks_;
  BufferLayout layout_;
  bool allgather_;
  Packing packing_;
  std::uint64_t origin_mask_, dest_mask_;
  bool wide_;
  std::uint64_t per_rank_ = 0;               // output + scratch slots
  ZeroedArray<std::uint32_t> narrow_cells_;  // by slot_offset: the chunk, packed (0: empty)
  ZeroedArray<std::uint64_t> wide_cells_;    // the same when a chunk needs more than 32 bits
  ZeroedArray<std::uint64_t> written_now_;   // a bit per slot: written in this phase
  /// What output slot s*c + k of every rank holds at the end, but for the destination field:
  /// (s + 1) | k << part_shift (or'ed with dest_bits(rank)). In the width of the slots.
  std::vector<std::uint32_t> narrow_row_;
  std::vector<std::uint64_t> wide_row_;
  template <class Code>
  const std::vector<Code>& row() const {
    if constexpr (sizeof(Code) == 4)
      return narrow_row_;
    else
      return wide_row_;
  }
  /// By chunk key, only where a chunk can lose its last copy: in place (otherwise the input keeps
  /// one of every chunk).
  std::vector<std::uint32_t> copies_;
  /// Output slots whose last write put a chunk there that does not belong: who wrote it. A
  /// correct program records nothing; at most kMaxMisplaced are kept.
  std::unordered_map<std::size_t, Provenance> misplaced_;  // by slot_offset
  /// Once misplaced_ has refused a slot: the last writer of every output slot written since.
  ZeroedArray<Writer> late_writers_;
  std::unordered_map<std::uint64_t, Loss> lost_;
  // This phase's reads, written at its end.
  std::vector<Move> moves_;
  std::vector<std::uint64_t> pending_;
  std::unordered_map<std::size_t, std::uint32_t> phase_writers_;  // a phase with a double write
  // Grouping sends into transfers.
  std::vector<Block> sends_;  // in op order
  std::vector<Run> runs_;
  std::vector<std::pair<Rank, Rank>> pairs_;  // by transfer
  struct FirstPair {
    std::uint32_t stamp = 0;  // phase + 1 when src has sent in this phase
    Rank dst = 0;
    std::uint32_t transfer = 0;
    bool hashed = false;  // whether the pair is in the hash too
  };
  std::vector<FirstPair> first_pair_;                            // by source rank
  std::vector<std::pair<std::uint64_t, std::uint32_t>> hashed_;  // (key, transfer) in the hash
  std::vector<std::uint64_t> pair_keys_;                         // open addressing, by hash
  std::vector<std::uint32_t> pair_values_, pair_stamp_;          // stamp: phase + 1 of the entry
  std::uint32_t pair_now_ = 0;
  std::vector<Block> blocks_;
  std::vector<std::size_t> fill_;
};

}  // namespace phasecheck
