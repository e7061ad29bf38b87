#pragma once
// Internal to io/: a window over an input stream, for a reader that parses a large text piece by
// piece (io/schedule_json_reader.cpp). Bytes are read in blocks into one buffer; the reader says
// which of them it still needs (`keep`), the rest is dropped, so memory is the window, never the
// file. The line and column of every byte kept are known, for error messages.

#include <cstddef>
#include <exception>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace phasecheck::io::detail {

class TextWindow {
 public:
  /// At most `max_size` bytes are kept at once; `padding` more bytes are allocated after the
  /// last byte read, which a parser may read and use as scratch (simdjson reads past the end).
  TextWindow(std::istream& in, std::size_t max_size, std::size_t padding);

  // Offsets count bytes from where the stream was when the window was made.
  std::size_t begin() const { return base_; }        ///< the first byte kept
  std::size_t end() const { return base_ + size_; }  ///< one past the last byte read
  std::size_t max_size() const { return max_; }
  /// Whether the stream has nothing more now: it ended, or its next read failed (that error is
  /// thrown by the next fill() that needs the bytes, so that errors in the bytes before it are
  /// found first, as a parser reading byte by byte would find them).
  bool exhausted() const { return eof_ || failure_; }
  /// The byte at `offset` (begin() <= offset <= end(); at end() the padding starts).
  char* at(std::size_t offset) { return data_.get() + (offset - base_); }

  /// Reads until end() >= until or the stream is exhausted; bytes before `keep` (<= end()) may be
  /// dropped. False when [keep, until) is longer than max_size(): then nothing changes. Throws
  /// the stream's read error (an InputError from InputFile: read error, input too large) when
  /// the window is already exhausted by it and bytes are still wanted.
  bool fill(std::size_t keep, std::size_t until);

  /// 1-based line and column of a kept byte, counted as nlohmann's lexer counts them: lines end at
  /// '\n', a column is a byte.
  std::pair<std::size_t, std::size_t> line_column(std::size_t offset) const;

 private:
  void drop_before(std::size_t keep);
  void read(std::size_t until);

  std::istream& in_;
  std::size_t max_, padding_;
  std::unique_ptr<char[]> data_;
  std::size_t capacity_ = 0;  ///< bytes allocated, padding excluded
  std::size_t base_ = 0, size_ = 0;
  bool eof_ = false;
  std::exception_ptr failure_;
  std::size_t line_ = 1, column_ = 1;  ///< of the byte at base_
};

}  // namespace phasecheck::io::detail
