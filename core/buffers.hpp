#pragma once
/// Buffer-level schedules (format 3): where every chunk lands, not only which rank holds it.
///
/// Every rank has three buffers of chunk slots: input, output and scratch (sizes in
/// BufferLayout). A phase of a format-3 schedule is a list of Ops, each moving `count`
/// consecutive slots `from`.. of rank `src` to slots `to`.. of rank `dst`: a send when the ranks
/// differ, a local copy when they are the same. Every op of a phase reads the state at the
/// phase's start; every write lands at its end.
///
/// Chunks are Blocks: for an alltoall chunk (s, d, k) is Block{s, d, k}; for an allgather chunk
/// (s, k) is Block{s, kEveryRank, k}. So the sends of a phase are an ordinary phase table, and
/// every checker of phase tables works on format 3 unchanged (core/buffer_state.hpp derives it).
///
/// Layout (docs/formats.md, version 3):
///   alltoall:  input slot d*c + k of rank r starts with (r, d, k) (in place, format 4: output
///              slot d*c + k starts with it, as with MPI_IN_PLACE); at the end output slot
///              s*c + k of rank r holds (s, r, k), s == r included.
///   allgather: input slot k of rank r holds (r, k) (in place: output slot r*c + k starts with
///              it); at the end output slot s*c + k holds (s, k) on every rank.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/topology.hpp"

namespace phasecheck {

enum class Collective;
struct Block;

enum class Buffer : std::uint8_t { input, output, scratch };
inline constexpr Buffer kBuffers[] = {Buffer::input, Buffer::output, Buffer::scratch};
std::string_view to_string(Buffer b);
/// Empty for a name other than "input", "output", "scratch".
std::optional<Buffer> parse_buffer(std::string_view name);

/// The most slots one buffer may have (slot indices fit 30 bits).
inline constexpr std::uint32_t kMaxSlots = (1u << 30) - 1;

struct Slot {
  Buffer buffer = Buffer::input;
  std::uint32_t index = 0;
  friend bool operator==(const Slot&, const Slot&) = default;
};
std::string to_string(Slot s);  ///< "scratch[3]"

/// One operation: `count` consecutive chunks from slots from.. of rank src to slots to.. of rank
/// dst. A send when src != dst, a local copy (by rank src) when src == dst.
struct BufferOp {
  Rank src = 0;
  Rank dst = 0;
  Slot from;
  Slot to;
  std::uint32_t count = 1;
  bool local() const { return src == dst; }
  friend bool operator==(const BufferOp&, const BufferOp&) = default;
};
/// "send 1 -> 4: input[3..4] -> scratch[0..1]" or "copy on 2: scratch[0] -> output[5]".
std::string describe_op(const BufferOp& op);

/// The buffers of a format-3 schedule (ScheduleHeader::buffers).
struct BufferLayout {
  std::uint32_t chunks = 1;  ///< c: chunks per message (alltoall) or per contribution
  /// No input: the output starts with it (allgather: output slot r*c + k holds (r, k); alltoall,
  /// format 4: output slot d*c + k holds (r, d, k)).
  bool inplace = false;
  std::uint32_t input = 0;   ///< slots per rank
  std::uint32_t output = 0;
  std::uint32_t scratch = 0;
  std::uint32_t size(Buffer b) const {
    return b == Buffer::input ? input : b == Buffer::output ? output : scratch;
  }
  friend bool operator==(const BufferLayout&, const BufferLayout&) = default;
};

/// The layout a collective needs at least: input p*c (alltoall), c (allgather) or 0 (in place);
/// output p*c; no scratch. (In place for an alltoall is format 4: the reader refuses it before.)
BufferLayout natural_layout(Collective collective, Rank ranks, std::uint32_t chunks,
                            bool inplace = false);
/// What is wrong with `layout` for `collective` over `ranks` ranks (too small an input or
/// output, an input in place, no chunks, more than kMaxSlots), or nothing.
std::optional<std::string> layout_problem(const BufferLayout& layout, Collective collective,
                                          Rank ranks);
/// What makes `op` malformed (bad input, not a schedule bug): a rank that does not exist, or a
/// count of 0. Slots beyond a buffer are the schedule's bug and are reported by the checker.
std::optional<std::string> op_problem(const BufferOp& op, Rank ranks);

/// The chunk slot `slot` of `rank` holds before the first phase, if any.
std::optional<Block> initial_chunk(Collective collective, Rank ranks, const BufferLayout& layout,
                                   Rank rank, Slot slot);
/// The chunk output slot `index` (< ranks * chunks) of `rank` must hold at the end.
Block expected_chunk(Collective collective, std::uint32_t chunks, Rank rank, std::uint32_t index);
/// "(1,4,0)" for an alltoall chunk, "(1,0)" for an allgather chunk.
std::string chunk_name(const Block& chunk);

}  // namespace phasecheck
