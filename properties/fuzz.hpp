#pragma once
/// `phasecheck fuzz`: the registry's property (claims_check.hpp) on random machines from the
/// generators of generators.hpp, together with the property of each algorithm's buffer program
/// (broken_program), or an external generator program gated the same way. Driven by
/// rapidcheck: deterministic for a seed, and a failure is shrunk to the smallest machine that
/// still fails, then written out as files a person can replay.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "schedules/registry.hpp"
#include "verify/report.hpp"

namespace phasecheck::properties {

/// The largest rapidcheck size `fuzz` takes: machines grow with it, and beyond this they only
/// repeat the kMaxRanks refusals.
inline constexpr int kMaxFuzzSize = 1000;

struct FuzzOptions {
  std::vector<std::string> algorithms;  ///< registered names; empty: all
  std::uint64_t cases = 200;            ///< per algorithm, when seconds == 0
  double seconds = 0;  ///< > 0: batches of `cases` until the time is spent, shared evenly
  std::uint64_t seed = 1;
  int max_size = 40;                 ///< rapidcheck's size: how large machines get
  std::string out = "fuzz-failure";  ///< where a failure's files go
  std::string generator;             ///< external: CMD < topology.json > schedule.json
  double generator_timeout = 60;     ///< seconds for one run of the generator
  bool contention_free = false;      ///< external: also require contention-freedom
  bool progress = false;             ///< a progress line (for a terminal)
};

/// Throws InputError unless every option is in its range (cases, seconds finite, size, seed).
void validate(const FuzzOptions& options);

/// The smallest failing case, as written out for a person to replay.
struct FuzzFailure {
  std::string what;                ///< "shift: contention: ..."
  std::string machine;             ///< describe() of the smallest machine
  std::vector<std::string> files;  ///< topology.json, schedule.json (when made), report.txt
  std::string replay;              ///< the command that shows the failure again
  std::string again;               ///< the fuzz command that finds it again
  std::string report;              ///< report.txt: the verifier's report of the case
  Topology topology = FullyConnected(1, 1);  ///< the smallest machine itself
  std::optional<Schedule> schedule;          ///< the schedule made on it, when one was
};

/// One algorithm's (or the generator's) part of a campaign: pass when every case passed, fail
/// with the smallest failing case, or not evaluated when too few generated machines fit it.
struct FuzzOutcome {
  std::string name;
  Verdict verdict = Verdict::not_evaluated;
  std::uint64_t cases = 0;      ///< cases that ran
  std::uint64_t discarded = 0;  ///< generated machines that did not fit it (pass only)
  double seconds = 0;           ///< pass only
  std::string reason;           ///< not evaluated: why; fail without a case: what threw
  std::optional<FuzzFailure> failure;
};

/// The verifier's report of a failing case as report.txt holds it (report/verify_report.hpp
/// renders it; this library decides, it does not render).
using CaseReportRenderer = std::function<std::string(const verify::Report&)>;

/// Runs the campaign (after validate); the progress line goes to `progress`. Each algorithm's
/// outcome goes to `on_outcome` as it finishes; the campaign stops at the first failure, whose
/// files are written to options.out. Returns pass when every algorithm passed and some ran, fail
/// on a failure, not evaluated when every algorithm gave up.
Verdict fuzz(const FuzzOptions& options, std::ostream& progress,
             const CaseReportRenderer& render_case,
             const std::function<void(const FuzzOutcome&)>& on_outcome);

/// What the buffer program (format 3, schedules::generate_program) of `a` for the header of
/// `table`, its phase table, breaks on `model`: its placement, or any check that passes for the
/// table (judged as `table_report`); "" when nothing. The program is judged with the
/// algorithm's claims; a program that cannot be made is broken too. `program` and `report`,
/// when given, receive the program and its verification report.
std::string broken_program(const schedules::Algorithm& a, const Schedule& table,
                           const verify::Report& table_report, const Topology& model,
                           Schedule* program = nullptr, verify::Report* report = nullptr);

}  // namespace phasecheck::properties
