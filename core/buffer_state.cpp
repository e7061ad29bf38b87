#include "core/buffer_state.hpp"

#include "core/error.hpp"
#include "core/limits.hpp"

namespace phasecheck {
namespace {

constexpr std::uint32_t kNone = ~std::uint32_t{0};

std::uint64_t chunk_ids(Collective collective, Rank ranks, std::uint32_t chunks) {
  return std::uint64_t{ranks} * (collective == Collective::alltoall ? ranks : 1) * chunks;
}

}  // namespace

std::optional<std::uint64_t> BufferState::memory_bytes(Collective collective, Rank ranks,
                                                       const BufferLayout& layout) {
  const std::uint64_t per_rank = std::uint64_t{layout.input} + layout.output + layout.scratch;
  const auto slots = checked_mul(ranks, per_rank);
  const auto outputs = checked_mul(ranks, layout.output);
  return checked_add(
      checked_add(checked_mul(slots, 16), checked_mul(outputs, sizeof(Provenance))),
      checked_mul(chunk_ids(collective, ranks, layout.chunks), 4));
}

BufferState::BufferState(Collective collective, Rank ranks, const BufferLayout& layout)
    : collective_(collective), ranks_(ranks), layout_(layout) {
  if (const auto problem = layout_problem(layout, collective, ranks)) throw InputError(*problem);
  check_memory(memory_bytes(collective, ranks, layout),
               "checking the buffers of " + std::to_string(ranks) + " ranks");
  base_[0] = 0;
  base_[1] = layout.input;
  base_[2] = std::uint64_t{layout.input} + layout.output;
  per_rank_ = base_[2] + layout.scratch;
  const std::size_t total = std::size_t{ranks} * per_rank_;
  slots_.assign(total, kEmpty);
  stamp_.assign(total, 0);
  writer_.assign(total, kNone);
  copies_.assign(chunk_ids(collective, ranks, layout.chunks), 0);
  provenance_.assign(std::size_t{ranks} * layout.output, Provenance{0, kNone, 0, {}});
  for (Rank r = 0; r < ranks; ++r)
    for (Buffer b : {Buffer::input, Buffer::output}) {
      // Only the first ranks * chunks slots can start with a chunk.
      const auto n = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(layout.size(b), std::uint64_t{ranks} * layout.chunks));
      for (std::uint32_t i = 0; i < n; ++i)
        if (const auto c = initial_chunk(collective, ranks, layout, r, {b, i})) {
          const std::uint64_t k = key(*c);
          slots_[slot_offset(r, {b, i})] = k;
          ++copies_[k];
        }
    }
}

std::uint64_t BufferState::key(const Block& c) const {
  return collective_ == Collective::alltoall
             ? (std::uint64_t{c.origin} * ranks_ + c.dest) * layout_.chunks + c.part
             : std::uint64_t{c.origin} * layout_.chunks + c.part;
}

Block BufferState::chunk(std::uint64_t key) const {
  const auto part = static_cast<std::uint32_t>(key % layout_.chunks);
  key /= layout_.chunks;
  if (collective_ == Collective::allgather) return {static_cast<Rank>(key), kEveryRank, part};
  return {static_cast<Rank>(key / ranks_), static_cast<Rank>(key % ranks_), part};
}

std::optional<Block> BufferState::at(Rank rank, Slot slot) const {
  const std::uint64_t k = slots_[slot_offset(rank, slot)];
  if (k == kEmpty) return std::nullopt;
  return chunk(k);
}

std::optional<Provenance> BufferState::written(Rank rank, std::uint32_t index) const {
  const Provenance& p = provenance_[std::size_t{rank} * layout_.output + index];
  if (p.op == kNone) return std::nullopt;
  return p;
}

std::optional<Loss> BufferState::lost(const Block& c) const {
  const auto it = lost_.find(key(c));
  if (it == lost_.end() || copies_[it->first] > 0) return std::nullopt;
  return it->second;
}

std::optional<std::pair<Rank, Slot>> BufferState::find(const Block& c) const {
  const std::uint64_t k = key(c);
  for (std::size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i] == k) return locate(i);
  return std::nullopt;
}

std::pair<Rank, Slot> BufferState::locate(std::size_t offset) const {
  const std::uint64_t in_rank = offset % per_rank_;
  const Buffer b = in_rank >= base_[2]   ? Buffer::scratch
                   : in_rank >= base_[1] ? Buffer::output
                                         : Buffer::input;
  return {static_cast<Rank>(offset / per_rank_),
          Slot{b, static_cast<std::uint32_t>(in_rank - base_[static_cast<int>(b)])}};
}

std::uint32_t BufferState::copies(const Block& c) const { return copies_[key(c)]; }

void BufferState::apply(std::size_t index, std::span<const BufferOp> ops, Phase& table,
                        const FaultSink& fault) {
  const auto now = static_cast<std::uint32_t>(index + 1);
  writes_.clear();
  send_chunks_.clear();
  pairs_.clear();
  pair_index_.clear();
  std::uint64_t last_pair = kEmpty;
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
        const auto [it, added] =
            pair_index_.try_emplace(pair, static_cast<std::uint32_t>(pairs_.size()));
        if (added) pairs_.emplace_back(op.src, op.dst);
        transfer = it->second;
        last_pair = pair;
      }
    }
    const std::size_t from = slot_offset(op.src, op.from), to = slot_offset(op.dst, op.to);
    for (std::uint32_t j = 0; j < op.count; ++j) {
      const std::uint64_t c = slots_[from + j];
      if (c == kEmpty) {
        report(OpFault::Kind::empty_read, op.src, {op.from.buffer, op.from.index + j});
        continue;
      }
      writes_.push_back({to + j, c, static_cast<std::uint32_t>(i), j});
      if (!op.local()) send_chunks_.emplace_back(transfer, c);
    }
  }

  // Writes land at the end: count the new copies first, so that a chunk moving from a slot
  // that is overwritten in the same phase is never counted as lost.
  for (const Write& w : writes_) ++copies_[w.chunk];
  for (const Write& w : writes_) {
    const BufferOp& op = ops[w.op];
    const auto [rank, slot] = locate(w.slot);
    if (stamp_[w.slot] == now)
      fault(OpFault{OpFault::Kind::double_write, w.op, rank, slot, writer_[w.slot]});
    stamp_[w.slot] = now;
    writer_[w.slot] = w.op;
    const std::uint64_t old = slots_[w.slot];
    slots_[w.slot] = w.chunk;
    if (old != kEmpty && --copies_[old] == 0)
      lost_[old] = Loss{static_cast<std::uint32_t>(index), w.op, rank, slot, op};
    if (slot.buffer == Buffer::output)
      provenance_[std::size_t{rank} * layout_.output + slot.index] = {
          static_cast<std::uint32_t>(index), w.op, op.src,
          Slot{op.from.buffer, op.from.index + w.offset}};
  }

  // The sends as a phase table: one transfer per pair, its chunks in the order read.
  table.clear_transfers();
  fill_.assign(pairs_.size() + 1, 0);
  for (const auto& [t, c] : send_chunks_) ++fill_[t + 1];
  for (std::size_t t = 1; t < fill_.size(); ++t) fill_[t] += fill_[t - 1];
  blocks_.resize(send_chunks_.size());
  for (const auto& [t, c] : send_chunks_) blocks_[fill_[t]++] = chunk(c);
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
