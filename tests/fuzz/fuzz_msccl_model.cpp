// fuzz-msccl-model: arbitrary bytes read as MSCCL XML (io/msccl_xml.hpp), lowered by the
// execution model (core/msccl.hpp: buffers, connections, deadlocks, the race check on the
// happens-before engine) and judged by every check of `verify`, under a memory limit of 64 MiB
// (core/limits.hpp), so that a count or a size the model would trust shows up as a refusal or as
// libFuzzer's -rss_limit_mb, and a slow path as its -timeout (tests/fuzz/smoke sets both low for
// this target). An InputError is the expected answer to bad input and to a limit; a crash, a
// sanitizer report, a hang, another exception, a lowering that differs between two runs, or a
// program with execution faults that verifies, is a finding.

#include <cstdint>
#include <exception>
#include <string>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "finding.hpp"
#include "io/msccl_xml.hpp"
#include "verify/msccl_execution.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

/// The memory the model may charge per input: low, so that the limits themselves get fuzzed.
constexpr std::uint64_t kMemoryLimit = std::uint64_t{64} << 20;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Limits l = limits();
  l.max_memory_bytes = kMemoryLimit;
  set_limits(l);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Schedule lowered;
  try {
    lowered = msccl::lower(io::parse_msccl(fuzz::as_text(data, size), "fuzz.xml"), "fuzz.xml");
  } catch (const InputError&) {
    return 0;
  } catch (const std::exception& e) {
    fuzz::finding(std::string("reading or lowering threw something other than InputError: ") +
                  e.what());
  }
  if (!lowered.header.imported) fuzz::finding("a lowered MSCCL program without its origin");
  // Same input, same result: the race check's order and the first race it names included.
  try {
    const Schedule again =
        msccl::lower(io::parse_msccl(fuzz::as_text(data, size), "fuzz.xml"), "fuzz.xml");
    if (!(again == lowered)) fuzz::finding("lowering the same program twice gives two results");
  } catch (const std::exception& e) {
    fuzz::finding(std::string("a second lowering threw: ") + e.what());
  }
  try {
    const verify::Report report = verify::verify(lowered, lowered.header.topology);
    if (!lowered.header.imported->faults.empty() && report.verdict() == verify::Verdict::pass)
      fuzz::finding("a program whose execution faults verified");
  } catch (const InputError&) {
    return 0;  // a limit of the checkers
  } catch (const std::exception& e) {
    fuzz::finding(std::string("verify threw something other than InputError: ") + e.what());
  }
  return 0;
}
