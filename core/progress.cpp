#include "core/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <utility>

#include "core/escape.hpp"

namespace phasecheck {

namespace {

constexpr double kFirstDraw = 1.0;  ///< seconds before the line appears
constexpr double kRedraw = 0.25;    ///< seconds between two drawings

/// "9 s", "3 min 20 s", "2 h 5 min".
std::string duration(double seconds) {
  const auto s = static_cast<std::uint64_t>(std::ceil(seconds));
  if (s < 60) return std::to_string(s) + " s";
  if (s < 3600) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
}

/// "310/s", "2.5/s".
std::string rate(double per_second) {
  char text[32];
  std::snprintf(text, sizeof text, per_second >= 10 ? "%.0f/s" : "%.1f/s", per_second);
  return text;
}

}  // namespace

ProgressMeter::ProgressMeter(std::ostream* out, std::string label, std::string unit,
                             std::uint64_t total, std::function<Clock::time_point()> now)
    : out_(out),
      label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      now_(std::move(now)),
      start_(now_()),
      last_draw_(start_) {}

ProgressMeter::~ProgressMeter() { finish(); }

void ProgressMeter::advance(std::uint64_t n) {
  done_ += n;
  draw();
}

void ProgressMeter::note(std::string text) {
  note_ = text_escape(text);  // a machine's or a label's name: one line, no terminal controls
  draw();
}

void ProgressMeter::finish() {
  if (!out_ || drawn_ == 0) return;
  *out_ << '\r' << std::string(drawn_, ' ') << '\r' << std::flush;
  drawn_ = 0;
}

void ProgressMeter::draw() {
  if (!out_) return;
  const Clock::time_point now = now_();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < kFirstDraw) return;
  if (drawn_ > 0 && std::chrono::duration<double>(now - last_draw_).count() < kRedraw) return;
  last_draw_ = now;
  const double per_second = double(done_) / elapsed;
  std::string line = label_ + ": " + std::to_string(done_);
  if (total_ > 0) line += " / " + std::to_string(total_);
  line += " " + unit_ + ", " + rate(per_second);
  if (total_ > 0 && done_ > 0 && done_ < total_)
    line += ", ETA " + duration(double(total_ - done_) / per_second);
  if (!note_.empty()) line += ", " + note_;
  // Pad over a longer previous line, then return to its start.
  const std::size_t width = line.size();
  if (width < drawn_) line += std::string(drawn_ - width, ' ');
  *out_ << '\r' << line << std::flush;
  drawn_ = std::max(width, drawn_);
}

std::ostream* terminal_stderr() { return isatty(STDERR_FILENO) ? &std::cerr : nullptr; }

}  // namespace phasecheck
