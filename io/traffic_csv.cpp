// A traffic matrix as CSV: p lines of p counts (io/traffic_json.hpp's traffic_from_csv, and
// io/traffic.hpp's writer). Boost.Tokenizer splits a line into fields; this file only walks the
// lines, keeps the place of each field for messages and reads each field as a count.

#include <algorithm>
#include <boost/tokenizer.hpp>
#include <charconv>
#include <ostream>
#include <string>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "io/traffic.hpp"
#include "io/traffic_json.hpp"

namespace phasecheck::io {
namespace detail {
namespace {

using Fields =
    boost::tokenizer<boost::escaped_list_separator<char>, std::string_view::const_iterator>;

/// The lines of a text one at a time: "\n" or "\r\n" ends, the last one optional.
class Lines {
 public:
  explicit Lines(std::string_view text) : text_(text) {}
  /// How many lines next() returns.
  std::uint64_t count() const {
    const auto ends = static_cast<std::uint64_t>(std::count(text_.begin(), text_.end(), '\n'));
    return ends + (text_.empty() || text_.back() == '\n' ? 0 : 1);
  }
  bool next(std::string_view& line) {
    if (at_ >= text_.size()) return false;
    const std::size_t end = std::min(text_.find('\n', at_), text_.size());
    line = text_.substr(at_, end - at_);
    if (line.ends_with('\r')) line.remove_suffix(1);
    at_ = end + 1;
    ++number_;
    return true;
  }
  std::uint64_t number() const { return number_; }  ///< 1-based, of the last line returned

 private:
  std::string_view text_;
  std::size_t at_ = 0;
  std::uint64_t number_ = 0;
};

/// A field as the message quotes it: at most 32 bytes.
std::string quoted(std::string_view field) {
  return "\"" + std::string(field.substr(0, 32)) + (field.size() > 32 ? "...\"" : "\"");
}

class CsvReader {
 public:
  CsvReader(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  Traffic read(std::optional<std::uint64_t> element_bytes) {
    // The side and the rows are known before anything is allocated.
    Lines lines(text_);
    std::string_view line;
    lines.next(line);
    std::uint64_t side = 0;
    each_field(line, 1, [&](std::string_view, std::uint64_t) {
      if (++side > kMaxRanks)
        fail(1, 0, "", "more than " + std::to_string(kMaxRanks) + " counts in the first row");
    });
    if (side == 0) fail(1, 0, "", "an empty first line (expected p counts: a row of the matrix)");
    const std::uint64_t rows = lines.count();
    if (rows != side)
      fail(0, 0, "counts",
           std::to_string(rows) + " rows for " + std::to_string(side) +
               " ranks (the first row has " + std::to_string(side) + " counts)");
    Traffic traffic;
    with_source(std::string(source_), [&] {
      traffic = zero_traffic(static_cast<Rank>(side), element_bytes.value_or(1));
    });
    Lines again(text_);
    for (std::uint64_t s = 0; again.next(line); ++s) {
      std::uint64_t d = 0;
      each_field(line, again.number(), [&](std::string_view field, std::uint64_t column) {
        if (d < side) traffic.counts[s * side + d] = count(field, again.number(), column, s, d);
        ++d;
      });
      if (d != side)
        fail(again.number(), 0, "counts[" + std::to_string(s) + "]",
             std::to_string(d) + " counts for " + std::to_string(side) + " ranks");
    }
    if (const auto problem = traffic_problem(traffic)) fail(0, 0, "", *problem);
    return traffic;
  }

 private:
  /// "source:line:column: path: what" (line or column 0: left out).
  [[noreturn]] void fail(std::uint64_t line, std::uint64_t column, std::string_view path,
                         const std::string& what) const {
    std::string where(source_);
    if (line != 0) where += ":" + std::to_string(line);
    if (column != 0) where += ":" + std::to_string(column);
    throw_at(where, path, what);
  }

  /// Calls visit(field, column) for each field of `line` (line number `number`), the field
  /// without the white space around it and its 1-based column.
  template <class Visit>
  void each_field(std::string_view line, std::uint64_t number, Visit&& visit) const {
    auto start = line.begin();
    try {
      const Fields fields(line.begin(), line.end());
      for (auto it = fields.begin(); it != fields.end(); ++it) {
        std::string_view field = *it;
        std::size_t skipped = 0;
        while (!field.empty() && (field.front() == ' ' || field.front() == '\t')) {
          field.remove_prefix(1);
          ++skipped;
        }
        while (!field.empty() && (field.back() == ' ' || field.back() == '\t'))
          field.remove_suffix(1);
        visit(field, static_cast<std::uint64_t>(start - line.begin()) + skipped + 1);
        start = it.base();
      }
    } catch (const boost::escaped_list_error& e) {
      fail(number, static_cast<std::uint64_t>(start - line.begin()) + 1, "",
           std::string("invalid CSV: ") + e.what());
    }
  }

  std::uint64_t count(std::string_view field, std::uint64_t line, std::uint64_t column,
                      std::uint64_t s, std::uint64_t d) const {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (!field.empty() && end == field.data() + field.size() && error == std::errc() &&
        value <= kMaxTrafficCount)
      return value;
    const std::string cell = "counts[" + std::to_string(s) + "][" + std::to_string(d) + "]";
    if (field.empty() || end != field.data() + field.size() ||
        (error != std::errc::result_out_of_range && error != std::errc()))
      fail(line, column, cell, "expected a non-negative integer, got " + quoted(field));
    fail(line, column, cell,
         std::string(field.substr(0, 32)) + " is too large (at most " +
             std::to_string(kMaxTrafficCount) + ")");
  }

  std::string_view text_, source_;
};

}  // namespace

Traffic traffic_from_csv(std::string_view text, std::string_view source,
                         std::optional<std::uint64_t> element_bytes) {
  return CsvReader(text, source).read(element_bytes);
}

}  // namespace detail

void write_traffic_csv(std::ostream& out, const Traffic& traffic) {
  for (Rank s = 0; s < traffic.ranks; ++s) {
    const auto row = traffic.row(s);
    for (std::size_t d = 0; d < row.size(); ++d) out << (d == 0 ? "" : ",") << row[d];
    out << '\n';
  }
}

}  // namespace phasecheck::io
