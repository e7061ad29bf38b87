#pragma once
/// A recording: what every rank of one run of a collective did, as the driver
/// (record/driver.c) wrote it — the messages it posted with the bytes they carried, the
/// requests it waited for, and its buffers at the end. docs/record.md has the format
/// ("phasecheck.recording/1": rank-R.jsonl, one JSON object a line, and rank-R.bin, the bytes
/// those lines point at).
///
/// Reading checks the form only (every key and its type, payloads inside the .bin, rank files
/// that agree on the run); what the recorded program did is judged by record/judge.hpp.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::record {

/// How the send and receive buffers are described to MPI (docs/record.md, "The types").
enum class Types { contiguous, strided, resized, different };
std::string_view to_string(Types t);
/// "contiguous", ...; throws InputError naming the known ones.
Types parse_types(std::string_view name);

/// Where the recording was taken: inside Open MPI's point-to-point layer (the library's own
/// collective algorithms) or at the MPI interface (a user's routine).
enum class Level { pml, pmpi };
std::string_view to_string(Level l);

/// Bytes of a rank's .bin file: [offset, offset + length).
struct Bytes {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

/// A byte range of the process's memory, [lo, hi).
struct Span {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  bool overlaps(const Span& o) const { return lo < o.hi && o.lo < hi && lo < hi && o.lo < o.hi; }
};

/// A buffer the collective was called with: the whole allocation (guards included) and where
/// each described element lies in it, in MPI order.
struct Buffer {
  std::uint64_t base = 0;   ///< address of the allocation's first byte
  std::uint64_t bytes = 0;  ///< its size
  std::vector<std::uint64_t> layout;  ///< byte offset from base of element i
};

struct Event {
  enum class Kind { send, recv, complete, abort };
  Kind kind = Kind::send;
  std::uint64_t id = 0;   ///< the request (send, recv, complete)
  std::int64_t peer = 0;  ///< send: destination; recv: source or -1 (any); complete: the source
  std::int64_t tag = 0;
  Span span;             ///< send, recv: the bytes the datatype touches
  bool blocking = false;  ///< send, recv: a blocking call (its complete line follows)
  Bytes payload;          ///< send: packed at the call; complete: see docs/record.md
  std::int64_t code = 0;  ///< abort: the code given to MPI_Abort
  std::size_t line = 0;   ///< in the rank's .jsonl, for messages
};

/// "event 4": the event's place in its rank's recording, as counterexamples name it (the
/// recording's own files are gone when the report is read).
std::string event_number(const Event& e);

/// How the rank's call of the collective ended.
struct End {
  enum class Status { ok, error, unloadable };
  Status status = Status::ok;
  std::string error;  ///< the MPI error or the loader's message (untrusted text)
};

struct RankRecording {
  std::vector<Event> events;
  std::optional<Buffer> send;  ///< empty in place
  Buffer recv;
  std::optional<Bytes> final_send;  ///< the allocations after the call returned
  std::optional<Bytes> final_recv;
  std::optional<End> end;  ///< empty: the rank never finished the call (crash, hang, abort)
  std::string data;  ///< the .bin file
  std::string file;                ///< the .jsonl path, for messages

  /// The bytes `b` points at (inside `data`: checked when read).
  std::span<const std::uint8_t> bytes(const Bytes& b) const {
    return {reinterpret_cast<const std::uint8_t*>(data.data()) + b.offset,
            static_cast<std::size_t>(b.length)};
  }
};

struct Recording {
  Collective collective = Collective::alltoall;
  Rank ranks = 0;
  std::uint32_t count = 0;  ///< elements per block
  Types types = Types::contiguous;
  bool inplace = false;
  Level level = Level::pml;
  std::string library;  ///< MPI_Get_library_version's first line (untrusted text)
  std::string routine;  ///< "MPI_Alltoall" or the user's symbol (untrusted text)
  std::vector<RankRecording> rank;
};

/// The largest run a recording may describe: element tags carry origin and destination in 16
/// bits (docs/record.md).
inline constexpr Rank kMaxRecordedRanks = 4096;
inline constexpr std::uint32_t kMaxRecordedCount = kMaxParts;  // an element is a part

/// Reads the recording in `directory` (rank-0.jsonl .. rank-{p-1}.jsonl and their .bin).
/// Throws InputError naming the file and line of the first malformed line, a payload outside
/// the .bin, rank files that disagree about the run, or a missing rank file. A rank file that
/// stops before its end line is read as it is (`end` empty): the judge reports it.
Recording read_recording(const std::string& directory);

}  // namespace phasecheck::record
