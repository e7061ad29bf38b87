#include "core/buffer_state.hpp"

#include "core/error.hpp"
#include "core/limits.hpp"

namespace phasecheck {
namespace {

std::uint64_t chunk_ids(Collective collective, Rank ranks, std::uint32_t chunks) {
  return std::uint64_t{ranks} * (collective == Collective::alltoall ? ranks : 1) * chunks;
}

}  // namespace

std::optional<std::uint64_t> BufferState::memory_bytes(Collective collective, Rank ranks,
                                                       const BufferLayout& layout) {
  const std::uint64_t per_rank = std::uint64_t{layout.output} + layout.scratch;
  const bool copies = layout.inplace;
  return checked_add(checked_mul(checked_mul(ranks, per_rank), sizeof(Cell)),
                     copies ? checked_mul(chunk_ids(collective, ranks, layout.chunks), 4)
                            : std::optional<std::uint64_t>(0));
}

BufferState::BufferState(Collective collective, Rank ranks, const BufferLayout& layout)
    : collective_(collective), ranks_(ranks), layout_(layout) {
  if (const auto problem = layout_problem(layout, collective, ranks)) throw InputError(*problem);
  check_memory(memory_bytes(collective, ranks, layout),
               "checking the buffers of " + std::to_string(ranks) + " ranks");
  per_rank_ = std::uint64_t{layout.output} + layout.scratch;
  slots_ = ZeroedArray<Cell>(std::size_t{ranks} * per_rank_);  // every slot empty, never written
  if (layout.inplace) {
    copies_.assign(chunk_ids(collective, ranks, layout.chunks), 1);  // each chunk starts once
    const std::uint32_t c = layout.chunks;
    for (Rank r = 0; r < ranks; ++r)
      for (std::uint32_t k = 0; k < c; ++k) {
        if (collective == Collective::allgather) {
          slots_[slot_offset(r, {Buffer::output, r * c + k})].chunk = pack({r, kEveryRank, k});
          continue;
        }
        for (Rank d = 0; d < ranks; ++d)  // the message to d where d's message to r must end
          slots_[slot_offset(r, {Buffer::output, d * c + k})].chunk = pack({r, d, k});
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
                                                       : slots_[slot_offset(rank, slot)].chunk;
  if (c == 0) return std::nullopt;
  return unpack(c);
}

std::optional<Provenance> BufferState::written(Rank rank, std::uint32_t index) const {
  const auto it = misplaced_.find(slot_offset(rank, {Buffer::output, index}));
  if (it == misplaced_.end()) return std::nullopt;
  return it->second;
}

std::optional<Loss> BufferState::lost(const Block& c) const {
  if (copies_.empty()) return std::nullopt;  // the input keeps a copy of every chunk
  const auto it = lost_.find(key(c));
  if (it == lost_.end() || copies_[it->first] > 0) return std::nullopt;
  return it->second;
}

BufferState::Misplaced BufferState::misplaced() const {
  Misplaced m;
  const std::uint32_t c = layout_.chunks;
  for (Rank r = 0; r < ranks_; ++r) {
    const Cell* out = &slots_[slot_offset(r, {Buffer::output, 0})];
    for (Rank s = 0; s < ranks_; ++s)
      for (std::uint32_t k = 0; k < c; ++k, ++out) {
        const std::uint64_t want =
            pack({s, collective_ == Collective::alltoall ? r : kEveryRank, k});
        if (out->chunk != want && m.count++ == 0) {
          m.rank = r;
          m.index = s * c + k;
        }
      }
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
      if (slots_[i].chunk == packed) return locate(i);
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].chunk == packed) return locate(i);
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
  for (std::size_t i = 0; i < slots_.size(); ++i) n += slots_[i].chunk == packed;
  return n;
}

std::uint32_t BufferState::transfer_of(Rank src, Rank dst) {
  const std::uint64_t key = std::uint64_t{src} * ranks_ + dst;
  if (2 * (pairs_.size() + 1) > pair_keys_.size()) {  // keep the load at most a half: grow
    const std::size_t capacity = std::max<std::size_t>(64, 2 * pair_keys_.size());
    pair_keys_.assign(capacity, 0);
    pair_values_.assign(capacity, 0);
    pair_stamp_.assign(capacity, 0);
    const auto pairs = std::move(pairs_);
    pairs_.clear();
    for (const auto& [s, d] : pairs) transfer_of(s, d);
  }
  const std::size_t mask = pair_keys_.size() - 1;
  std::size_t h = static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  while (pair_stamp_[h] == pair_now_) {
    if (pair_keys_[h] == key) return pair_values_[h];
    h = (h + 1) & mask;
  }
  pair_stamp_[h] = pair_now_;
  pair_keys_[h] = key;
  pair_values_[h] = static_cast<std::uint32_t>(pairs_.size());
  pairs_.emplace_back(src, dst);
  return pair_values_[h];
}

void BufferState::apply(std::size_t index, std::span<const BufferOp> ops, Phase& table,
                        const FaultSink& fault) {
  const auto now = static_cast<std::uint32_t>(index + 1);
  writes_.clear();
  send_chunks_.clear();
  pairs_.clear();
  pair_now_ = now;  // forgets the pairs of the phase before
  std::uint64_t last_pair = ~std::uint64_t{0};
  std::uint32_t transfer = 0;

  // Reads: every op sees the state at the start of the phase.
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const BufferOp& op = ops[i];
    const auto report = [&](OpFault::Kind kind, Rank rank, Slot slot) {
      fault(OpFault{kind, i, rank, slot, 0});
    };
    const std::uint64_t read_end = std::uint64_t{op.from.index} + op.count;
    const std::uint64_t write_end = std::uint64_t{op.to.index} + op.count;
    bool skip = false;
    if (read_end > layout_.size(op.from.buffer)) {
      report(OpFault::Kind::read_beyond, op.src,
             {op.from.buffer, std::max(op.from.index, layout_.size(op.from.buffer))});
      skip = true;
    }
    if (write_end > layout_.size(op.to.buffer)) {
      report(OpFault::Kind::write_beyond, op.dst,
             {op.to.buffer, std::max(op.to.index, layout_.size(op.to.buffer))});
      skip = true;
    }
    if (!skip && op.to.buffer == Buffer::input) {
      report(OpFault::Kind::input_write, op.dst, op.to);
      skip = true;
    }
    if (skip) continue;

    if (!op.local()) {
      const std::uint64_t pair = std::uint64_t{op.src} * ranks_ + op.dst;
      if (pair != last_pair) {
        transfer = transfer_of(op.src, op.dst);
        last_pair = pair;
      }
    }
    const std::size_t to = slot_offset(op.dst, op.to);
    const auto read = [&](std::uint32_t j, std::uint64_t c) {
      if (c == 0) {
        report(OpFault::Kind::empty_read, op.src, {op.from.buffer, op.from.index + j});
        return;
      }
      writes_.push_back({to + j, c, static_cast<std::uint32_t>(i), j});
      if (!op.local()) send_chunks_.emplace_back(transfer, unpack(c));
    };
    if (op.from.buffer == Buffer::input) {
      for (std::uint32_t j = 0; j < op.count; ++j) read(j, input_chunk(op.src, op.from.index + j));
    } else {
      const std::size_t from = slot_offset(op.src, op.from);
      for (std::uint32_t j = 0; j < op.count; ++j) read(j, slots_[from + j].chunk);
    }
  }

  // Writes land at the end: count the new copies first, so that a chunk moving from a slot
  // that is overwritten in the same phase is never counted as lost.
  const bool counting = !copies_.empty();
  if (counting)
    for (const Write& w : writes_) ++copies_[key(unpack(w.chunk))];
  for (const Write& w : writes_) {
    const BufferOp& op = ops[w.op];
    const Slot slot{op.to.buffer, op.to.index + w.offset};
    Cell& cell = slots_[w.slot];
    if (cell.stamp == now) fault(OpFault{OpFault::Kind::double_write, w.op, op.dst, slot, cell.op});
    const std::uint64_t old = cell.chunk;
    cell = {w.chunk, now, w.op};
    if (counting && old != 0 && --copies_[key(unpack(old))] == 0)
      lost_[key(unpack(old))] = Loss{static_cast<std::uint32_t>(index), w.op, op.dst, slot, op};
    if (slot.buffer == Buffer::output) {
      // Whether the chunk belongs in this output slot, without a division: (s, d, k) belongs in
      // output slot s*c + k of rank d (of every rank, for an allgather).
      const Block chunk = unpack(w.chunk);
      const bool belongs =
          std::uint64_t{chunk.origin} * layout_.chunks + chunk.part == slot.index &&
          (collective_ == Collective::allgather || chunk.dest == op.dst);
      if (!belongs) {
        if (misplaced_.size() < kMaxMisplaced || misplaced_.count(w.slot))
          misplaced_[w.slot] = {static_cast<std::uint32_t>(index), w.op, op.src,
                                Slot{op.from.buffer, op.from.index + w.offset}};
      } else if (!misplaced_.empty()) {
        misplaced_.erase(w.slot);
      }
    }
  }

  // The sends as a phase table: one transfer per pair, its chunks in the order read.
  table.clear_transfers();
  fill_.assign(pairs_.size() + 1, 0);
  for (const auto& [t, c] : send_chunks_) ++fill_[t + 1];
  for (std::size_t t = 1; t < fill_.size(); ++t) fill_[t] += fill_[t - 1];
  blocks_.resize(send_chunks_.size());
  for (const auto& [t, c] : send_chunks_) blocks_[fill_[t]++] = c;
  std::uint32_t begin = 0;
  for (std::size_t t = 0; t < pairs_.size(); ++t) {
    const std::uint32_t end = fill_[t];
    if (end > begin)  // a pair whose every read found an empty slot carries nothing
      table.add(pairs_[t].first, pairs_[t].second,
                std::span<const Block>(blocks_).subspan(begin, end - begin));
    begin = end;
  }
}

}  // namespace phasecheck
