// fuzz-recording: arbitrary bytes as a recording (record/recording.hpp, docs/record.md) of one
// or two ranks, read and, when it reads, judged (record/judge.hpp) on the fully connected
// machine of its ranks. An InputError is the expected answer to bad input; a crash, a sanitizer
// report or any other exception is a finding.
//
// The input is up to four pieces, each a 4-byte little-endian length and that many bytes (the
// last piece takes what is left when its length runs past the end): rank-0.jsonl, rank-0.bin,
// rank-1.jsonl, rank-1.bin. Rank 1's files exist only when the input has a third piece. The seeds
// (corpus/fuzz-recording) are tests/record/synthetic_recording.hpp's pairwise alltoall at p = 1
// and 2, written this way.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/topology.hpp"
#include "finding.hpp"
#include "record/judge.hpp"
#include "record/recording.hpp"
#include "tests/record/synthetic_recording.hpp"

using namespace phasecheck;

namespace {

/// The input's pieces, in order (at most four).
std::vector<std::string_view> pieces(std::string_view input) {
  std::vector<std::string_view> out;
  while (out.size() < 4 && input.size() >= 4) {
    std::uint32_t length = 0;
    for (int i = 3; i >= 0; --i) length = length << 8 | static_cast<std::uint8_t>(input[i]);
    input.remove_prefix(4);
    const std::size_t take = std::min<std::size_t>(length, input.size());
    out.push_back(input.substr(0, take));
    input.remove_prefix(take);
  }
  return out;
}

void put(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const testing::ScratchDirectory dir;
  const std::vector<std::string_view> files = pieces(fuzz::as_text(data, size));
  const char* names[] = {"rank-0.jsonl", "rank-0.bin", "rank-1.jsonl", "rank-1.bin"};
  for (std::size_t i = 0; i < 4; ++i) {
    if (i < files.size() || (i == 1 && !files.empty()) || (i == 3 && files.size() > 2))
      put(dir.path() / names[i], i < files.size() ? files[i] : std::string_view());
    else
      std::filesystem::remove(dir.path() / names[i]);
  }
  record::Recording rec;
  try {
    rec = record::read_recording(dir.path().string());
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("read_recording threw something other than InputError: ") + e.what());
  }
  try {
    const record::Judgement j =
        record::judge(rec, FullyConnected(rec.ranks, std::max<Rank>(1, rec.ranks - 1)), "fuzz");
    if (j.report.checks.empty()) fuzz::finding("judge returned no check");
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("judge threw something other than InputError: ") + e.what());
  }
  return 0;
}
