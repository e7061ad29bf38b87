#include "core/buffers.hpp"

#include <algorithm>

#include "core/schedule.hpp"

namespace phasecheck {

std::string_view to_string(Buffer b) {
  switch (b) {
    case Buffer::input:
      return "input";
    case Buffer::output:
      return "output";
    case Buffer::scratch:
      return "scratch";
  }
  return "?";
}

std::optional<Buffer> parse_buffer(std::string_view name) {
  for (Buffer b : kBuffers)
    if (to_string(b) == name) return b;
  return std::nullopt;
}

std::string to_string(Slot s) {
  return std::string(to_string(s.buffer)) + "[" + std::to_string(s.index) + "]";
}

namespace {

std::string slots(Slot s, std::uint32_t count) {
  std::string text = std::string(to_string(s.buffer)) + "[" + std::to_string(s.index);
  if (count > 1) text += ".." + std::to_string(std::uint64_t{s.index} + count - 1);
  return text + "]";
}

}  // namespace

std::string describe_op(const BufferOp& op) {
  return (op.local() ? "copy on " + std::to_string(op.src)
                     : "send " + std::to_string(op.src) + " -> " + std::to_string(op.dst)) +
         ": " + slots(op.from, op.count) + " -> " + slots(op.to, op.count);
}

BufferLayout natural_layout(Collective collective, Rank ranks, std::uint32_t chunks, bool inplace) {
  BufferLayout l;
  l.chunks = chunks;
  l.inplace = inplace;
  l.output = ranks * chunks;
  l.input = inplace ? 0 : collective == Collective::alltoall ? ranks * chunks : chunks;
  return l;
}

std::optional<std::string> layout_problem(const BufferLayout& layout, Collective collective,
                                          Rank ranks) {
  if (layout.chunks == 0) return "\"chunks\" must be at least 1";
  if (layout.chunks > kMaxParts)
    return "\"chunks\" is at most " + std::to_string(kMaxParts) + " chunks per message";
  for (Buffer b : kBuffers)
    if (layout.size(b) > kMaxSlots)
      return "buffer " + std::string(to_string(b)) + " has " + std::to_string(layout.size(b)) +
             " slots, more than " + std::to_string(kMaxSlots);
  const std::uint64_t needed = std::uint64_t{ranks} * layout.chunks;
  if (needed > kMaxSlots)
    return std::to_string(ranks) + " ranks x " + std::to_string(layout.chunks) +
           " chunks need more than " + std::to_string(kMaxSlots) + " output slots";
  const BufferLayout least = natural_layout(collective, ranks, layout.chunks, layout.inplace);
  const auto too_small = [&](Buffer b, const char* holds) -> std::optional<std::string> {
    if (layout.size(b) >= least.size(b)) return std::nullopt;
    return "buffer " + std::string(to_string(b)) + " has " + std::to_string(layout.size(b)) +
           " slots but must hold " + holds + ": " + std::to_string(least.size(b)) + " slots";
  };
  if (auto p = too_small(Buffer::output, "every chunk the rank ends with")) return p;
  if (auto p = too_small(Buffer::input, "every chunk the rank starts with")) return p;
  if (layout.inplace && layout.input > 0)
    return "an " + std::string(to_string(collective)) +
           " in place has no input buffer (input must be 0)";
  return std::nullopt;
}

std::optional<std::string> op_problem(const BufferOp& op, Rank ranks) {
  if (op.src >= ranks || op.dst >= ranks)
    return "rank " + std::to_string(std::max(op.src, op.dst)) +
           " does not exist (ranks: " + std::to_string(ranks) + ")";
  if (op.count == 0) return std::string("\"count\" must be at least 1");
  return std::nullopt;
}

std::optional<Block> initial_chunk(Collective collective, Rank ranks, const BufferLayout& layout,
                                   Rank rank, Slot slot) {
  const std::uint32_t c = layout.chunks;
  if (collective == Collective::alltoall) {  // in place, the output starts as the input would
    const Buffer start = layout.inplace ? Buffer::output : Buffer::input;
    if (slot.buffer != start || slot.index >= std::uint64_t{ranks} * c) return {};
    return Block{rank, slot.index / c, slot.index % c};
  }
  if (layout.inplace) {
    if (slot.buffer != Buffer::output || slot.index / c != rank) return {};
    return Block{rank, kEveryRank, slot.index % c};
  }
  if (slot.buffer != Buffer::input || slot.index >= c) return {};
  return Block{rank, kEveryRank, slot.index};
}

Block expected_chunk(Collective collective, std::uint32_t chunks, Rank rank, std::uint32_t index) {
  return collective == Collective::alltoall ? Block{index / chunks, rank, index % chunks}
                                            : Block{index / chunks, kEveryRank, index % chunks};
}

std::string chunk_name(const Block& chunk) {
  return "(" + std::to_string(chunk.origin) +
         (chunk.dest == kEveryRank ? "" : "," + std::to_string(chunk.dest)) + "," +
         std::to_string(chunk.part) + ")";
}

}  // namespace phasecheck
