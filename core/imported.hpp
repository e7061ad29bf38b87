#pragma once
/// A schedule read from another tool's format (MSCCL XML, docs/msccl.md): where each op of its
/// buffer program came from, and what the source program's own execution model found wrong
/// before any phase ran (a deadlock, a send nobody receives, a data race). The verifier reports
/// these faults as the check `execution` and names the source steps in every counterexample.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
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

/// What went wrong in the source program's execution (docs/msccl.md explains each).
enum class ExecutionFaultKind {
  shared_connection,  ///< two threadblocks of a gpu send (or receive) on one connection
  count_mismatch,     ///< a send and the receive it meets move different counts
  unmatched_send,     ///< a send that no receive meets
  unmatched_receive,  ///< a receive that no send meets
  never_released,     ///< a step waits for a step that never signals
  deadlock,           ///< steps wait for each other in a cycle
  race,               ///< two unordered steps touch one slot, one of them writing
  outside_buffer,     ///< a step names a slot beyond its gpu's declared buffers
  stale_read          ///< a later call reads a cell it never wrote (a previous call's data)
};
/// The name reports print: "shared connection", "count mismatch", ..., "outside buffer",
/// "stale read".
std::string_view to_string(ExecutionFaultKind k);
std::ostream& operator<<(std::ostream& os, ExecutionFaultKind k);

/// A fault of the source program's execution, found before its phases are judged.
struct ExecutionFault {
  ExecutionFaultKind kind = ExecutionFaultKind::deadlock;
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
