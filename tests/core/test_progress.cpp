#include <doctest/doctest.h>

#include <sstream>

#include "core/progress.hpp"

using namespace phasecheck;

namespace {

/// A clock the test moves by hand.
struct FakeClock {
  ProgressMeter::Clock::time_point t{};
  void pass(double seconds) {
    t += std::chrono::duration_cast<ProgressMeter::Clock::duration>(
        std::chrono::duration<double>(seconds));
  }
  std::function<ProgressMeter::Clock::time_point()> now() {
    return [this] { return t; };
  }
};

}  // namespace

TEST_CASE("progress: nothing in the first second, then counter, rate and ETA") {
  FakeClock clock;
  std::ostringstream out;
  ProgressMeter meter(&out, "fuzz ring", "cases", 10, clock.now());
  clock.pass(0.5);
  meter.advance(2);
  CHECK(out.str().empty());  // a short run shows nothing
  clock.pass(1.5);           // 2 s in
  meter.advance(2);          // 4 of 10 at 2/s: 3 s to go
  CHECK(out.str() == "\rfuzz ring: 4 / 10 cases, 2.0/s, ETA 3 s");
}

TEST_CASE("progress: at most four drawings a second, and finish erases the line") {
  FakeClock clock;
  std::ostringstream out;
  {
    ProgressMeter meter(&out, "gate", "cases", 0, clock.now());
    clock.pass(2);
    meter.advance(40);  // drawn: unknown total, no ETA
    const std::string first = "\rgate: 40 cases, 20/s";
    CHECK(out.str() == first);
    clock.pass(0.1);
    meter.advance();  // too soon after the last drawing
    CHECK(out.str() == first);
    clock.pass(0.2);
    meter.note("shrinking");
    const std::string second = "gate: 41 cases, 18/s, shrinking";  // 41 in 2.3 s
    CHECK(out.str().substr(first.size()) == "\r" + second);
    meter.finish();
    const std::string erased = "\r" + std::string(second.size(), ' ') + "\r";
    CHECK(out.str().ends_with(erased));
  }
  // The destructor does not erase twice.
  CHECK(out.str().find('\r', out.str().size() - 1) == out.str().size() - 1);
}

TEST_CASE("progress: a shorter line is padded over the longer one before it") {
  FakeClock clock;
  std::ostringstream out;
  ProgressMeter meter(&out, "w", "runs", 0, clock.now());
  clock.pass(1);
  meter.note("a long note here");
  const std::size_t long_line = out.str().size() - 1;  // without the \r
  clock.pass(1);
  meter.note("");
  const std::string last = out.str().substr(out.str().rfind('\r') + 1);
  CHECK(last.size() == long_line);
  CHECK(last.starts_with("w: 0 runs, 0.0/s "));
}

TEST_CASE("progress: without a stream (not a terminal) it only counts") {
  FakeClock clock;
  ProgressMeter meter(nullptr, "fuzz", "cases", 5, clock.now());
  clock.pass(10);
  meter.advance(3);
  meter.finish();
  CHECK(meter.done() == 3);
}
