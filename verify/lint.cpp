#include "verify/lint.hpp"

namespace phasecheck::verify {

namespace {

std::string range_text(std::uint64_t lo, std::optional<std::uint64_t> hi) {
  return "[" + std::to_string(lo) + ", " + (hi ? std::to_string(*hi) : "no limit") + "]";
}

/// The overlaps and gaps of one group. Claims sorted by min; every pair that shares a size is
/// reported once, every uncovered stretch between two claims once.
void coverage_findings(const CoverageGroup& g, const SelectionWording& wording,
                       std::vector<LintFinding>& out) {
  const std::string group = g.collective + ", " + std::to_string(g.ngpus) + " gpus, " +
                            (g.in_place ? "in-place" : "out-of-place");
  std::optional<std::uint64_t> reach;       // the largest size claimed so far; nullopt: no limit
  const std::string* reach_file = nullptr;  // the file that claims it
  bool any = false;
  for (std::size_t i = 0; i < g.claims.size(); ++i) {
    const CoverageGroup::Claim& c = g.claims[i];
    for (std::size_t j = 0; j < i; ++j) {
      const CoverageGroup::Claim& e = g.claims[j];
      if (e.range.max && *e.range.max < c.range.min) continue;
      const std::optional<std::uint64_t> hi = !e.range.max   ? c.range.max
                                              : !c.range.max ? e.range.max
                                                             : std::min(*e.range.max, *c.range.max);
      out.push_back({Severity::error, "overlap", c.file, 0,
                     c.file + " and " + e.file + " both claim sizes " +
                         range_text(c.range.min, hi) + " (" + group +
                         "): " + std::string(wording.overlap)});
    }
    // Written without reach + 1 so that a claimed maximum of 2^64 - 1 cannot wrap.
    if (any && reach && *reach < c.range.min && c.range.min - *reach > 1)
      out.push_back({Severity::warning, "gap", c.file, 0,
                     "no file claims sizes " + range_text(*reach + 1, c.range.min - 1) + " (" +
                         group + "), between the ranges of " + *reach_file + " and " + c.file +
                         ": " + std::string(wording.gap)});
    if (!any || (reach && (!c.range.max || *c.range.max > *reach))) {
      reach = c.range.max;
      reach_file = &c.file;
    }
    any = true;
  }
}

}  // namespace

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::error:
      return "error";
    case Severity::warning:
      return "warning";
  }
  return "?";
}

std::size_t LintReport::errors() const {
  return static_cast<std::size_t>(
      std::count_if(findings.begin(), findings.end(),
                    [](const LintFinding& f) { return f.severity == Severity::error; }));
}

std::size_t LintReport::warnings() const { return findings.size() - errors(); }

Verdict LintReport::verdict() const { return errors() == 0 ? Verdict::pass : Verdict::fail; }

void SizeCoverage::claim(const std::string& collective, std::uint32_t ngpus, bool in_place,
                         const std::string& file, const SizeRange& range) {
  CoverageGroup& g = groups_[{collective, ngpus, in_place}];
  g.collective = collective;
  g.ngpus = ngpus;
  g.in_place = in_place;
  g.claims.push_back({file, range});
}

void SizeCoverage::finish(const SelectionWording& wording, LintReport& report) && {
  for (auto& [key, g] : groups_) {
    sort_keeping_order(g.claims, [](const CoverageGroup::Claim& c) { return c.range.min; });
    coverage_findings(g, wording, report.findings);
    report.coverage.push_back(std::move(g));
  }
  groups_.clear();
}

}  // namespace phasecheck::verify
