#pragma once
/// The streaming checks. `phasecheck check ALG --topology T`: a registered algorithm generated
/// and verified in one pass; `phasecheck verify FILE`: a schedule file (JSON or binary stream,
/// file or pipe) verified as it is read. Either way the phases go straight into the verifier and
/// are dropped, so what stays in memory is the checkers' state, never the schedule (tests:
/// tests/pipeline/test_check.cpp compares `check` with `generate | verify` on every algorithm
/// and example).
///
/// Both may be spread (Spread): over threads (verify/parallel.hpp) and over processes. A check of
/// an algorithm of direct phases is split by phase range (Spread::Ranges): each process makes and
/// judges its own range, and process 0 makes the one report from the ranges' findings. Otherwise
/// each process reads or generates every phase and checks its share (verify/verifier.hpp, Share);
/// the process holding the stateful checks merges the others' findings and makes the report.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/claims.hpp"
#include "core/parameters.hpp"
#include "core/topology.hpp"
#include "schedules/registry.hpp"
#include "verify/report.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::pipeline {

struct Spread {
  unsigned threads = 1;  ///< checking threads of this process (verify/parallel.hpp)
  verify::Share share;   ///< this process's part of the work
  /// Several processes: hands this process's findings to the stateful one and returns everyone
  /// else's there (empty elsewhere). Unset when this process is the only one.
  std::function<std::vector<verify::Verifier::Partial>(const verify::Verifier::Partial&)> gather;
  /// Several processes that each may judge any phase's phase-local checks (every share's slices
  /// are 1): whether this process takes block `b` of phases (consecutive phases of about 2^16
  /// transfers, the same blocks on every process), asked in order as the block begins. Exactly
  /// one process must get each block (the first to reach it: the faster processes take more, so
  /// the stateful one takes fewer). Unset: the share alone decides.
  std::function<bool(std::uint64_t b)> claim;
  /// Several processes that may split a check by phase range (verify/phase_ranges.hpp): each
  /// makes and judges one range of the phases alone, every check, and the ranges' findings make
  /// the report. check_algorithm does so for an algorithm of direct phases (generate_direct) with
  /// an exact phase claim, one part a message and no traffic; anything else, and a split whose
  /// findings cannot make the report, is checked as before.
  struct Ranges {
    std::uint32_t index = 0;  ///< this process's range
    std::uint32_t count = 1;  ///< the ranges, one a process
    /// Sends out[j] to process j and returns what each process sent here, in process order.
    std::function<std::vector<std::vector<std::uint32_t>>(
        const std::vector<std::vector<std::uint32_t>>& out)>
        exchange;
    /// Sends `mine` to process 0; there, returns every process's, its own included, in process
    /// order (empty elsewhere).
    std::function<std::vector<verify::Verifier::RangeFindings>(
        const verify::Verifier::RangeFindings& mine)>
        gather;
  };
  std::optional<Ranges> ranges;
  /// A progress line for a person (phases done, rate, ETA), or null for none.
  std::ostream* progress = nullptr;
  /// Called before each phase is checked, on the thread that reads or generates: it may throw to
  /// stop the check (the Python module's Ctrl-C). Unset: nothing is called.
  std::function<void()> checkpoint;
};

/// An alltoallv algorithm takes its `traffic` (schedules::make_header).
/// Throws InputError when the parameters or the machine do not fit the algorithm (naming the
/// parameter and its range, as `generate` does), before any phase is made. The report on the
/// process with the stateful share; empty on the others.
std::optional<verify::Report> check_algorithm(const schedules::Algorithm& algorithm,
                                              const Topology& model, Parameters parameters,
                                              const Spread& spread = {},
                                              SharedTraffic traffic = {});

struct Verified {
  std::string source;  ///< the file, or "<stdin>"
  ScheduleHeader header;
  Claims claims;
  std::optional<verify::Report> report;  ///< empty on a process without the stateful share
};

/// A measure of the phases besides the checks (`cost` on a machine with bandwidths): made once
/// the header is read, from the header and the model judged on (it may throw InputError to
/// refuse them before any phase is read); its sink sees every phase of the table after
/// validation (a format-3 program's: the table its sends form), in order.
using TableObserver = std::function<PhaseSink(const ScheduleHeader&, const Topology&)>;

/// A schedule held in memory (the Python module's Schedule) checked as verify_file checks a file:
/// with the claims of the registered algorithm its header names, on its own topology or on
/// `what_if` when given. Throws InputError (naming the phase and transfer) for a malformed
/// phase, as the readers do. The report as check_algorithm returns it.
std::optional<verify::Report> verify_schedule(const Schedule& schedule, const Topology* what_if,
                                              const Spread& spread = {});

/// Streams the schedule `path` (or standard input for "-") through the verifier, on its own
/// topology or on the what-if model in `topology_path` when that is not empty. InputError
/// messages start with the source. `observe`, when given, needs the default spread (one thread,
/// one process): std::logic_error otherwise.
Verified verify_file(const std::string& path, const std::string& topology_path,
                     const Spread& spread = {}, const TableObserver& observe = {});
/// The same on the what-if model `what_if` (null: the schedule's own), already read.
Verified verify_file(const std::string& path, const Topology* what_if, const Spread& spread = {},
                     const TableObserver& observe = {});

}  // namespace phasecheck::pipeline
