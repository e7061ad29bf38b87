// fuzz-msccl-model: arbitrary bytes read as MSCCL XML (io/msccl_xml.hpp), lowered by the
// execution model (core/msccl.hpp: buffers, connections, deadlocks, the race check on the
// happens-before engine) and judged by every check of `verify`, under a memory limit of 64 MiB
// (core/limits.hpp), so that a count or a size the model would trust shows up as a refusal or as
// libFuzzer's -rss_limit_mb, and a slow path as its -timeout (tests/fuzz/smoke sets both low for
// this target). An InputError is the expected answer to bad input and to a limit; a crash, a
// sanitizer report, a hang, another exception, a lowering that differs between two runs, or a
// program with execution faults that verifies, is a finding.

#include <cstdint>

#include "io/msccl_xml.hpp"
#include "lowering.hpp"
#include "verify/msccl_execution.hpp"

using namespace phasecheck;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz::limit_model_memory();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  fuzz::judge_lowering([&] { return msccl::lower(io::parse_msccl(text, "fuzz.xml"), "fuzz.xml"); });
  return 0;
}
