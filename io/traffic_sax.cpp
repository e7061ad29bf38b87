// A traffic file's JSON read by a SAX consumer straight into the matrix (io/traffic_json.hpp).
// The checks and messages are traffic_from_json's, made as the values arrive: every value out of
// place is refused where it stands, so nothing but the matrix and one row grow, and no value nests
// deeper than a row.

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "io/traffic.hpp"
#include "io/traffic_json.hpp"

namespace phasecheck::io::detail {
namespace {

/// The members of the top object, in the order traffic_from_json checks them.
enum class Member { format, ranks, element_bytes, counts };
constexpr std::array<std::string_view, 4> kMembers = {"format", "ranks", "element_bytes", "counts"};

class TrafficSax {
 public:
  TrafficSax(std::string_view source, std::string_view text) : source_(source), text_(text) {}

  bool null() { wrong("a null"); }
  bool boolean(bool) { wrong("a boolean"); }
  // nlohmann hands non-negative integers to number_unsigned: here only negatives and "-0".
  bool number_integer(std::int64_t v) { wrong(v < 0 ? "a negative number" : "a number"); }
  bool number_float(double, const std::string&) { wrong("a non-integer or out-of-range number"); }
  bool binary(nlohmann::json::binary_t&) { wrong("a binary value"); }

  bool number_unsigned(std::uint64_t v) {
    if (depth_ == 3) return cell(v);
    if (depth_ == 1 && member_ == Member::ranks) {
      ranks_ = bounded(v, kMaxRanks);
      if (ranks_ == 0) fail("ranks", "must be at least 1");
      return true;
    }
    if (depth_ == 1 && member_ == Member::element_bytes) {
      element_bytes_ = bounded(v, kMaxElementBytes);
      if (element_bytes_ == 0) fail("element_bytes", "must be at least 1");
      return true;
    }
    wrong("a number");
  }

  bool string(std::string& s) {
    if (depth_ != 1 || member_ != Member::format) wrong("a string");
    if (s.find('\0') != std::string::npos)
      fail("format", "a string with a NUL character (\\u0000)");
    if (s != kTrafficFormat)
      fail("format", "unsupported format \"" + s + "\" (this phasecheck reads " +
                         std::string(kTrafficFormat) + ")");
    return true;
  }

  bool start_object(std::size_t) {
    if (depth_ != 0) wrong("an object");
    depth_ = 1;
    return true;
  }

  bool key(std::string& k) {
    const auto it = std::find(kMembers.begin(), kMembers.end(), k);
    if (it == kMembers.end()) fail("", "unknown key \"" + k + "\"");
    member_ = static_cast<Member>(it - kMembers.begin());
    if (seen_[static_cast<std::size_t>(member_)])
      throw InputError(std::string(source_) + ": the key \"" + k +
                       "\" appears twice in one object");
    seen_[static_cast<std::size_t>(member_)] = true;
    return true;
  }

  bool end_object() {
    depth_ = 0;
    return true;
  }

  bool start_array(std::size_t) {
    if (depth_ == 1 && member_ == Member::counts) {
      // The side is known now when "ranks" came first (as phasecheck writes it).
      if (ranks_ != 0) allocate(ranks_);
      depth_ = 2;
      return true;
    }
    if (depth_ != 2) wrong("an array");
    depth_ = 3;
    column_ = 0;
    return true;
  }

  bool end_array() {
    if (depth_ == 3) {
      if (row_ == 0 && side_ == 0) {
        if (first_row_.empty()) fail("counts[0]", "0 counts: a matrix has at least one rank");
        allocate(first_row_.size());
        std::copy(first_row_.begin(), first_row_.end(), traffic_.counts.begin());
        first_row_ = {};
      }
      if (column_ != side_)
        fail(row_path(),
             std::to_string(column_) + " counts for " + std::to_string(side_) + " ranks");
      ++row_;
      depth_ = 2;
      return true;
    }
    depth_ = 1;  // the end of "counts"
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) {
    throw_syntax_error(source_, e);
  }
  bool parse_error(const nlohmann::detail::position_t& at, const std::string& token,
                   const nlohmann::json::exception& e) {
    throw_json_error(source_, at, token, e, text_);
  }

  /// The matrix, once the document has ended: what traffic_from_json checks at the end.
  Traffic finish(std::optional<std::uint64_t> element_bytes) {
    for (const Member m : {Member::format, Member::ranks, Member::counts})
      if (!seen_[static_cast<std::size_t>(m)])
        fail("", "missing \"" + std::string(kMembers[static_cast<std::size_t>(m)]) + "\"");
    if (row_ != ranks_)
      fail("counts", std::to_string(row_) + " rows for " + std::to_string(ranks_) + " ranks");
    const bool file_says = seen_[static_cast<std::size_t>(Member::element_bytes)];
    if (element_bytes && file_says && *element_bytes != element_bytes_)
      fail("element_bytes", "the file says " + std::to_string(element_bytes_) + ", but " +
                                std::to_string(*element_bytes) + " was given (--element-bytes)");
    traffic_.element_bytes = file_says ? element_bytes_ : element_bytes.value_or(1);
    if (const auto problem = traffic_problem(traffic_)) fail("", *problem);
    return std::move(traffic_);
  }

 private:
  [[noreturn]] void fail(std::string_view path, const std::string& what) const {
    throw_at(source_, path, what);
  }

  /// A value of kind `got` where it does not belong: refused with what belongs there.
  [[noreturn]] void wrong(const std::string& got) const {
    if (depth_ == 0) fail("", "expected an object, got " + got);
    if (depth_ == 3) fail(cell_path(), "expected a non-negative integer, got " + got);
    if (depth_ == 2) fail(row_path(), "expected an array, got " + got);
    const std::string name(kMembers[static_cast<std::size_t>(member_)]);
    switch (member_) {
      case Member::format:
        fail(name, "expected a string, got " + got);
      case Member::ranks:
      case Member::element_bytes:
        fail(name, "expected a non-negative integer, got " + got);
      case Member::counts:
        fail(name, "expected an array, got " + got);
    }
    fail(name, "unexpected " + got);
  }

  std::uint64_t bounded(std::uint64_t v, std::uint64_t max) const {
    if (v > max)
      fail(kMembers[static_cast<std::size_t>(member_)],
           std::to_string(v) + " is too large (at most " + std::to_string(max) + ")");
    return v;
  }

  bool cell(std::uint64_t v) {
    if (v > kMaxTrafficCount)
      fail(cell_path(),
           std::to_string(v) + " is too large (at most " + std::to_string(kMaxTrafficCount) + ")");
    if (side_ == 0) {  // the first row, before "ranks": its length is the side
      if (first_row_.size() == kMaxRanks)
        fail("counts[0]", "more than " + std::to_string(kMaxRanks) + " counts");
      first_row_.push_back(v);
    } else if (row_ < side_ && column_ < side_) {
      traffic_.counts[row_ * side_ + column_] = v;
    }  // beyond the side: counted for the message, never stored
    ++column_;
    return true;
  }

  void allocate(std::uint64_t side) {
    side_ = side;
    with_source(std::string(source_), [&] { traffic_ = zero_traffic(static_cast<Rank>(side), 1); });
    if (ranks_ == 0) ranks_ = side;  // "ranks" may still come, and must agree
  }

  std::string row_path() const { return "counts[" + std::to_string(row_) + "]"; }
  std::string cell_path() const { return row_path() + "[" + std::to_string(column_) + "]"; }

  std::string_view source_, text_;
  int depth_ = 0;  // 0 outside, 1 the top object, 2 "counts", 3 a row
  Member member_ = Member::format;
  std::array<bool, 4> seen_{};
  std::uint64_t ranks_ = 0, element_bytes_ = 1;
  std::uint64_t side_ = 0;  // the matrix's side once allocated
  std::uint64_t row_ = 0, column_ = 0;
  std::vector<std::uint64_t> first_row_;
  Traffic traffic_;
};

}  // namespace

Traffic traffic_from_json_text(std::string_view text, std::string_view source,
                               std::optional<std::uint64_t> element_bytes) {
  TrafficSax sax(source, text);
  Json::sax_parse(text, &sax, nlohmann::json::input_format_t::json, /*strict=*/true);
  return sax.finish(element_bytes);
}

}  // namespace phasecheck::io::detail
