#pragma once
/// `phasecheck lint msccl`: what a runtime silently ignores or gets wrong in MSCCL files before a
/// single step runs (docs/msccl.md, "Lint"). The execution itself is verify's business; lint reads
/// only the attributes and the shape of the program, so it also takes collectives phasecheck does
/// not lower (allreduce, reduce-scatter).
///
/// Per file: attributes the loader requires (RCCL's parser refuses the file without them), size
/// ranges that can never be selected, nchunksperloop that ngpus does not divide, protocols and
/// RCCL's interpreter limits, channels beyond nchannels, threadblocks and channels left unused.
/// Across files: RCCL's scheduler takes the first loaded file with
///   nBytes >= minBytes && (maxBytes == 0 || nBytes <= maxBytes)
/// for the call's collective, gpu count and in-place/out-of-place variant; so two files of one
/// group that claim a common size make the choice depend on the order a directory is read
/// (error), and a size between two claimed ranges falls back to the runtime's own algorithms
/// (warning).

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/msccl.hpp"
#include "verify/lint.hpp"

namespace phasecheck::verify {

/// One file to lint: the name it is reported under and its program.
struct LintInput {
  std::string file;
  msccl::Program program;
};

/// The size range a program claims (maxBytes 0: no upper bound); nullopt when minBytes or maxBytes
/// is missing or the range is inverted (then no size selects it).
std::optional<SizeRange> size_range(const msccl::Program& p);

/// The findings of one file alone.
std::vector<LintFinding> lint_file(const LintInput& input);

/// Every file's findings, then the coverage of each group with its overlaps and gaps.
/// O(files log files + steps).
LintReport lint(std::span<const LintInput> inputs);

}  // namespace phasecheck::verify
