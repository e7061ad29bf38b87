#pragma once
/// A progress line for long runs, for a person at a terminal: "fuzz ring: 1200 / 4000 cases,
/// 310/s, ETA 9 s". It appears only once a run has taken a second, is redrawn at most four times a
/// second, and is erased when the run ends, so that what follows it starts on a clean line. Where
/// standard error is not a terminal (a pipe, a CI log) there is no meter at all: the commands pass
/// terminal_stderr(), which is null there, and a meter without a stream counts and draws nothing.

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace phasecheck {

class ProgressMeter {
 public:
  using Clock = std::chrono::steady_clock;

  /// `out` null: silent. `unit` is plural ("cases", "instances"); `total` 0 means unknown (no
  /// "/ total" and no ETA). `now` is the clock (tests pass their own).
  ProgressMeter(std::ostream* out, std::string label, std::string unit, std::uint64_t total = 0,
                std::function<Clock::time_point()> now = Clock::now);
  ~ProgressMeter();
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  /// `n` more units done.
  void advance(std::uint64_t n = 1);
  /// Words after the counter until the next note ("shrinking: 3 of 10 kept"); "" for none. Shown
  /// through text_escape() (core/escape.hpp): a note may name a machine or a label.
  void note(std::string text);
  /// Erases the line if one was drawn. Called by the destructor; call it before printing a
  /// result while the meter is alive.
  void finish();

  std::uint64_t done() const { return done_; }

 private:
  void draw();

  std::ostream* out_;
  std::string label_, unit_, note_;
  std::uint64_t total_, done_ = 0;
  std::function<Clock::time_point()> now_;
  Clock::time_point start_, last_draw_;
  std::size_t drawn_ = 0;  ///< characters on the line now; 0 when nothing is shown
};

/// Standard error when it is a terminal, else null (no progress in pipes and logs).
std::ostream* terminal_stderr();

}  // namespace phasecheck
