#include "io/text_window.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <memory>
#include <thread>
#include <vector>

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

/// Up to `n` (> 0) bytes of `source` into `to`, as nlohmann's stream adapter reads: what the
/// stream buffer holds, else it refills (underflow), which throws an InputFile's InputError (read
/// error, too large). 0: the stream ended.
std::size_t pull(std::streambuf& source, char* to, std::size_t n) {
  for (;;) {
    const std::streamsize available = source.in_avail();
    if (available > 0)
      return static_cast<std::size_t>(
          source.sgetn(to, std::min(available, static_cast<std::streamsize>(n))));
    if (available < 0 ||
        std::streambuf::traits_type::eq_int_type(source.sgetc(), std::streambuf::traits_type::eof()))
      return 0;
  }
}

}  // namespace

/// A thread that reads the stream ahead in blocks, queued in order; the stream's end and its
/// error are queued after the bytes before them.
class TextWindow::ReadAhead {
 public:
  explicit ReadAhead(std::streambuf& source) : thread_([this, &source] { run(source); }) {}
  ~ReadAhead() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    space_.notify_one();
    thread_.join();
  }

  /// pull() from the blocks read ahead: waits for the next one; throws the stream's error once
  /// the bytes before it are taken (again at every call after).
  std::size_t take(char* to, std::size_t n) {
    Block* block;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [&] { return !queue_.empty(); });
      block = &queue_.front();  // only this thread pops: it stays where it is
    }
    if (block->error) std::rethrow_exception(block->error);
    const std::size_t got = std::min(n, block->size - block->used);
    if (got == 0) return 0;  // the end, for every call after too
    std::memcpy(to, block->bytes.get() + block->used, got);
    block->used += got;
    if (block->used == block->size) {
      std::lock_guard lock(mutex_);
      spare_.push_back(std::move(block->bytes));
      queue_.pop_front();
      space_.notify_one();
    }
    return got;
  }

 private:
  static constexpr std::size_t kBlock = kReadAhead / 4;

  struct Block {
    std::unique_ptr<char[]> bytes;  // kBlock of them
    std::size_t size = 0, used = 0;  // size 0: the stream's end (or its error)
    std::exception_ptr error;
  };

  void run(std::streambuf& source) {
    for (;;) {
      Block block;
      {
        std::unique_lock lock(mutex_);
        space_.wait(lock, [&] { return queue_.size() < kReadAhead / kBlock || stop_; });
        if (stop_) return;
        if (!spare_.empty()) {
          block.bytes = std::move(spare_.back());
          spare_.pop_back();
        }
      }
      if (!block.bytes) block.bytes = std::make_unique_for_overwrite<char[]>(kBlock);
      bool last = false;
      Block end;
      try {
        while (block.size < kBlock && !last) {
          const std::size_t n = pull(source, block.bytes.get() + block.size, kBlock - block.size);
          block.size += n;
          last = n == 0;
        }
      } catch (...) {
        end.error = std::current_exception();
        last = true;
      }
      if (block.size > 0) push(std::move(block));
      if (last) return push(std::move(end));
    }
  }

  void push(Block block) {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(block));
    ready_.notify_one();
  }

  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<Block> queue_;
  std::vector<std::unique_ptr<char[]>> spare_;  // blocks taken, for the next reads
  bool stop_ = false;
  std::thread thread_;  // last: it starts once the rest is built
};

TextWindow::TextWindow(std::istream& in, std::size_t max_size, std::size_t padding,
                       bool read_ahead)
    : in_(in),
      ahead_(read_ahead ? std::make_unique<ReadAhead>(*in.rdbuf()) : nullptr),
      max_(max_size),
      padding_(padding) {}

TextWindow::~TextWindow() = default;

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
  // Straight from the stream buffer, as nlohmann's stream adapter reads, or from the blocks read
  // ahead: an InputFile's InputError (read error, too large) is kept for later (see fill()).
  try {
    while (end() < until) {
      const std::size_t n = ahead_ ? ahead_->take(at(end()), until - end())
                                   : pull(*in_.rdbuf(), at(end()), until - end());
      if (n == 0) {
        eof_ = true;
        return;
      }
      size_ += n;
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
