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

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/msccl.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

enum class Severity { error, warning };
std::string_view to_string(Severity s);

struct LintFinding {
  Severity severity = Severity::error;
  std::string code;     ///< "inverted-size-range", "overlap", ... (docs/msccl.md lists them)
  std::string file;     ///< the file it is about (an overlap: the first of the two)
  std::uint32_t line = 0;  ///< 0: the file as a whole
  std::string message;
  friend bool operator==(const LintFinding&, const LintFinding&) = default;
};

/// One file to lint: the name it is reported under and its program.
struct LintInput {
  std::string file;
  msccl::Program program;
};

/// The sizes one file claims: [min, max] in bytes, max empty for "no upper bound" (maxBytes 0).
struct SizeRange {
  std::int64_t min = 0;
  std::optional<std::int64_t> max;
  friend bool operator==(const SizeRange&, const SizeRange&) = default;
};

/// One coverage group: the files RCCL chooses among for one call shape, ordered by minBytes.
struct CoverageGroup {
  std::string collective;  ///< coll as written
  std::uint32_t ngpus = 0;
  bool in_place = false;
  struct Claim {
    std::string file;
    SizeRange range;
  };
  std::vector<Claim> claims;
};

struct LintReport {
  std::vector<std::string> files;        ///< as given
  std::vector<LintFinding> findings;  ///< by file (input order), then line, then code
  std::vector<CoverageGroup> coverage;  ///< by collective, ngpus, out-of-place first
  std::size_t errors() const;
  std::size_t warnings() const;
  /// fail when a file has an error (a runtime would misbehave), else pass; warnings never fail.
  Verdict verdict() const;
};

/// The size range a program claims; nullopt when minBytes or maxBytes is missing or the range is
/// inverted (then no size selects it).
std::optional<SizeRange> size_range(const msccl::Program& p);

/// The findings of one file alone.
std::vector<LintFinding> lint_file(const LintInput& input);

/// Every file's findings, then the coverage of each group with its overlaps and gaps.
/// O(files log files + steps).
LintReport lint(std::span<const LintInput> inputs);

}  // namespace phasecheck::verify
