#pragma once
// What the runner's two executors share: the byte pattern every check compares against, the tag
// of synchronization messages, and the log of a rank's errors. runner.cpp executes phase tables
// (phasecheck.programs/2), buffer_program.cpp buffer programs (phasecheck.programs/3).
// MPI, nlohmann JSON and the standard library only: this is also built with SimGrid's smpicxx.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace phasecheck::runner {

inline constexpr int kSyncTag = 32767;            ///< zero-byte synchronization messages
inline constexpr std::size_t kMaxErrorLines = 8;  ///< per rank, to stderr

/// Byte `offset` of message origin -> dest (dest -1: origin's allgather contribution): a hash of
/// the three, the same 8-byte word for 8 consecutive offsets.
inline std::uint8_t pattern(std::int64_t origin, std::int64_t dest, std::uint64_t offset) {
  std::uint64_t h = static_cast<std::uint64_t>(origin) * 0x9E3779B97F4A7C15ull ^
                    static_cast<std::uint64_t>(dest + 1) * 0xC2B2AE3D27D4EB4Full ^
                    (offset >> 3) * 0x165667B19E3779F9ull;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return static_cast<std::uint8_t>(h >> ((offset & 7) * 8));
}

/// One rank's errors: those of the current call, the first lines of the first call that had
/// any, and the count over every call. Only the first kMaxErrorLines of a call keep their text.
class ErrorLog {
 public:
  /// Whether the next error's text is kept (so a caller may skip composing it).
  bool wants_text() const { return first_.empty() && current_.size() < kMaxErrorLines; }
  void add(std::string text) {
    ++count_;
    if (wants_text()) current_.push_back(std::move(text));
  }
  /// After each call: the call's errors counted, its first lines kept if it is the first to
  /// have any.
  void end_call() {
    total_ += count_;
    count_ = 0;
    if (first_.empty()) first_ = std::move(current_);
    current_.clear();
  }
  long long total() const { return total_; }
  /// The first lines, to stderr, as "rank R: text".
  void print(int rank) const {
    for (const std::string& e : first_) std::fprintf(stderr, "rank %d: %s\n", rank, e.c_str());
  }

 private:
  std::vector<std::string> current_, first_;
  long long count_ = 0, total_ = 0;
};

}  // namespace phasecheck::runner
