#pragma once
// Internal to io/ and its tests: the JSON schedule reader behind read_schedule (io/json.hpp) with
// its sizes exposed, so that tests can run it with windows of a few bytes, and with the fast path
// off, as the reference the fast path must agree with.
//
// How it reads: nlohmann's SAX parser reads the header. When the header is complete at "phases"
// (as phasecheck writes it), the phases go to the scanner one window of the file at a time
// (io/phase_scanner.hpp: a plain reader of the writer's own spelling, then simdjson's On Demand
// parser from the first phase it does not take); each window ends at a line break (never inside a
// string), and starts at the last phase delivered, which is kept and skipped (without reading it
// again when the scanner knows where it ended). Anything the fast path does not
// take as it is (an error, a phase longer than the largest window, an unusual spelling) goes back
// to the SAX parser, resumed where the last phase delivered began, with its line and column, so
// that every message is the SAX reader's. Memory: one window (kept up to `max_window`), whatever
// the file's length.

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string_view>

#include "io/json.hpp"

namespace phasecheck::io::detail {

struct JsonReadOptions {
  /// Whether the phases may be read by the fast path; false: the SAX parser reads everything.
  bool scan = true;
  /// Bytes of the file scanned at a time: enough to amortize a scan's setup, little enough that
  /// the text and simdjson's index of it stay in the L2 cache. It doubles, up to max_window,
  /// while one phase does not fit.
  std::size_t window = std::size_t{1} << 20;
  /// The most the reader keeps at once (simdjson's index of a window takes about as much again).
  /// A window holds two phases (the last one delivered and the next), so phases longer than about
  /// half of this (2 MiB: 60,000 transfers, one per line) are read by the SAX parser, at its speed.
  std::size_t max_window = std::size_t{1} << 22;
};

void read_json_schedule(std::istream& in, std::string_view source,
                        const std::function<void(const ScheduleHeader&)>& on_header,
                        const PhaseSink& on_phase, Tables tables, const JsonReadOptions& options);

}  // namespace phasecheck::io::detail
