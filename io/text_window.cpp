#include "io/text_window.hpp"

#include <algorithm>
#include <cstring>

namespace phasecheck::io::detail {
namespace {

/// Line breaks in [p, p + n) and the index of the last one (n when there is none).
std::pair<std::size_t, std::size_t> count_lines(const char* p, std::size_t n) {
  // Byte-wide counts over blocks of 255 bytes, which the compiler turns into vector compares.
  std::size_t lines = 0, i = 0;
  for (; i + 255 <= n; i += 255) {
    unsigned char block = 0;
    for (std::size_t j = 0; j < 255; ++j)
      block = static_cast<unsigned char>(block + (p[i + j] == '\n'));
    lines += block;
  }
  for (; i < n; ++i) lines += p[i] == '\n';
  if (lines == 0) return {0, n};
  const auto* last = static_cast<const char*>(memrchr(p, '\n', n));
  return {lines, static_cast<std::size_t>(last - p)};
}

}  // namespace

TextWindow::TextWindow(std::istream& in, std::size_t max_size, std::size_t padding)
    : in_(in), max_(max_size), padding_(padding) {}

bool TextWindow::fill(std::size_t keep, std::size_t until) {
  if (until <= end()) return true;
  if (until - keep > max_) return false;
  if (failure_) std::rethrow_exception(failure_);
  if (eof_) return true;
  drop_before(keep);
  if (const std::size_t need = until - base_; need > capacity_) {
    const std::size_t grown = std::min(max_, std::max(need, 2 * capacity_));
    auto bigger = std::make_unique<char[]>(grown + padding_);
    if (size_ > 0) std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = grown;
  }
  read(until);
  return true;
}

void TextWindow::read(std::size_t until) {
  // Straight from the stream buffer, as nlohmann's stream adapter reads: an InputFile throws its
  // InputError (read error, too large) from underflow(), which is kept for later (see fill()).
  std::streambuf* buffer = in_.rdbuf();
  try {
    while (end() < until) {
      const std::streamsize available = buffer->in_avail();
      if (available > 0) {
        const auto wanted = static_cast<std::streamsize>(until - end());
        size_ += static_cast<std::size_t>(buffer->sgetn(at(end()), std::min(available, wanted)));
      } else if (available < 0 || std::streambuf::traits_type::eq_int_type(
                                      buffer->sgetc(), std::streambuf::traits_type::eof())) {
        eof_ = true;
      }
      if (eof_) return;
    }
  } catch (...) {
    failure_ = std::current_exception();
  }
}

void TextWindow::drop_before(std::size_t keep) {
  if (keep <= base_) return;
  const std::size_t n = keep - base_;
  const auto [lines, last] = count_lines(data_.get(), n);
  line_ += lines;
  column_ = lines > 0 ? n - last : column_ + n;
  std::memmove(data_.get(), data_.get() + n, size_ - n);
  size_ -= n;
  base_ = keep;
}

std::pair<std::size_t, std::size_t> TextWindow::line_column(std::size_t offset) const {
  const std::size_t n = offset - base_;
  const auto [lines, last] = count_lines(data_.get(), n);
  return {line_ + lines, lines > 0 ? n - last : column_ + n};
}

}  // namespace phasecheck::io::detail
