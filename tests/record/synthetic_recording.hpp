#pragma once
// A recording written by hand: the files the driver (record/driver.c) writes for a small correct
// run, byte for byte as docs/record.md describes them (rank-R.jsonl and rank-R.bin), so that the
// judge's unit tests, the fuzz target's seeds and the benchmark start from one known-good run
// and change one thing at a time. Header-only: the tests, tests/fuzz and bench/ include it.
//
// The run is a pairwise alltoall on contiguous buffers, as an MPI library's pairwise algorithm
// does it: in step j = 1..p-1 rank r posts an isend to r + j and an irecv from r - j (mod p), then
// waits for both; the self block is a local copy (no message). Tags are negative, as Open MPI's
// collective tags are.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "core/schedule.hpp"
#include "record/elements.hpp"

namespace phasecheck::testing {

/// One event line of a rank; `payload` holds the words its [offset, length] points at.
struct SyntheticEvent {
  enum class Kind { send, recv, complete };
  Kind kind = Kind::send;
  std::uint64_t id = 0;
  std::int64_t peer = 0;  ///< send, recv: the peer; complete: the matched source
  std::int64_t tag = 0;
  std::uint64_t lo = 0, hi = 0;  ///< send, recv: the span (the buffer address is lo)
  bool blocking = false;
  std::vector<std::uint64_t> payload;  ///< send, complete
};

struct SyntheticRank {
  std::uint64_t send_base = 0, recv_base = 0;
  std::vector<std::uint64_t> send_layout, recv_layout;  ///< byte offsets of the elements
  std::vector<std::uint8_t> send_final, recv_final;     ///< the allocations after the call
  std::vector<SyntheticEvent> events;
};

struct SyntheticRun {
  Rank ranks = 0;
  std::uint32_t count = 0;
  std::string library = "Open MPI v4.1.4, synthetic";
  std::string routine = "MPI_Alltoall";
  std::vector<SyntheticRank> rank;
};

/// The MPI tag of every message of the synthetic run.
inline constexpr std::int64_t kSyntheticTag = -13;
/// Guard bytes before and after the data of every allocation, as the driver leaves them.
inline constexpr std::uint64_t kSyntheticGuard = 64;

/// The elements of the block origin -> dest, as the words a payload packs.
inline std::vector<std::uint64_t> synthetic_block(Rank origin, Rank dest, std::uint32_t count) {
  std::vector<std::uint64_t> words;
  for (std::uint32_t k = 0; k < count; ++k) words.push_back(record::tag({origin, dest, k}));
  return words;
}

/// A correct pairwise alltoall of `ranks` ranks and `count` elements a block (contiguous).
inline SyntheticRun pairwise_alltoall(Rank ranks, std::uint32_t count) {
  SyntheticRun run;
  run.ranks = ranks;
  run.count = count;
  const std::uint64_t data = std::uint64_t{ranks} * count * 8;
  const std::uint64_t bytes = kSyntheticGuard + data + kSyntheticGuard;
  for (Rank r = 0; r < ranks; ++r) {
    SyntheticRank rr;
    rr.send_base = 0x10000000 + std::uint64_t{r} * 0x4000000;
    rr.recv_base = rr.send_base + 0x2000000;
    rr.send_final.assign(bytes, record::kGuardByte);
    rr.recv_final.assign(bytes, record::kGuardByte);
    for (std::uint64_t i = 0; i < std::uint64_t{ranks} * count; ++i) {
      const std::uint64_t at = kSyntheticGuard + 8 * i;
      rr.send_layout.push_back(at);
      rr.recv_layout.push_back(at);
      const Rank block = static_cast<Rank>(i / count);
      const auto k = static_cast<std::uint32_t>(i % count);
      const std::uint64_t sent = record::tag({r, block, k});
      const std::uint64_t received = record::tag({block, r, k});
      std::memcpy(rr.send_final.data() + at, &sent, 8);
      std::memcpy(rr.recv_final.data() + at, &received, 8);
    }
    const auto block_span = [&](std::uint64_t base, Rank block) {
      const std::uint64_t lo = base + kSyntheticGuard + std::uint64_t{block} * count * 8;
      return std::pair{lo, lo + std::uint64_t{count} * 8};
    };
    for (Rank j = 1; j < ranks; ++j) {
      const Rank to = static_cast<Rank>((r + j) % ranks);
      const Rank from = static_cast<Rank>((r + ranks - j) % ranks);
      const std::uint64_t send_id = 2 * (j - 1), recv_id = send_id + 1;
      const auto [slo, shi] = block_span(rr.send_base, to);
      const auto [rlo, rhi] = block_span(rr.recv_base, from);
      const auto sent = synthetic_block(r, to, count);
      using Kind = SyntheticEvent::Kind;
      rr.events.push_back({Kind::send, send_id, to, kSyntheticTag, slo, shi, false, sent});
      rr.events.push_back({Kind::recv, recv_id, from, kSyntheticTag, rlo, rhi, false, {}});
      rr.events.push_back({Kind::complete, send_id, to, kSyntheticTag, 0, 0, false, sent});
      rr.events.push_back({Kind::complete, recv_id, from, kSyntheticTag, 0, 0, false,
                           synthetic_block(from, r, count)});
    }
    run.rank.push_back(std::move(rr));
  }
  return run;
}

/// One rank's two files: the .jsonl's lines (without their newlines) and the .bin's bytes.
struct RankFiles {
  std::vector<std::string> lines;
  std::vector<std::uint8_t> bin;
};

/// Rank r of `run` in the recording format.
inline RankFiles render(const SyntheticRun& run, Rank r) {
  const SyntheticRank& rr = run.rank[r];
  RankFiles f;
  const auto put = [&](const void* data, std::size_t size) {
    const std::uint64_t offset = f.bin.size();
    const auto* bytes = static_cast<const std::uint8_t*>(data);
    f.bin.insert(f.bin.end(), bytes, bytes + size);
    return "[" + std::to_string(offset) + "," + std::to_string(size) + "]";
  };
  const auto words = [&](const std::vector<std::uint64_t>& w) {
    return put(w.data(), w.size() * 8);
  };
  const auto buffer = [&](std::uint64_t base, std::size_t size,
                          const std::vector<std::uint64_t>& layout) {
    return "{\"base\":" + std::to_string(base) + ",\"bytes\":" + std::to_string(size) +
           ",\"layout\":" + words(layout) + "}";
  };
  const auto number = [](auto x) { return std::to_string(x); };
  f.lines.push_back("{\"format\":\"phasecheck.recording/1\",\"rank\":" + number(r) +
                    ",\"ranks\":" + number(run.ranks) +
                    ",\"collective\":\"alltoall\",\"count\":" + number(run.count) +
                    ",\"types\":\"contiguous\",\"inplace\":false,\"level\":\"pml\",\"library\":\"" +
                    run.library + "\",\"routine\":\"" + run.routine +
                    "\",\"send\":" + buffer(rr.send_base, rr.send_final.size(), rr.send_layout) +
                    ",\"recv\":" + buffer(rr.recv_base, rr.recv_final.size(), rr.recv_layout) +
                    "}");
  for (const SyntheticEvent& e : rr.events) {
    switch (e.kind) {
      case SyntheticEvent::Kind::send:
      case SyntheticEvent::Kind::recv: {
        const bool send = e.kind == SyntheticEvent::Kind::send;
        f.lines.push_back(std::string("{\"ev\":\"") + (send ? "send" : "recv") +
                          "\",\"id\":" + number(e.id) + ",\"peer\":" + number(e.peer) +
                          ",\"tag\":" + number(e.tag) + ",\"buf\":" + number(e.lo) + ",\"span\":[" +
                          number(e.lo) + "," + number(e.hi) + "]" +
                          (send ? ",\"payload\":" + words(e.payload) : std::string()) +
                          ",\"blocking\":" + (e.blocking ? "true" : "false") + "}");
        break;
      }
      case SyntheticEvent::Kind::complete:
        f.lines.push_back("{\"ev\":\"complete\",\"id\":" + number(e.id) +
                          ",\"source\":" + number(e.peer) + ",\"tag\":" + number(e.tag) +
                          ",\"payload\":" + words(e.payload) + "}");
        break;
    }
  }
  f.lines.push_back(
      "{\"ev\":\"final\",\"send\":" + put(rr.send_final.data(), rr.send_final.size()) +
      ",\"recv\":" + put(rr.recv_final.data(), rr.recv_final.size()) + "}");
  f.lines.push_back("{\"ev\":\"end\",\"status\":\"ok\"}");
  return f;
}

inline std::vector<RankFiles> render(const SyntheticRun& run) {
  std::vector<RankFiles> files;
  for (Rank r = 0; r < run.ranks; ++r) files.push_back(render(run, r));
  return files;
}

inline std::string jsonl_text(const RankFiles& f) {
  std::string text;
  for (const std::string& line : f.lines) text += line + "\n";
  return text;
}

/// Writes rank-R.jsonl and rank-R.bin for every rank of `files` into `directory` (which exists).
inline void write_recording(const std::filesystem::path& directory,
                            const std::vector<RankFiles>& files) {
  for (std::size_t r = 0; r < files.size(); ++r) {
    const std::string stem = "rank-" + std::to_string(r);
    std::ofstream(directory / (stem + ".jsonl"), std::ios::binary) << jsonl_text(files[r]);
    std::ofstream(directory / (stem + ".bin"), std::ios::binary)
        .write(reinterpret_cast<const char*>(files[r].bin.data()),
               static_cast<std::streamsize>(files[r].bin.size()));
  }
}

/// A fresh directory under the system's temporary directory, removed with what it holds.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "phasecheck-recording-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
    path_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace phasecheck::testing
