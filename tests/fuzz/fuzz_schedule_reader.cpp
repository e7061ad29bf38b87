// fuzz-schedule-reader: arbitrary bytes into the schedule reader (io/json.hpp: parse_schedule, the
// reader behind every `verify`), formats phasecheck.schedule/1, /2 and /3. An InputError is the
// expected answer to bad input; a crash, a sanitizer report or any other exception is a finding.
// Two more properties:
// - the fast path (simdjson over windows of the file, io/schedule_json_stream.hpp) gives what the
//   SAX parser alone gives: the same header, the same phases delivered (before an error too) and
//   the same message, with windows of a few bytes (every phase handed back and forth) and the
//   default ones;
// - what the reader accepts survives a round trip: written back by the writer and read again, it
//   is the same schedule.

#include <cstdint>
#include <exception>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "finding.hpp"
#include "io/json.hpp"
#include "io/schedule_json_stream.hpp"
#include "pipeline/read_schedule.hpp"

using namespace phasecheck;

namespace {

struct Outcome {
  std::optional<ScheduleHeader> header;
  std::vector<Phase> phases;
  std::string error;
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

Outcome read_with(std::string_view text, const io::detail::JsonReadOptions& options) {
  Outcome o;
  std::istringstream in{std::string(text)};
  try {
    io::detail::read_json_schedule(
        in, "fuzz.json", [&](const ScheduleHeader& h) { o.header = h; },
        [&](const Phase& p) { o.phases.push_back(p); }, io::Tables::derive, options);
  } catch (const InputError& e) {
    o.error = e.what();
  } catch (const std::exception& e) {
    fuzz::finding(std::string("the JSON reader threw something other than InputError: ") +
                  e.what());
  }
  return o;
}

std::string describe(const Outcome& o) {
  return (o.header ? "header, " : "no header, ") + std::to_string(o.phases.size()) +
         " phases, error \"" + o.error + "\"";
}

void check_fast_path(std::string_view text) {
  const Outcome reference = read_with(text, {.scan = false});
  for (const io::detail::JsonReadOptions options :
       {io::detail::JsonReadOptions{.scan = true, .window = 16, .max_window = 64},
        io::detail::JsonReadOptions{.scan = true, .window = 64, .max_window = 512},
        io::detail::JsonReadOptions{}}) {
    const Outcome fast = read_with(text, options);
    if (fast != reference)
      fuzz::finding("the fast path (window " + std::to_string(options.window) + ", at most " +
                        std::to_string(options.max_window) + ") read " + describe(fast) +
                        "; the SAX parser alone read " + describe(reference),
                    text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  check_fast_path(text);
  Schedule schedule;
  try {
    schedule = pipeline::parse_schedule(text, "fuzz.json");
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("parse_schedule threw something other than InputError: ") + e.what());
  }
  const std::string written = io::schedule_to_json(schedule);
  try {
    if (pipeline::parse_schedule(written, "written.json") != schedule)
      fuzz::finding("the schedule read back from what the writer wrote differs", written);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("the reader refuses what the writer wrote: ") + e.what(), written);
  }
  return 0;
}
