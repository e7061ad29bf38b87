// fuzz-mscclpp-plan: arbitrary bytes into the MSCCL++ plan reader (io/mscclpp_plan.hpp). An
// InputError is the expected answer to bad input; a crash, a sanitizer report, a hang or any
// other exception is a finding. What the reader accepts must survive a round trip: written and
// read again it is the same plan, writing that gives the same bytes, and the written plan is
// recognised as a plan by its keys.

#include <cstdint>
#include <exception>
#include <string>

#include "core/error.hpp"
#include "finding.hpp"
#include "io/mscclpp_plan.hpp"

using namespace phasecheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  // The sniffer sees every input, plan or not; it answers, whatever the bytes.
  static_cast<void>(io::looks_like_mscclpp_plan(text));
  mscclpp::Plan plan;
  try {
    plan = io::parse_mscclpp_plan(text, "fuzz.json");
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("parse_mscclpp_plan threw something other than InputError: ") +
                  e.what());
  }

  const std::string written = io::mscclpp_plan_to_json(plan);
  if (!io::looks_like_mscclpp_plan(written))
    fuzz::finding("a written plan is not recognised as a plan", written);
  try {
    const mscclpp::Plan back = io::parse_mscclpp_plan(written, "written.json");
    if (back != plan) fuzz::finding("the plan read back from what the writer wrote differs", written);
    if (io::mscclpp_plan_to_json(back) != written)
      fuzz::finding("writing the plan read back gives other bytes", written);
  } catch (const InputError& e) {
    fuzz::finding(std::string("the reader refuses what the writer wrote: ") + e.what(), written);
  }
  return 0;
}
