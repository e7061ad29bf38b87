// fuzz-schedule-reader: arbitrary bytes into the schedule reader (io/json.hpp: parse_schedule, the
// SAX reader behind every `verify`), formats phasecheck.schedule/1 and /2. An InputError is the
// expected answer to bad input; a crash, a sanitizer report or any other exception is a finding.
// What the reader accepts must survive a round trip: written back by the writer and read again,
// it is the same schedule.

#include <cstdint>
#include <exception>
#include <string>

#include "core/error.hpp"
#include "finding.hpp"
#include "io/json.hpp"

using namespace phasecheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Schedule schedule;
  try {
    schedule = io::parse_schedule(fuzz::as_text(data, size), "fuzz.json");
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("parse_schedule threw something other than InputError: ") + e.what());
  }
  const std::string written = io::schedule_to_json(schedule);
  try {
    if (io::parse_schedule(written, "written.json") != schedule)
      fuzz::finding("the schedule read back from what the writer wrote differs", written);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("the reader refuses what the writer wrote: ") + e.what(), written);
  }
  return 0;
}
