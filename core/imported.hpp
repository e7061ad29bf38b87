#pragma once
/// A schedule read from another tool's format (MSCCL XML, docs/msccl.md): where each op of its
/// buffer program came from, and what the source program's own execution model found wrong
/// before any phase ran (a deadlock, a send nobody receives, a data race). The verifier reports
/// these faults as the check `execution` and names the source steps in every counterexample.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phasecheck {

/// A step of an MSCCL program: the gpu, the threadblock's id on it, the step's index in it.
struct StepRef {
  std::uint32_t gpu = 0;
  std::uint32_t threadblock = 0;
  std::uint32_t step = 0;
  friend bool operator==(const StepRef&, const StepRef&) = default;
};
std::string to_string(const StepRef& s);  ///< "gpu 3 tb 2 step 5"

/// The steps that execute one op: the sending and the receiving step of a send (the same step for
/// a local copy).
struct OpOrigin {
  StepRef sender;
  StepRef receiver;
  friend bool operator==(const OpOrigin&, const OpOrigin&) = default;
};
std::string to_string(const OpOrigin& o);  ///< "gpu 1 tb 3 step 0 -> gpu 2 tb 5 step 1"

/// A fault of the source program's execution, found before its phases are judged.
struct ExecutionFault {
  std::string kind;  ///< "deadlock", "unmatched send", "race", ... (docs/msccl.md lists them)
  std::string explanation;     ///< one paragraph a person reads first
  std::vector<StepRef> steps;  ///< the steps involved, in the order the explanation names them
  std::optional<std::size_t> phase;  ///< the phase it lands in, when it runs at all
  friend bool operator==(const ExecutionFault&, const ExecutionFault&) = default;
};

struct Imported {
  std::string format;   ///< "msccl"
  std::string summary;  ///< "56 steps in 64 threadblocks on 8 gpus, 1 channel: 2 phases"
  /// ops[phase][i]: the source steps of op i of that phase of the lowered program.
  std::vector<std::vector<OpOrigin>> ops;
  std::vector<ExecutionFault> faults;
  friend bool operator==(const Imported&, const Imported&) = default;
};

}  // namespace phasecheck
