#include "core/buffer_state.hpp"

#include <algorithm>
#include <bit>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace phasecheck {
namespace {

std::uint64_t chunk_ids(Collective collective, Rank ranks, std::uint32_t chunks) {
  return std::uint64_t{ranks} * (collective == Collective::alltoall ? ranks : 1) * chunks;
}

}  // namespace

BufferState::Packing::Packing(Collective collective, Rank ranks, std::uint32_t chunks) {
  dest_shift = static_cast<unsigned>(std::bit_width(ranks));  // origin + 1: 1 .. ranks
  part_shift =
      dest_shift +
      (collective == Collective::alltoall ? static_cast<unsigned>(std::bit_width(ranks - 1)) : 0);
  bits = part_shift + static_cast<unsigned>(std::bit_width(chunks - 1));
}

std::optional<std::uint64_t> BufferState::memory_bytes(Collective collective, Rank ranks,
                                                       const BufferLayout& layout) {
  const std::uint64_t code = Packing(collective, ranks, layout.chunks).bits > 32 ? 8 : 4;
  const auto slots = checked_mul(ranks, std::uint64_t{layout.output} + layout.scratch);
  // The chunks, the bit per slot, and (charged up front: a program with more than kMaxMisplaced
  // misplaced chunks allocates them midway) the late writers.
  const auto bytes =
      checked_add(checked_mul(slots, code + sizeof(Writer)),
                  slots ? std::optional<std::uint64_t>(*slots / 64 * 8 + 8) : std::nullopt);
  const auto per_rank = checked_add(checked_mul(ranks, sizeof(FirstPair)),
                                    checked_mul(checked_mul(ranks, layout.chunks), code));
  return checked_add(checked_add(bytes, per_rank),
                     layout.inplace ? checked_mul(chunk_ids(collective, ranks, layout.chunks), 4)
                                    : std::optional<std::uint64_t>(0));
}

BufferState::BufferState(Collective collective, Rank ranks, const BufferLayout& layout, Codes codes)
    : collective_(collective),
      ranks_(ranks),
      layout_(layout),
      allgather_(collective == Collective::allgather),
      packing_(collective, ranks, std::max<std::uint32_t>(layout.chunks, 1)),
      origin_mask_(low_bits(packing_.dest_shift)),
      dest_mask_(low_bits(packing_.part_shift) & ~origin_mask_),
      wide_(codes == Codes::wide || packing_.bits > 32) {
  if (const auto problem = layout_problem(layout, collective, ranks)) throw InputError(*problem);
  check_memory(memory_bytes(collective, ranks, layout),
               "checking the buffers of " + std::to_string(ranks) + " ranks");
  per_rank_ = std::uint64_t{layout.output} + layout.scratch;
  const std::size_t slots = std::size_t{ranks} * per_rank_;
  // Every slot empty, never written.
  if (wide_)
    wide_cells_ = ZeroedArray<std::uint64_t>(slots);
  else
    narrow_cells_ = ZeroedArray<std::uint32_t>(slots);
  written_now_ = ZeroedArray<std::uint64_t>((slots + 63) / 64);
  first_pair_.resize(ranks);
  for (Rank r = 0; r < ranks; ++r)
    for (std::uint32_t k = 0; k < layout.chunks; ++k) {
      const std::uint64_t code = (std::uint64_t{r} + 1) | std::uint64_t{k} << packing_.part_shift;
      if (wide_)
        wide_row_.push_back(code);
      else
        narrow_row_.push_back(static_cast<std::uint32_t>(code));
    }
  if (layout.inplace) {
    copies_.assign(chunk_ids(collective, ranks, layout.chunks), 1);  // each chunk starts once
    const auto put = [&](std::size_t offset, const Block& b) {
      if (wide_)
        wide_cells_[offset] = pack(b);
      else
        narrow_cells_[offset] = static_cast<std::uint32_t>(pack(b));
    };
    const std::uint32_t c = layout.chunks;
    for (Rank r = 0; r < ranks; ++r)
      for (std::uint32_t k = 0; k < c; ++k) {
        if (collective == Collective::allgather) {
          put(slot_offset(r, {Buffer::output, r * c + k}), {r, kEveryRank, k});
          continue;
        }
        for (Rank d = 0; d < ranks; ++d)  // the message to d where d's message to r must end
          put(slot_offset(r, {Buffer::output, d * c + k}), {r, d, k});
      }
  }
}

std::uint64_t BufferState::input_chunk(Rank rank, std::uint32_t index) const {
  if (index >= layout_.input) return 0;
  const std::uint32_t c = layout_.chunks;
  if (collective_ == Collective::alltoall)
    return index / c < ranks_ ? pack({rank, index / c, index % c}) : 0;
  return index < c ? pack({rank, kEveryRank, index}) : 0;
}

std::optional<Block> BufferState::at(Rank rank, Slot slot) const {
  const std::uint64_t c = slot.buffer == Buffer::input ? input_chunk(rank, slot.index)
                                                       : code_at(slot_offset(rank, slot));
  if (c == 0) return std::nullopt;
  return unpack(c);
}

std::optional<Provenance> BufferState::written(Rank rank, std::uint32_t index) const {
  const auto it = misplaced_.find(slot_offset(rank, {Buffer::output, index}));
  if (it == misplaced_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::pair<std::uint32_t, std::uint32_t>> BufferState::last_write(
    Rank rank, std::uint32_t index) const {
  const std::size_t offset = slot_offset(rank, {Buffer::output, index});
  const std::uint64_t c = code_at(offset);
  if (c == 0 || belongs(c, rank, index)) return std::nullopt;
  // Its last write put a chunk that does not belong: misplaced_ took it, or refused it once it
  // was full, and from then on late_writers_ records every output write.
  if (const auto it = misplaced_.find(offset); it != misplaced_.end())
    return std::pair{it->second.phase, it->second.op};
  if (late_writers_.size() == 0 || late_writers_[offset].stamp == 0) return std::nullopt;
  return std::pair{late_writers_[offset].stamp - 1, late_writers_[offset].op};
}

std::optional<Loss> BufferState::lost(const Block& c) const {
  if (copies_.empty()) return std::nullopt;  // the input keeps a copy of every chunk
  const auto it = lost_.find(key(c));
  if (it == lost_.end() || copies_[it->first] > 0) return std::nullopt;
  return it->second;
}

BufferState::Misplaced BufferState::misplaced() const {
  return wide_ ? misplaced_in(wide_cells_) : misplaced_in(narrow_cells_);
}

template <class Code>
BufferState::Misplaced BufferState::misplaced_in(const ZeroedArray<Code>& cells) const {
  Misplaced m;
  const Code* row = this->row<Code>().data();
  const std::size_t n = this->row<Code>().size();  // p * c output slots
  for (Rank r = 0; r < ranks_; ++r) {
    const Code* out = &cells[slot_offset(r, {Buffer::output, 0})];
    const auto dest = static_cast<Code>(dest_bits(r));
    std::size_t wrong = 0;  // counted without a branch, so that it vectorizes
    for (std::size_t i = 0; i < n; ++i) wrong += out[i] != (row[i] | dest);
    if (wrong > 0 && m.count == 0) {
      std::size_t i = 0;
      while (out[i] == (row[i] | dest)) ++i;
      m.rank = r;
      m.index = static_cast<std::uint32_t>(i);
    }
    m.count += wrong;
  }
  return m;
}

std::optional<std::pair<Rank, Slot>> BufferState::find(const Block& c, Rank near) const {
  // Where a person looks for a lost chunk: on the rank that needs it, then anywhere in output
  // or scratch; the origin's input (which always holds it) last.
  const std::uint64_t packed = pack(c);
  if (near < ranks_)
    for (std::size_t i = std::size_t{near} * per_rank_; i < (std::size_t{near} + 1) * per_rank_;
         ++i)
      if (code_at(i) == packed) return locate(i);
  for (std::size_t i = 0; i < slot_count(); ++i)
    if (code_at(i) == packed) return locate(i);
  for (Rank r = 0; r < ranks_; ++r)
    for (std::uint32_t i = 0; i < layout_.input; ++i)
      if (input_chunk(r, i) == packed) return std::pair{r, Slot{Buffer::input, i}};
  return std::nullopt;
}

std::pair<Rank, Slot> BufferState::locate(std::size_t offset) const {
  const std::uint64_t in_rank = offset % per_rank_;
  const auto rank = static_cast<Rank>(offset / per_rank_);
  if (in_rank >= layout_.output)
    return {rank, Slot{Buffer::scratch, static_cast<std::uint32_t>(in_rank - layout_.output)}};
  return {rank, Slot{Buffer::output, static_cast<std::uint32_t>(in_rank)}};
}

std::uint32_t BufferState::copies(const Block& c) const {
  const std::uint64_t packed = pack(c);
  std::uint32_t n = 0;
  for (Rank r = 0; r < ranks_; ++r)
    for (std::uint32_t i = 0; i < layout_.input; ++i) n += input_chunk(r, i) == packed;
  for (std::size_t i = 0; i < slot_count(); ++i) n += code_at(i) == packed;
  return n;
}

std::uint32_t BufferState::another_pair(Rank src, Rank dst) {
  FirstPair& first = first_pair_[src];
  if (!first.hashed) {  // src sends to a second rank: its pairs go to the hash from now on
    first.hashed = true;
    hashed(src, first.dst, first.transfer);
  }
  return hashed(src, dst, static_cast<std::uint32_t>(pairs_.size()));
}

std::uint32_t BufferState::hashed(Rank src, Rank dst, std::uint32_t fresh) {
  const std::uint64_t key = std::uint64_t{src} * ranks_ + dst;
  if (2 * (hashed_.size() + 1) > pair_keys_.size()) {  // keep the load at most a half: grow
    const std::size_t capacity = std::max<std::size_t>(64, 2 * pair_keys_.size());
    pair_keys_.assign(capacity, 0);
    pair_values_.assign(capacity, 0);
    pair_stamp_.assign(capacity, 0);
    for (const auto& [k, t] : hashed_) *probe(k, true) = t;
  }
  std::uint32_t* value = probe(key);
  if (value) return *value;
  value = probe(key, true);
  *value = fresh;
  hashed_.emplace_back(key, fresh);
  if (fresh == pairs_.size()) pairs_.emplace_back(src, dst);
  return fresh;
}

std::uint32_t* BufferState::probe(std::uint64_t key, bool insert) {
  const std::size_t mask = pair_keys_.size() - 1;
  std::size_t h = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  while (pair_stamp_[h] == pair_now_) {
    if (pair_keys_[h] == key) return &pair_values_[h];
    h = (h + 1) & mask;
  }
  if (!insert) return nullptr;
  pair_stamp_[h] = pair_now_;
  pair_keys_[h] = key;
  return &pair_values_[h];
}

std::uint64_t BufferState::apply(std::size_t index, std::span<const BufferOp> ops, Phase& table,
                                 const FaultSink& fault) {
  return wide_ ? apply_to(wide_cells_, index, ops, table, fault)
               : apply_to(narrow_cells_, index, ops, table, fault);
}

bool BufferState::claim_range(std::size_t w, std::size_t n) {
  const std::size_t end = w + n;
  const auto mask = [&](std::size_t word) {  // the bits of [w, end) in `word`
    const std::size_t lo = std::max(w, word * 64), hi = std::min(end, word * 64 + 64);
    return low_bits(static_cast<unsigned>(hi - lo)) << (lo % 64);
  };
  for (std::size_t word = w / 64; word * 64 < end; ++word)
    if (written_now_[word] & mask(word)) return false;
  for (std::size_t word = w / 64; word * 64 < end; ++word) written_now_[word] |= mask(word);
  return true;
}

void BufferState::note_output(std::size_t w, std::uint64_t chunk, std::uint32_t slot,
                              std::uint32_t phase, std::uint32_t op_index, const BufferOp& op,
                              std::uint32_t j) {
  if (!belongs(chunk, op.dst, slot)) {
    if (misplaced_.size() < kMaxMisplaced || misplaced_.count(w))
      misplaced_[w] = {phase, op_index, op.src, Slot{op.from.buffer, op.from.index + j}};
    else if (late_writers_.size() == 0)  // full: from now on every output write is recorded
      late_writers_ = ZeroedArray<Writer>(slot_count());
  } else if (!misplaced_.empty()) {
    misplaced_.erase(w);
  }
  if (late_writers_.size() != 0) late_writers_[w] = {phase + 1, op_index};
}

template <class Code>
std::uint64_t BufferState::apply_to(ZeroedArray<Code>& cells, std::size_t index,
                                    std::span<const BufferOp> ops, Phase& table,
                                    const FaultSink& fault) {
  const auto phase = static_cast<std::uint32_t>(index);
  moves_.clear();
  runs_.clear();
  pairs_.clear();
  hashed_.clear();
  pair_now_ = phase + 1;  // forgets the pairs of the phase before
  std::uint64_t last_pair = ~std::uint64_t{0};
  std::uint32_t transfer = 0;
  const std::uint32_t c = layout_.chunks;
  // Input slots [0, held) of a rank hold a chunk: (r, d, k) in slot d*c + k, or (r, k) in slot k.
  const std::uint64_t held =
      std::min<std::uint64_t>(layout_.input, allgather_ ? c : std::uint64_t{ranks_} * c);
  const auto in_bounds = [&](const BufferOp& op) {
    return std::uint64_t{op.from.index} + op.count <= layout_.size(op.from.buffer) &&
           std::uint64_t{op.to.index} + op.count <= layout_.size(op.to.buffer);
  };
  std::size_t moved = 0;  // the chunks the ops within their buffers read: room for all of them
  std::uint64_t named = 0;
  for (const BufferOp& op : ops) {
    named += op.count;
    if (in_bounds(op)) moved += op.count;
  }
  pending_.resize(moved);
  sends_.resize(moved);
  std::size_t reads = 0, sent = 0;

  // Reads: every op sees the state at the start of the phase.
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const BufferOp& op = ops[i];
    const auto report = [&](OpFault::Kind kind, Rank rank, Slot slot) {
      fault(OpFault{kind, i, rank, slot, 0});
    };
    if (!in_bounds(op)) {
      if (std::uint64_t{op.from.index} + op.count > layout_.size(op.from.buffer))
        report(OpFault::Kind::read_beyond, op.src,
               {op.from.buffer, std::max(op.from.index, layout_.size(op.from.buffer))});
      if (std::uint64_t{op.to.index} + op.count > layout_.size(op.to.buffer))
        report(OpFault::Kind::write_beyond, op.dst,
               {op.to.buffer, std::max(op.to.index, layout_.size(op.to.buffer))});
      continue;
    }
    if (op.to.buffer == Buffer::input) {
      report(OpFault::Kind::input_write, op.dst, op.to);
      continue;
    }

    const bool send = !op.local();
    if (send) {
      const std::uint64_t pair = std::uint64_t{op.src} * ranks_ + op.dst;
      if (pair != last_pair) {
        transfer = transfer_of(op.src, op.dst);
        last_pair = pair;
      }
      if (runs_.empty() || runs_.back().transfer != transfer)
        runs_.push_back({transfer, sent, sent});
    }
    std::uint64_t* out = pending_.data() + reads;
    Block* to_send = sends_.data() + sent;
    bool full = true;
    std::uint64_t run = 0;  // a run of one message's input: the code of its first chunk
    if (op.from.buffer == Buffer::input) {
      // The chunks of input slots from.. are computed: one division for the op, none per chunk.
      const auto n = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(op.count, held > op.from.index ? held - op.from.index : 0));
      // The fields in locals: the stores through `out` and `to_send` cannot alias them.
      const Rank src = op.src;
      const std::uint64_t origin = std::uint64_t{src} + 1;
      const unsigned dest_shift = packing_.dest_shift, part_shift = packing_.part_shift;
      const Rank d0 = allgather_ ? kEveryRank : op.from.index / c;
      const std::uint32_t k0 = allgather_ ? op.from.index : op.from.index % c;
      if (n == op.count && k0 + n <= c) {
        // Parts k0.. of one message, whose codes step by one part: computed again when
        // written, not kept.
        run = origin | (allgather_ ? 0 : std::uint64_t{d0} << dest_shift) |
              std::uint64_t{k0} << part_shift;
        if (send)
          for (std::uint32_t j = 0; j < n; ++j) to_send[j] = {src, d0, k0 + j};
      } else if (allgather_) {
        for (std::uint32_t j = 0, k = k0; j < n; ++j, ++k) {
          out[j] = origin | std::uint64_t{k} << part_shift;
          if (send) to_send[j] = {src, kEveryRank, k};
        }
      } else {
        Rank d = d0;
        std::uint32_t k = k0;
        for (std::uint32_t j = 0; j < n; ++j) {
          out[j] = origin | std::uint64_t{d} << dest_shift | std::uint64_t{k} << part_shift;
          if (send) to_send[j] = {src, d, k};
          if (++k == c) {
            k = 0;
            ++d;
          }
        }
      }
      if (send) sent += n;
      for (std::uint32_t j = n; j < op.count; ++j) {
        out[j] = 0;
        full = false;
        report(OpFault::Kind::empty_read, op.src, {op.from.buffer, op.from.index + j});
      }
    } else {
      const Code* from = &cells[slot_offset(op.src, op.from)];
      for (std::uint32_t j = 0; j < op.count; ++j) {
        out[j] = from[j];
        if (from[j] == 0) {
          full = false;
          report(OpFault::Kind::empty_read, op.src, {op.from.buffer, op.from.index + j});
        } else if (send) {
          sends_[sent++] = unpack(from[j]);
        }
      }
    }
    if (send) runs_.back().end = sent;
    const std::size_t to = slot_offset(op.dst, op.to);
    moves_.push_back({static_cast<std::uint32_t>(i), op.count, reads, to, full, run});
    // The writes land after every read of the phase, each op's somewhere else (shift writes
    // every rank's slots in every phase): ask for their cache lines now, so that the misses
    // overlap the reads instead of stalling the writes. (A longer op streams; the hardware
    // prefetches it.)
    __builtin_prefetch(&cells[to], 1);
    __builtin_prefetch(&cells[to + op.count - 1], 1);
    reads += op.count;
  }
  sends_.resize(sent);

  // Writes land at the end: count the new copies first, so that a chunk moving from a slot
  // that is overwritten in the same phase is never counted as lost.
  const bool counting = !copies_.empty();
  const std::vector<Code>& row = this->row<Code>();
  if (counting)  // (in place: no input, so every chunk read is in pending_)
    for (std::size_t r = 0; r < reads; ++r)
      if (pending_[r] != 0) ++copies_[key(unpack(pending_[r]))];
  phase_writers_.clear();
  bool tracking = false;  // whether phase_writers_ holds the writer of every slot written so far
  for (std::size_t m = 0; m < moves_.size(); ++m) {
    const Move& move = moves_[m];
    const BufferOp& op = ops[move.op];
    const bool output = op.to.buffer == Buffer::output;
    const std::uint64_t* chunks = pending_.data() + move.first;
    const std::uint64_t step = std::uint64_t{1} << packing_.part_shift;  // one part further
    Code* to = &cells[move.to];
    const std::uint32_t n = move.count;
    const bool fast = move.full && !counting && !tracking && claim(move.to, n);
    if (fast && move.run != 0) {
      // A run of one message's input: its codes step by one part, and it belongs where it
      // lands when its first chunk does.
      const Code first = static_cast<Code>(move.run), by = static_cast<Code>(step);
      for (std::uint32_t j = 0; j < n; ++j) to[j] = static_cast<Code>(first + j * by);
      if (!output) continue;
      if (op.to.index < row.size() && first == (row[op.to.index] | dest_bits(op.dst)) &&
          misplaced_.empty() && late_writers_.size() == 0)
        continue;
      for (std::uint32_t j = 0; j < n; ++j)
        note_output(move.to + j, move.run + j * step, op.to.index + j, phase, move.op, op, j);
      continue;
    }
    if (fast) {
      // The common case: whole, no slot written twice, nothing to count. Stores only (no load of
      // what they overwrite), and whether every chunk is the one its slot holds at the end.
      if (!output) {
        for (std::uint32_t j = 0; j < n; ++j) to[j] = static_cast<Code>(chunks[j]);
        continue;
      }
      bool all = std::uint64_t{op.to.index} + n <= row.size();
      if (all) {
        const Code* want = row.data() + op.to.index;
        const auto dest = static_cast<Code>(dest_bits(op.dst));
        for (std::uint32_t j = 0; j < n; ++j) {
          const auto x = static_cast<Code>(chunks[j]);
          to[j] = x;
          all &= x == (want[j] | dest);
        }
      } else {  // beyond the p * c slots that hold a chunk at the end
        for (std::uint32_t j = 0; j < n; ++j) to[j] = static_cast<Code>(chunks[j]);
      }
      if (all && misplaced_.empty() && late_writers_.size() == 0) continue;
      for (std::uint32_t j = 0; j < n; ++j)
        note_output(move.to + j, chunks[j], op.to.index + j, phase, move.op, op, j);
      continue;
    }
    for (std::uint32_t j = 0; j < move.count; ++j) {
      const std::uint64_t chunk = move.run != 0 ? move.run + j * step : chunks[j];
      if (chunk == 0) continue;  // an empty read writes nothing
      const std::size_t w = move.to + j;
      if (!claim(w, 1)) {
        if (!tracking) {  // the first double write of the phase: who wrote what so far
          for (std::size_t e = 0; e <= m; ++e)
            for (std::uint32_t x = 0; x < (e < m ? moves_[e].count : j); ++x)
              if (moves_[e].full || pending_[moves_[e].first + x] != 0)
                phase_writers_[moves_[e].to + x] = moves_[e].op;
          tracking = true;
        }
        fault(OpFault{OpFault::Kind::double_write, move.op, op.dst,
                      Slot{op.to.buffer, op.to.index + j}, phase_writers_[w]});
      }
      if (tracking) phase_writers_[w] = move.op;
      const std::uint64_t old = to[j];
      to[j] = static_cast<Code>(chunk);
      if (counting && old != 0 && --copies_[key(unpack(old))] == 0)
        lost_[key(unpack(old))] =
            Loss{phase, move.op, op.dst, Slot{op.to.buffer, op.to.index + j}, op};
      if (output) note_output(w, chunk, op.to.index + j, phase, move.op, op, j);
    }
  }
  // Clear the bits of this phase: whole words, as no other phase's bit is set.
  for (const Move& move : moves_)
    for (std::size_t word = move.to / 64; word <= (move.to + move.count - 1) / 64; ++word)
      written_now_[word] = 0;

  form_table(table);
  return named;
}

void BufferState::form_table(Phase& table) {
  // The sends as a phase table: one transfer per pair, its chunks in the order read. When every
  // pair's sends are consecutive (one run each), they are in place already.
  table.clear_transfers();
  if (runs_.size() == pairs_.size()) {
    for (const Run& run : runs_)
      if (run.end > run.begin)  // a pair whose every read found an empty slot carries nothing
        table.add(pairs_[run.transfer].first, pairs_[run.transfer].second,
                  std::span<const Block>(sends_).subspan(run.begin, run.end - run.begin));
    return;
  }
  fill_.assign(pairs_.size() + 1, 0);
  for (const Run& run : runs_) fill_[run.transfer + 1] += run.end - run.begin;
  for (std::size_t t = 1; t < fill_.size(); ++t) fill_[t] += fill_[t - 1];
  blocks_.resize(sends_.size());
  for (const Run& run : runs_) {
    std::copy(sends_.begin() + static_cast<std::ptrdiff_t>(run.begin),
              sends_.begin() + static_cast<std::ptrdiff_t>(run.end),
              blocks_.begin() + static_cast<std::ptrdiff_t>(fill_[run.transfer]));
    fill_[run.transfer] += run.end - run.begin;
  }
  std::size_t begin = 0;
  for (std::size_t t = 0; t < pairs_.size(); ++t) {
    const std::size_t end = fill_[t];
    if (end > begin)
      table.add(pairs_[t].first, pairs_[t].second,
                std::span<const Block>(blocks_).subspan(begin, end - begin));
    begin = end;
  }
}

}  // namespace phasecheck
