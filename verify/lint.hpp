#pragma once
/// What `phasecheck lint msccl` (verify/msccl_lint.hpp) and `lint mscclpp`
/// (verify/mscclpp_lint.hpp) share: findings, the report, and the size coverage across files.
///
/// Both runtimes pick, for one call shape (a coverage group: collective, gpu count, in place or
/// not), the first loaded program whose inclusive size range [min, max] holds the call's size. So
/// two programs of a group that claim a common size make the choice depend on the order the
/// runtime happens to hold them (error: `overlap`), and a size between two claimed ranges falls
/// back to the runtime's own algorithms (warning: `gap`). Sizes below the smallest claim and above
/// the largest are left to the runtime on purpose and not reported.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "verify/report.hpp"

namespace phasecheck::verify {

enum class Severity { error, warning };
std::string_view to_string(Severity s);

struct LintFinding {
  Severity severity = Severity::error;
  std::string code;        ///< "inverted-size-range", "overlap", ... (docs list them per lint)
  std::string file;        ///< the file it is about (an overlap: the first of the two)
  std::uint32_t line = 0;  ///< MSCCL XML: the line; 0: the file as a whole (or not a line file)
  std::string message;
  std::string path;  ///< MSCCL++ plans: the JSON path ("gpus[1].threadblocks[0]"); empty: the file
  friend bool operator==(const LintFinding&, const LintFinding&) = default;
};

/// The sizes one program claims: [min, max] in bytes, both inclusive, max empty for no upper bound.
struct SizeRange {
  std::uint64_t min = 0;
  std::optional<std::uint64_t> max;
  friend bool operator==(const SizeRange&, const SizeRange&) = default;
};

/// One coverage group: the files a runtime chooses among for one call shape, ordered by min.
struct CoverageGroup {
  std::string collective;  ///< as written
  std::uint32_t ngpus = 0;
  bool in_place = false;
  struct Claim {
    std::string file;
    SizeRange range;
  };
  std::vector<Claim> claims;
};

/// Which lint made a report: the renderer names the command and says how the runtime selects.
enum class LintTool { msccl, mscclpp };

struct LintReport {
  LintTool tool = LintTool::msccl;
  std::vector<std::string> files;       ///< as given
  std::vector<LintFinding> findings;    ///< by file (input order), then place, then code
  std::vector<CoverageGroup> coverage;  ///< by collective, ngpus, out-of-place first
  std::size_t errors() const;
  std::size_t warnings() const;
  /// fail when a file has an error (a runtime would misbehave), else pass; warnings never fail.
  Verdict verdict() const;
};

/// How a runtime's selection is named in the `overlap` and `gap` messages.
struct SelectionWording {
  std::string_view overlap;  ///< after "... both claim sizes [a, b] (group): "
  std::string_view gap;      ///< after "... between the ranges of x and y: "
};

/// Sorts `v` by `key`, equal keys in their order: std::stable_sort without its temporary buffer,
/// whose std::get_temporary_buffer clang-19 flags as deprecated in libstdc++ 12.
template <class T, class Key>
void sort_keeping_order(std::vector<T>& v, Key key) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::pair(key(v[a]), a) < std::pair(key(v[b]), b);
  });
  std::vector<T> sorted;
  sorted.reserve(v.size());
  for (std::size_t i : order) sorted.push_back(std::move(v[i]));
  v = std::move(sorted);
}

/// Collects the claims of every file, group by group, and turns them into the report's coverage
/// with its overlaps and gaps. O(claims log claims + overlapping pairs).
class SizeCoverage {
 public:
  void claim(const std::string& collective, std::uint32_t ngpus, bool in_place,
             const std::string& file, const SizeRange& range);
  /// Appends every group (claims sorted by min, equal mins in input order) to `report.coverage`
  /// and its `overlap` and `gap` findings to `report.findings`.
  void finish(const SelectionWording& wording, LintReport& report) &&;

 private:
  std::map<std::tuple<std::string, std::uint32_t, bool>, CoverageGroup> groups_;
};

}  // namespace phasecheck::verify
