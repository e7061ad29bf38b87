#pragma once
/// `phasecheck lint mscclpp`: what mscclpp's executor (microsoft/mscclpp at 1f5f065) silently
/// gets wrong, wastes or refuses late in MSCCL++ execution plans, before a single op runs
/// (docs/mscclpp.md, "Lint"). Lint reads only the plan's shape: whether it moves the right data
/// in a safe order is verify's business (core/mscclpp_execution.hpp), so lint also takes
/// collectives phasecheck does not lower (allreduce).
///
/// Per plan: the executor's fixed arrays (execution_common.hpp: 16 channels and 16 remote
/// buffers of a type per threadblock, 64 ops per threadblock with a pipeline's ops counted, 8
/// channels, 10 buffers and 16 semaphores per op, 16 barriers), threads per block, a protocol
/// the executor runs as Simple, an inverted size range, chunk counts its size check divides by,
/// channels, remote buffers and semaphores set up for nothing, semaphores whose count drifts
/// from call to call, and scratch slots that overlap under reuse_resources.
/// Across plans: the executor's selector (mscclpp's NCCL shim, matchExecutionPlan) takes the
/// first registered plan of the call's collective, gpu count and variant (in place or not) with
///   min_message_size <= size <= max_message_size
/// (size: the whole output for allgather, the input otherwise), going through a hash map, so two
/// plans of a group that claim a common size run in an unspecified order (error) and a size
/// between two claimed ranges falls back to mscclpp's own algorithms or NCCL (warning), as for
/// `lint msccl` (verify/lint.hpp). Plans are registered and their setup cached by name, so two
/// plans of one name are an error too.

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/mscclpp.hpp"
#include "verify/lint.hpp"

namespace phasecheck::verify {

/// One plan to lint: the name it is reported under and the plan.
struct MscclppLintInput {
  std::string file;
  mscclpp::Plan plan;
};

/// The size range a plan claims (max_message_size 2^64 - 1, the executor's default: no upper
/// bound); nullopt when min_message_size > max_message_size (then no size selects it).
std::optional<SizeRange> size_range(const mscclpp::Plan& plan);

/// The findings of one plan alone, in the plan's order (the plan, then gpu by gpu), each with
/// its JSON path. O(ops + channels + remote buffers + semaphores).
std::vector<LintFinding> lint_mscclpp_file(const MscclppLintInput& input);

/// Every plan's findings, plans of one name, then the coverage of each group with its overlaps
/// and gaps (report.tool is LintTool::mscclpp).
LintReport lint_mscclpp(std::span<const MscclppLintInput> inputs);

}  // namespace phasecheck::verify
