#pragma once
/// phasecheck-runner (runner/runner.cpp) started under Open MPI's mpirun on this machine or under
/// SimGrid's smpirun on a simulated network (docs/run.md): where the runner is, the two command
/// lines, and what the runner reports. Rank 0 prints one JSON object on standard output; every
/// rank prints its first errors on standard error, one line each ("rank 3: block [0,3] never
/// arrived"). The programs file the runner executes is written by the caller
/// (experiments/mpi_run.hpp); here it is only a path.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "launch/process.hpp"

namespace phasecheck::launch {

/// The two builds of the runner: against Open MPI, and with SimGrid's smpicxx.
enum class Mpi { open_mpi, simgrid };

/// The runner binary for `mpi`: $PHASECHECK_RUNNER (Open MPI) or $PHASECHECK_SMPI_RUNNER
/// (SimGrid) when set, else the one built with this phasecheck. Throws InputError when
/// phasecheck was built without the runner (-DPHASECHECK_BUILD_RUNNER=OFF).
std::string runner_path(Mpi mpi);

/// One execution of the runner, as its arguments say it.
struct RunnerJob {
  std::string runner;       ///< the binary (runner_path)
  std::string plan;         ///< the programs file it executes (io/programs_json.hpp)
  std::uint64_t bytes = 0;  ///< per message
  unsigned repeats = 1;     ///< calls timed (the median is reported)
  std::string only;         ///< "schedule" or "library": time only that one; empty: both

  friend bool operator==(const RunnerJob&, const RunnerJob&) = default;
};
std::ostream& operator<<(std::ostream& os, const RunnerJob& job);

/// `runner plan --bytes B --repeats R [--only X]`.
std::vector<std::string> runner_arguments(const RunnerJob& job);

/// Seconds phasecheck waits beyond mpirun's own --timeout before it kills mpirun's process group.
inline constexpr double kMpirunGrace = 30;

/// Open MPI on this machine, as root, oversubscribed, over shared memory (docs/run.md):
/// `mpirun ... -np ranks --timeout T runner ...` with T = `timeout` rounded up to whole seconds.
std::vector<std::string> mpirun_command(std::uint32_t ranks, double timeout, const RunnerJob& job);

/// A simulated run: the platform SimGrid simulates and what to compare with.
struct SmpirunOptions {
  std::uint32_t ranks = 0;
  std::string platform;  ///< SimGrid platform XML (io/simgrid_platform.hpp)
  std::string hostfile;  ///< one host per rank, in rank order
  /// SimGrid's implementation of `collective` (--cfg=smpi/alltoall:NAME or smpi/allgather:NAME);
  /// empty: its default.
  std::string library;
  Collective collective = Collective::alltoall;
  /// Write SimGrid's Paje trace here, with the collectives' internal messages; empty: no trace.
  std::string trace;

  friend bool operator==(const SmpirunOptions&, const SmpirunOptions&) = default;
};

/// `smpirun -np ranks -platform ... -hostfile ... runner ...` with a full-duplex fluid network
/// (no cross traffic, bandwidth and latency factors 1: docs/run.md) and no computation simulated.
std::vector<std::string> smpirun_command(const SmpirunOptions& options, const RunnerJob& job);

/// A launcher that ran to its end or to its deadline, named for messages.
struct Launched {
  std::string launcher;  ///< "mpirun", "smpirun"
  double timeout = 0;    ///< the deadline it ran under, in seconds
  Finished finished;
};

/// mpirun_command run in a process group of its own, killed with it kMpirunGrace seconds after
/// `timeout` (mpirun's own deadline) or when phasecheck is interrupted. Throws InputError when
/// mpirun cannot be started (launch::run).
Launched run_mpirun(std::uint32_t ranks, double timeout, const RunnerJob& job);

/// smpirun_command run likewise, killed after `timeout` seconds.
Launched run_smpirun(const SmpirunOptions& options, const RunnerJob& job, double timeout);

/// What the runner reports (rank 0's JSON line).
struct RunnerResult {
  std::uint64_t bytes = 0;                   ///< per message
  std::optional<std::uint64_t> chunk_bytes;  ///< a buffer program's (format 3) chunk; else none
  unsigned repeats = 0;                      ///< calls timed
  long long errors = 0;  ///< wrong or missing bytes, summed over ranks and calls
  /// Median over the calls of the slowest rank's time per call; none when not timed (--only).
  std::optional<double> schedule_seconds, library_seconds;

  friend bool operator==(const RunnerResult&, const RunnerResult&) = default;
};
std::ostream& operator<<(std::ostream& os, const RunnerResult& result);

/// The runner's result: the last line of standard output that starts with '{'. Throws InputError
/// naming the launcher when it timed out ("did not finish in time (a deadlock?)"), failed or
/// printed no result line (with the tail of its standard error), or the line is not the runner's
/// JSON.
RunnerResult result_of(const Launched& run);

/// The runner's error lines on standard error (those starting with "rank "), at most `limit`.
std::vector<std::string> rank_errors(const std::string& err, std::size_t limit);

}  // namespace phasecheck::launch
