#pragma once
// What the runner's two executors share: the byte pattern every check compares against, the tag
// of synchronization messages, and the log of a rank's errors. runner.cpp executes phase tables
// (phasecheck.programs/2), buffer_program.cpp buffer programs (phasecheck.programs/3).
// MPI, nlohmann JSON and the standard library only: this is also built with SimGrid's smpicxx.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <istream>
#include <stdexcept>
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

/// SAX events of a programs file, built into a document except for the elements of "programs"
/// other than the one at position `rank`, which are skipped as they are read (never built).
/// nlohmann's parser callback could discard them too, but it looks for discarded values after
/// every object, quadratic in the ops of the program kept.
class OwnProgramSax {
 public:
  using Json = nlohmann::json;
  OwnProgramSax(Json& doc, long long rank) : dom_(doc), rank_(rank) {}

  bool null() { return value() || dom_.null(); }
  bool boolean(bool v) { return value() || dom_.boolean(v); }
  bool number_integer(Json::number_integer_t v) { return value() || dom_.number_integer(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return value() || dom_.number_unsigned(v); }
  bool number_float(Json::number_float_t v, const Json::string_t& s) {
    return value() || dom_.number_float(v, s);
  }
  bool string(Json::string_t& v) { return value() || dom_.string(v); }
  bool binary(Json::binary_t& v) { return value() || dom_.binary(v); }
  bool start_object(std::size_t n) { return open() || dom_.start_object(n); }
  bool start_array(std::size_t n) { return open() || dom_.start_array(n); }
  bool end_object() { return close() || dom_.end_object(); }
  bool end_array() { return close() || dom_.end_array(); }
  bool key(Json::string_t& k) {
    if (skipping_ > 0) return true;
    if (depth_ == 1) in_programs_ = k == "programs";
    return dom_.key(k);
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);
  }

 private:
  /// A scalar: true when it is swallowed (inside or as a skipped element).
  bool value() { return skipping_ > 0 || (element() && ++element_ != rank_); }
  /// An object or array starts: true when it is swallowed.
  bool open() {
    if (skipping_ > 0 || (element() && ++element_ != rank_)) {
      ++skipping_;
      return true;
    }
    ++depth_;
    return false;
  }
  bool close() {
    if (skipping_ > 0) {
      --skipping_;
      return true;
    }
    --depth_;
    return false;
  }
  /// The next value is an element of "programs".
  bool element() const { return depth_ == 2 && in_programs_; }

  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  long long rank_;
  long long element_ = -1;
  int depth_ = 0;  // containers open (and built)
  long long skipping_ = 0;
  bool in_programs_ = false;
};

/// A programs file parsed for one rank (OwnProgramSax): each of p processes holds its own
/// program rather than all p of them. own_program() then gives that program.
inline nlohmann::json parse_for_rank(std::istream& in, int rank) {
  nlohmann::json doc;
  OwnProgramSax sax(doc, rank);
  nlohmann::json::sax_parse(in, &sax);
  return doc;
}

/// The one program parse_for_rank kept; throws when the file has none at that position.
inline const nlohmann::json& own_program(const nlohmann::json& doc) {
  const nlohmann::json& list = doc.at("programs");
  if (!list.is_array() || list.size() != 1)
    throw std::runtime_error("\"programs\" has no program for this rank");
  return list.front();
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
