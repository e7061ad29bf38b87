#include "pipeline/check.hpp"

#include <memory>
#include <stdexcept>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/progress.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "verify/parallel.hpp"

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
  SpreadCheck check(header, header.topology, std::move(claims), spread, total,
                    verify::Reader::generates);
  // Phases of own messages are checked from their pairs, without a Phase (verify/verifier.hpp).
  if (algorithm.generate_direct)
    algorithm.generate_direct(header, [&check](const DirectPhase& p) { check.consume(p); });
  else
    algorithm.generate(header, [&check](const Phase& p) { check.consume(p); });
  return check.finish();
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
