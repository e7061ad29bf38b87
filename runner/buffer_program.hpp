#pragma once
// Executes one rank's buffer program (format 3; docs/programs.md, phasecheck.programs/3) with
// MPI on real input, output and scratch buffers, and checks the output buffer byte by byte.
//
// Chunks: with B bytes per message (--bytes), a chunk is floor(B / chunks) bytes, every slot of
// every buffer is one chunk, and a buffer of n slots is n chunks, contiguous. Chunk (o, d, k) of an
// alltoall holds bytes [k cb, (k+1) cb) of message o -> d, pattern(o, d, offset) (common.hpp);
// chunk (o, k) of an allgather the same of o's contribution, pattern(o, -1, offset). When the
// chunks divide B, these are exactly the bytes of a phasecheck.programs/2 run.
//
// A phase (the ops between two waits): every send and copy packs the slots it reads into staging
// memory and every receive lands in staging, so all reads see the phase's start; MPI_Waitall;
// then the receives and the copies write their staging into their target slots, in program order
// (receives, then copies), so all writes land at the phase's end. The sends of one pair in one
// phase are one message, tagged with the phase.
//
// Before each call (untimed) the input holds the rank's chunks, every output slot the complement
// of the chunk it must end with (in place: the rank's own chunks already there), scratch and
// spare slots the byte 0xEE. After each call (untimed) every output slot is compared with the
// chunk it must hold, and the input with what it held: a difference names the slot, the chunk
// expected and, when it can tell, what the slot holds instead.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common.hpp"

namespace phasecheck::runner {

class BufferRank {
 public:
  /// Rank `rank`'s program from a parsed phasecheck.programs/3 document. Throws
  /// std::runtime_error on anything malformed: the file is checked, not trusted.
  BufferRank(const nlohmann::json& doc, int rank, std::uint64_t bytes);

  int ranks() const { return ranks_; }
  bool alltoall() const { return alltoall_; }
  std::uint32_t chunks() const { return chunks_; }
  std::uint64_t chunk_bytes() const { return chunk_bytes_; }

  /// Before each call: the buffers as the collective starts.
  void reset();
  /// One execution of the program.
  void run();
  /// After each call: output and input checked, the errors counted.
  void finish_call();
  const ErrorLog& errors() const { return log_; }

 private:
  enum class Kind { send, recv, copy, wait, sync_send, sync_recv, barrier };
  struct Segment {
    int buffer = 0;  ///< 0 input, 1 output, 2 scratch
    std::uint32_t index = 0;
    std::uint32_t count = 0;
  };
  struct Step {
    Kind kind = Kind::wait;
    int peer = 0;
    std::uint32_t phase = 0;
    std::vector<Segment> from, to;
    std::uint64_t chunks = 0;   ///< send, recv, copy: chunks moved
    std::uint64_t staging = 0;  ///< send, recv, copy: offset in staging, in chunks
  };
  struct Chunk {
    std::int64_t origin = 0, dest = 0;  ///< dest -1: allgather
    std::uint32_t part = 0;
  };

  std::uint8_t* slot(int buffer, std::uint64_t index) {
    return buffers_[buffer].data() + index * chunk_bytes_;
  }
  std::uint8_t* staging(const Step& s) { return staging_.data() + s.staging * chunk_bytes_; }
  void pack(const std::vector<Segment>& from, std::uint8_t* out);
  void unpack(const std::uint8_t* in, const std::vector<Segment>& to);
  void fill(std::uint8_t* out, const Chunk& c, bool complement) const;
  bool holds(const std::uint8_t* at, const Chunk& c) const;
  /// The chunk input slot i starts with (alltoall, allgather not in place), if any.
  bool input_chunk(std::uint64_t i, Chunk& out) const;
  Chunk expected(std::uint64_t output_index) const;
  std::string name(const Chunk& c) const;
  /// What `at` holds instead of `want`: never written, no chunk, another chunk, or the first
  /// byte that differs.
  std::string what_instead(const std::uint8_t* at, const Chunk* want) const;

  int rank_ = 0, ranks_ = 0;
  bool alltoall_ = true, inplace_ = false;
  std::uint32_t chunks_ = 1;
  std::uint64_t chunk_bytes_ = 1;
  std::uint64_t sizes_[3] = {0, 0, 0};  ///< slots per buffer
  std::vector<Step> steps_;
  std::vector<std::uint8_t> buffers_[3];
  std::vector<std::uint8_t> staging_;
  ErrorLog log_;
};

}  // namespace phasecheck::runner
