#pragma once
// What the fuzz targets of an execution model share (fuzz-msccl-model, fuzz-mscclpp-model): a low
// memory limit, so that a count or a size the model would trust shows up as a refusal, and the
// judgement of a lowering: an InputError is the expected answer to bad input and to a limit; a
// crash, another exception, two results for one input, or a program with execution faults that
// verifies, is a finding.

#include <cstdint>
#include <exception>
#include <string>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/schedule.hpp"
#include "finding.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::fuzz {

/// The memory a model may charge per input (core/limits.hpp).
inline constexpr std::uint64_t kModelMemoryLimit = std::uint64_t{64} << 20;

inline void limit_model_memory() {
  Limits l = limits();
  l.max_memory_bytes = kModelMemoryLimit;
  set_limits(l);
}

/// Runs `lower` (the input read and lowered) twice and every check of verify on the result.
template <class Lower>
void judge_lowering(const Lower& lower) {
  Schedule lowered;
  try {
    lowered = lower();
  } catch (const InputError&) {
    return;
  } catch (const std::exception& e) {
    finding(std::string("reading or lowering threw something other than InputError: ") + e.what());
  }
  if (!lowered.header.imported) finding("a lowered program without its origin");
  // Same input, same result: the race check's order and the first race it names included.
  try {
    if (!(lower() == lowered)) finding("lowering the same program twice gives two results");
  } catch (const std::exception& e) {
    finding(std::string("a second lowering threw: ") + e.what());
  }
  try {
    const verify::Report report = verify::verify(lowered, lowered.header.topology);
    if (!lowered.header.imported->faults.empty() && report.verdict() == verify::Verdict::pass)
      finding("a program whose execution faults verified");
  } catch (const InputError&) {
    return;  // a limit of the checkers
  } catch (const std::exception& e) {
    finding(std::string("verify threw something other than InputError: ") + e.what());
  }
}

}  // namespace phasecheck::fuzz
