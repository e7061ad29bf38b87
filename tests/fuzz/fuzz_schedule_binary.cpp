// fuzz-schedule-binary: arbitrary bytes into the binary schedule stream's reader
// (io/schedule_binary.hpp, behind every reader of schedules when the bytes start with PCSB). An
// InputError is the expected answer to bad input; a crash, a sanitizer report, a hang, a large
// allocation or any other exception is a finding. What the reader accepts must survive a round
// trip: written again by the binary writer it gives the same bytes' schedule, and the JSON writer
// agrees with it.

#include <cstdint>
#include <exception>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "finding.hpp"
#include "io/json.hpp"
#include "io/schedule_binary.hpp"
#include "pipeline/read_schedule.hpp"

using namespace phasecheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Every input is taken as a stream (the magic first), so that mutations of the seeds keep
  // reaching the record reader rather than dying at the first byte.
  std::string bytes = std::string(io::kBinaryMagic);
  bytes += fuzz::as_text(data, size);
  Schedule schedule;
  try {
    schedule = pipeline::parse_schedule(bytes, "fuzz.bin");
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("the binary reader threw something other than InputError: ") +
                  e.what());
  }
  std::ostringstream out;
  try {
    io::BinaryScheduleWriter writer(out, schedule.header);
    for (const Phase& p : schedule.phases) writer.phase(p);
    writer.finish();
    if (pipeline::parse_schedule(out.str(), "written.bin") != schedule)
      fuzz::finding("the schedule read back from what the binary writer wrote differs", out.str());
    if (pipeline::parse_schedule(io::schedule_to_json(schedule), "written.json") != schedule)
      fuzz::finding("the JSON writer and reader disagree with the binary reader",
                    io::schedule_to_json(schedule));
  } catch (const std::exception& e) {
    fuzz::finding(std::string("the readers refuse what the writers wrote: ") + e.what(), out.str());
  }
  return 0;
}
