#pragma once
// Internal to io/: the text nlohmann's SAX parser reads a schedule from (io/schedule_sax.cpp),
// which the reader can start again anywhere in the file (io/schedule_json_reader.cpp).

#include <algorithm>
#include <cstddef>
#include <streambuf>
#include <string_view>

#include "io/text_window.hpp"

namespace phasecheck::io::detail {

/// What nlohmann's parser reads: the file from a byte on, through a TextWindow. When the parser is
/// resumed in the middle of the file, a synthetic text comes first: the openers of the
/// containers around that byte (ScheduleSax::resume_at). A stream buffer, since nlohmann reads a
/// stream a byte at a time straight from its buffer (sbumpc).
class JsonSource : public std::streambuf {
 public:
  explicit JsonSource(TextWindow& window) : window_(window) {}

  /// Reads from `offset` on, after `prefix` (a string literal).
  void start(std::size_t offset, std::string_view prefix = {}) {
    at_ = offset;
    prefix_ = !prefix.empty();
    char* text = const_cast<char*>(prefix.data());  // only read through the get area
    setg(text, text, text + prefix.size());
    mark_ = kNone;
  }
  /// The offset of the next byte of the file to be read.
  std::size_t offset() const {
    return prefix_ ? at_ : at_ + static_cast<std::size_t>(gptr() - eback());
  }
  /// Whether the bytes just read are `text`.
  bool just_read(std::string_view text) const {
    const std::size_t at = offset();
    return !prefix_ && at >= window_.begin() + text.size() &&
           std::string_view(window_.at(at - text.size()), text.size()) == text;
  }
  /// Asks to keep the file's bytes from `offset` (<= offset()) on; dropped when that would hold
  /// more than the window's maximum.
  void mark(std::size_t offset) { mark_ = offset; }
  bool marked() const { return mark_ != kNone; }

 protected:
  int_type underflow() override {
    at_ = offset();
    if (!prefix_ || at_ >= window_.end()) {
      const std::size_t until = at_ + std::min(kBlock, window_.max_size() / 2);
      const std::size_t history = std::max(window_.begin(), at_ > kHistory ? at_ - kHistory : 0);
      if (mark_ != kNone && !window_.fill(std::min(mark_, history), until)) mark_ = kNone;
      if (mark_ == kNone) window_.fill(history, until);
    }
    prefix_ = false;
    setg(window_.at(at_), window_.at(at_), window_.at(window_.end()));  // (the bytes may move)
    return gptr() < egptr() ? traits_type::to_int_type(*gptr()) : traits_type::eof();
  }

 private:
  static constexpr std::size_t kNone = std::size_t(-1), kBlock = std::size_t{1} << 16;
  static constexpr std::size_t kHistory = 16;  // bytes kept behind the parser, for just_read()

  TextWindow& window_;
  bool prefix_ = false;  // reading the synthetic text; the file follows from at_
  std::size_t at_ = 0;   // the offset of eback() when reading the file
  std::size_t mark_ = kNone;
};

}  // namespace phasecheck::io::detail
