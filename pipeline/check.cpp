#include "pipeline/check.hpp"

#include <algorithm>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/progress.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "verify/parallel.hpp"
#include "verify/phase_ranges.hpp"

namespace phasecheck::pipeline {
namespace {

/// The verifier of one spread check and its progress line, phase by phase.
class SpreadCheck {
 public:
  SpreadCheck(const ScheduleHeader& header, const Topology& model, Claims claims,
              const Spread& spread, std::uint64_t total_phases, verify::Reader reader)
      : spread_(spread),
        verifier_(header, model, std::move(claims), spread.threads, spread.share, reader),
        meter_(spread.progress, "check", "phases", total_phases) {}

  /// A Phase, or a direct phase (an algorithm's generate_direct).
  template <class P>
  void consume(const P& phase) {
    if (spread_.checkpoint) spread_.checkpoint();
    verifier_.consume(phase, mine(phase.size()));
    // The meter reads the clock; every 1024 phases is often enough for a line redrawn 4 times a
    // second and rare enough to cost nothing.
    if (++unmetered_ == 1024) {
      meter_.advance(unmetered_);
      unmetered_ = 0;
    }
  }

  void observe_tables(PhaseSink observe) { verifier_.observe_tables(std::move(observe)); }

  /// The verifier once every phase is in, the progress line closed: for a range's findings
  /// (check_in_ranges), which finish() does not make.
  verify::ParallelVerifier& done() {
    meter_.finish();
    return verifier_;
  }

  std::optional<verify::Report> finish() {
    meter_.finish();
    if (!spread_.gather) return verifier_.finish();
    if (!spread_.share.stateful) {
      spread_.gather(verifier_.partial());
      return std::nullopt;
    }
    const auto others = spread_.gather(verify::Verifier::Partial{});
    return verifier_.finish(others);
  }

 private:
  /// Whether this process judges the phase-local checks of the next phase, of `transfers`: its
  /// block's claim (Spread::claim), asked as the block begins. A block ends after 2^16 transfers
  /// or 1024 phases: a few hundred microseconds of checking, against a claim's few microseconds.
  bool mine(std::size_t transfers) {
    if (!spread_.claim) return true;
    if (block_phases_ == 0) mine_ = spread_.claim(blocks_++);
    block_transfers_ += transfers;
    if (++block_phases_ == 1024 || block_transfers_ >= (1u << 16))
      block_phases_ = 0, block_transfers_ = 0;
    return mine_;
  }

  const Spread& spread_;
  verify::ParallelVerifier verifier_;
  std::uint64_t blocks_ = 0, block_phases_ = 0, block_transfers_ = 0;
  bool mine_ = true;
  ProgressMeter meter_;
  std::uint64_t unmetered_ = 0;
};

/// check_algorithm of every phase: the algorithm's phases streamed into one spread check.
std::optional<verify::Report> check_whole(const schedules::Algorithm& algorithm,
                                          const ScheduleHeader& header, Claims claims,
                                          const Spread& spread, std::uint64_t total) {
  SpreadCheck check(header, header.topology, std::move(claims), spread, total,
                    verify::Reader::generates);
  // Phases of own messages are checked from their pairs, without a Phase (verify/verifier.hpp).
  if (algorithm.generate_direct)
    algorithm.generate_direct(header, [&check](const DirectPhase& p) { check.consume(p); }, {});
  else
    algorithm.generate(header, [&check](const Phase& p) { check.consume(p); });
  return check.finish();
}

/// Whether check_algorithm splits this check by phase range: the phases are direct and settled by
/// their pairs (one part a message, no traffic), and their number is claimed exactly, to cut it
/// in equal ranges. The same answer on every process.
bool splits(const schedules::Algorithm& algorithm, const ScheduleHeader& header,
            std::uint64_t claimed_phases) {
  return algorithm.generate_direct && header.parts == 1 && !header.traffic && !header.buffers &&
         claimed_phases > 0;
}

/// check_algorithm split by phase range: this process makes and judges phases [P k / n,
/// P (k + 1) / n) of the P claimed (the last range runs on to the schedule's end, however many
/// phases it really has), sends every other process its arrivals at that process's destinations,
/// judges how those at its own fit (verify::fit), and process 0 makes the report from every
/// range's findings, or, when they cannot make it, checks the schedule whole. A range refused
/// (InputError: the memory limit, say, which a range may meet where the whole check does not, or
/// not where it does) sends nothing and is not clean: the whole check then decides, as one
/// process would, refusal included.
std::optional<verify::Report> check_in_ranges(const schedules::Algorithm& algorithm,
                                              const ScheduleHeader& header, std::uint64_t total,
                                              const Spread& spread) {
  const Spread::Ranges& split = *spread.ranges;
  const auto cut = [total, &split](std::uint64_t k) { return total * k / split.count; };
  const PhaseRange range{cut(split.index),
                         split.index + 1 == split.count ? UINT64_MAX : cut(split.index + 1)};
  // Process j holds destinations [N j / n, N (j + 1) / n).
  const Rank ranks = header.ranks();
  const auto slice = [ranks, &split](std::uint64_t j) {
    return static_cast<Rank>(std::uint64_t{ranks} * j / split.count);
  };
  std::optional<verify::Report> report;
  {  // the range's state, gone before a whole check starts
    Spread alone;  // this range's verifier, with the spread's threads, progress line and checkpoint
    alone.threads = spread.threads;
    alone.share = {true, 0, 1, range.first, true};
    alone.progress = spread.progress;
    alone.checkpoint = spread.checkpoint;
    SpreadCheck check(header, header.topology, schedules::claims_for(header), alone,
                      std::min(range.last, total) - std::min(range.first, total),
                      verify::Reader::generates);
    verify::Verifier::RangeFindings mine;  // not clean until the range is judged
    std::vector<std::vector<std::uint32_t>> out(split.count);
    try {
      algorithm.generate_direct(
          header, [&check](const DirectPhase& p) { check.consume(p); }, range);
      verify::ParallelVerifier& verifier = check.done();
      mine = verifier.range_findings();
      // The words and the exchange's copy of them (distributed/processes.hpp charges what it
      // receives).
      std::uint64_t words = 0;
      for (std::uint32_t j = 0; j < split.count; ++j) {
        verifier.range_words(slice(j), slice(j + 1), out[j]);
        words += out[j].size();
        check_memory(2 * words * sizeof(std::uint32_t),
                     "the arrivals of phases from " + std::to_string(range.first) +
                         " on, to send to the processes that hold their destinations");
      }
    } catch (const InputError&) {
      mine = {};
      for (auto& words : out) words.clear();
    }
    const auto in = split.exchange(out);
    out.clear();
    // A range refused sends no words, which a destination never has: those cannot fit.
    bool every_range = true;
    for (const auto& words : in)
      every_range &= !words.empty() || slice(split.index) == slice(split.index + 1);
    std::vector<std::span<const std::uint32_t>> ranges(in.begin(), in.end());
    mine.fits =
        every_range && verify::fit(ranks, slice(split.index), slice(split.index + 1), ranges);
    const auto all = split.gather(mine);
    if (split.index != 0) return std::nullopt;
    if (all.front().clean) report = check.done().finish_ranges(all);
  }
  if (report) return report;
  // A range found something, was refused, or the arrivals do not fit: the whole check decides,
  // here, on this process alone (the other processes wait for the exit code).
  Spread whole;
  whole.threads = spread.threads;
  whole.progress = spread.progress;
  whole.checkpoint = spread.checkpoint;
  return check_whole(algorithm, header, schedules::claims_for(header), whole, total);
}

}  // namespace

std::optional<verify::Report> check_algorithm(const schedules::Algorithm& algorithm,
                                              const Topology& model, Parameters parameters,
                                              const Spread& spread, SharedTraffic traffic) {
  const ScheduleHeader header =
      schedules::make_header(algorithm, model, std::move(parameters), std::move(traffic));
  Claims claims = schedules::claims_for(header);
  // The claimed phase count, when exact, is the meter's total (a guess about a schedule that may
  // be wrong is fine for an ETA: the check itself judges the claim).
  const std::uint64_t total = claims.phases && claims.phases->at_least == claims.phases->at_most
                                  ? claims.phases->at_most
                                  : 0;
  if (spread.ranges && splits(algorithm, header, total))
    return check_in_ranges(algorithm, header, total, spread);
  return check_whole(algorithm, header, std::move(claims), spread, total);
}

std::optional<verify::Report> verify_schedule(const Schedule& schedule, const Topology* what_if,
                                              const Spread& spread) {
  const ScheduleHeader& header = schedule.header;
  SpreadCheck check(header, what_if ? *what_if : header.topology, schedules::claims_for(header),
                    spread, schedule.phases.size(), verify::Reader::generates);
  for (const Phase& phase : schedule.phases) check.consume(phase);
  return check.finish();
}

Verified verify_file(const std::string& path, const std::string& topology_path,
                     const Spread& spread, const TableObserver& observe) {
  std::optional<Topology> what_if;
  if (!topology_path.empty()) what_if = io::read_topology_file(topology_path);
  return verify_file(path, what_if ? &*what_if : nullptr, spread, observe);
}

Verified verify_file(const std::string& path, const Topology* what_if, const Spread& spread,
                     const TableObserver& observe) {
  if (observe && (spread.threads != 1 || spread.gather))
    throw std::logic_error("verify_file: a table observer needs one thread and one process");
  Verified v;
  v.source = input_name(path);
  std::unique_ptr<SpreadCheck> check;
  const auto on_header = [&](const ScheduleHeader& h) {
    v.header = h;
    v.claims = schedules::claims_for(v.header);
    check = with_source(v.source, [&] {
      const Topology& model = what_if ? *what_if : v.header.topology;
      auto made = std::make_unique<SpreadCheck>(v.header, model, v.claims, spread, 0,
                                                verify::Reader::parses);
      if (observe) made->observe_tables(observe(v.header, model));
      return made;
    });
  };
  pipeline::read_schedule_file(
      path, on_header, [&check](const Phase& p) { check->consume(p); }, io::Tables::ops_only);
  v.report = check->finish();
  return v;
}

}  // namespace phasecheck::pipeline
