#include "verify/msccl_lint.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace phasecheck::verify {

namespace {

using msccl::Program;

/// Findings of one file, in the order they are found.
class FileLint {
 public:
  explicit FileLint(const LintInput& input) : file_(input.file), p_(input.program) {}

  std::vector<LintFinding> run() {
    attributes();
    size_range_of_file();
    shape();
    sort_keeping_order(findings_, [](const LintFinding& f) { return f.line; });
    return std::move(findings_);
  }

 private:
  void add(Severity severity, std::string code, std::uint32_t line, std::string message) {
    findings_.push_back({severity, std::move(code), file_, line, std::move(message)});
  }
  void error(std::string code, std::uint32_t line, std::string message) {
    add(Severity::error, std::move(code), line, std::move(message));
  }
  void warning(std::string code, std::uint32_t line, std::string message) {
    add(Severity::warning, std::move(code), line, std::move(message));
  }

  /// The attributes RCCL's parser requires of <algo> (it refuses the file without them), and the
  /// values it accepts.
  void attributes() {
    const auto missing = [&](const char* name, const char* what) {
      error("missing-attribute", p_.line,
            std::string("<algo> has no ") + name + ": " + what +
                "; RCCL's loader refuses the file, other runtimes guess");
    };
    if (!p_.protocol) missing("proto", "the protocol (Simple, LL or LL128)");
    if (!p_.nchannels) missing("nchannels", "the channels the program uses");
    if (!p_.inplace) missing("inplace", "whether in-place calls may use it");
    if (!p_.outofplace) missing("outofplace", "whether out-of-place calls may use it");
    if (!p_.min_bytes) missing("minBytes", "the smallest size it is chosen for");
    if (!p_.max_bytes) missing("maxBytes", "the largest size it is chosen for (0: no limit)");

    if (p_.protocol && *p_.protocol != "Simple" && *p_.protocol != "LL" &&
        *p_.protocol != "LL128")
      error("protocol", p_.line,
            "proto=\"" + *p_.protocol + "\": not a protocol (Simple, LL or LL128)");
    if (p_.nchannels == 0u)
      error("channels", p_.line, "nchannels=\"0\": a program runs on at least one channel");
    if (p_.nchannels && *p_.nchannels > msccl::kMaxChannels)
      error("channels", p_.line,
            "nchannels=\"" + std::to_string(*p_.nchannels) + "\": more than the " +
                std::to_string(msccl::kMaxChannels) + " channels NCCL and RCCL have");
    if (p_.inplace == false && p_.outofplace == false)
      error("never-selected", p_.line,
            "inplace=\"0\" and outofplace=\"0\": no call can select this program");
    const bool partitioned = p_.coll == "alltoall" || p_.coll == "allgather" ||
                             p_.coll == "reduce_scatter" || p_.coll == "reducescatter";
    if (partitioned && p_.ngpus > 0 && p_.nchunksperloop % p_.ngpus != 0)
      error("chunks-per-loop", p_.line,
            "nchunksperloop=\"" + std::to_string(p_.nchunksperloop) +
                "\" is not a multiple of ngpus=\"" + std::to_string(p_.ngpus) + "\": an " +
                p_.coll + " needs the same number of chunks for every gpu");
  }

  void size_range_of_file() {
    if (!p_.min_bytes || !p_.max_bytes) return;
    const std::int64_t lo = *p_.min_bytes, hi = *p_.max_bytes;
    if (hi != 0 && lo > hi)
      error("inverted-size-range", p_.line,
            "minBytes=\"" + std::to_string(lo) + "\" > maxBytes=\"" + std::to_string(hi) +
                "\": no size selects this program (maxBytes=\"0\" means no upper limit)");
  }

  /// Threadblocks, steps and channels against RCCL's interpreter limits and against each other.
  void shape() {
    std::set<std::uint32_t> channels_used;
    for (const msccl::Gpu& g : p_.gpus) {
      const std::string gpu = "gpu " + std::to_string(g.id);
      if (g.threadblocks.size() > msccl::kMaxThreadblocks)
        error("too-many-threadblocks", g.line,
              gpu + " has " + std::to_string(g.threadblocks.size()) +
                  " threadblocks; RCCL runs at most " +
                  std::to_string(msccl::kMaxThreadblocks));
      std::vector<std::uint32_t> ids;
      std::map<std::uint32_t, std::uint32_t> per_channel;
      for (const msccl::Threadblock& t : g.threadblocks) {
        ids.push_back(t.id);
        ++per_channel[t.channel];
        channels_used.insert(t.channel);
        threadblock(g, t);
      }
      for (const auto& [channel, count] : per_channel)
        if (count > kMaxThreadblocksPerChannel)
          error("too-many-threadblocks", g.line,
                gpu + " has " + std::to_string(count) + " threadblocks on channel " +
                    std::to_string(channel) + "; RCCL runs at most " +
                    std::to_string(kMaxThreadblocksPerChannel) + " per channel");
      std::sort(ids.begin(), ids.end());
      for (std::uint32_t i = 0; i < ids.size(); ++i)
        if (ids[i] != i) {
          warning("threadblock-ids", g.line,
                  gpu + ": threadblock ids are not 0.." + std::to_string(ids.size() - 1) +
                      " (no threadblock " + std::to_string(i) +
                      "); runtimes index threadblocks by id");
          break;
        }
    }
    if (!p_.nchannels || *p_.nchannels == 0 || *p_.nchannels > msccl::kMaxChannels) return;
    std::string unused;
    for (std::uint32_t c = 0; c < *p_.nchannels; ++c)
      if (!channels_used.contains(c)) unused += (unused.empty() ? "" : ", ") + std::to_string(c);
    if (!unused.empty())
      warning("unused-channel", p_.line,
              "nchannels=\"" + std::to_string(*p_.nchannels) + "\" but no threadblock uses channel " +
                  unused + ": the runtime sets them up for nothing");
  }

  void threadblock(const msccl::Gpu& g, const msccl::Threadblock& t) {
    const std::string where =
        "threadblock " + std::to_string(t.id) + " of gpu " + std::to_string(g.id);
    if (p_.nchannels && t.channel >= *p_.nchannels)
      error("channel-out-of-range", t.line,
            where + ": chan=\"" + std::to_string(t.channel) + "\" but nchannels=\"" +
                std::to_string(*p_.nchannels) + "\" (channels are 0.." +
                std::to_string(*p_.nchannels == 0 ? 0 : *p_.nchannels - 1) + ")");
    if (t.steps.size() > msccl::kMaxSteps)
      error("too-many-steps", t.line,
            where + " has " + std::to_string(t.steps.size()) + " steps; RCCL runs at most " +
                std::to_string(msccl::kMaxSteps));
    bool sends = false, receives = false, works = false;
    for (const msccl::Step& s : t.steps) {
      sends = sends || s.sends();
      receives = receives || s.receives();
      works = works || s.type != msccl::StepType::nop;
      if (s.count > msccl::kMaxCount)
        error("count-too-large", s.line,
              where + ", step " + std::to_string(s.index) + ": cnt=\"" +
                  std::to_string(s.count) + "\"; RCCL moves at most " +
                  std::to_string(msccl::kMaxCount) + " chunks in one step");
    }
    if (!works) {
      warning("unused-threadblock", t.line,
              where + (t.steps.empty() ? " has no steps" : " only waits (every step is a nop)") +
                  ": it occupies a threadblock and moves nothing");
      return;
    }
    if (t.send >= 0 && !sends)
      warning("unused-peer", t.line,
              where + ": send=\"" + std::to_string(t.send) +
                  "\" but no step sends: the runtime opens the connection for nothing");
    if (t.recv >= 0 && !receives)
      warning("unused-peer", t.line,
              where + ": recv=\"" + std::to_string(t.recv) +
                  "\" but no step receives: the runtime opens the connection for nothing");
  }

  /// MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL in msccl.h.
  static constexpr std::uint32_t kMaxThreadblocksPerChannel = 32;

  const std::string& file_;
  const Program& p_;
  std::vector<LintFinding> findings_;
};

/// RCCL's msccl_scheduler: the first loaded file of the group whose range holds the size.
constexpr SelectionWording kRccl{"RCCL takes whichever it loaded first",
                                 "those calls fall back to the runtime's own algorithms"};

}  // namespace

std::optional<SizeRange> size_range(const Program& p) {
  if (!p.min_bytes || !p.max_bytes) return std::nullopt;
  // The reader keeps both in [0, 2^63): a negative bound exists only in a program built in code.
  if (*p.min_bytes < 0 || *p.max_bytes < 0) return std::nullopt;
  const auto lo = static_cast<std::uint64_t>(*p.min_bytes);
  const auto hi = static_cast<std::uint64_t>(*p.max_bytes);
  if (hi == 0) return SizeRange{lo, std::nullopt};
  if (lo > hi) return std::nullopt;
  return SizeRange{lo, hi};
}

std::vector<LintFinding> lint_file(const LintInput& input) { return FileLint(input).run(); }

LintReport lint(std::span<const LintInput> inputs) {
  LintReport report;
  for (const LintInput& in : inputs) {
    report.files.push_back(in.file);
    std::vector<LintFinding> f = lint_file(in);
    report.findings.insert(report.findings.end(), f.begin(), f.end());
  }

  SizeCoverage coverage;
  for (const LintInput& in : inputs) {
    const Program& p = in.program;
    const std::optional<SizeRange> range = size_range(p);
    if (!range) continue;
    for (const bool in_place : {false, true})
      if ((in_place ? p.inplace : p.outofplace).value_or(false))
        coverage.claim(p.coll, p.ngpus, in_place, in.file, *range);
  }
  std::move(coverage).finish(kRccl, report);
  return report;
}

}  // namespace phasecheck::verify
