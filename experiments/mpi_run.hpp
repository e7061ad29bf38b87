#pragma once
/// A schedule run for real (docs/run.md): verified on the machine it runs on, lowered to per-rank
/// programs (programs/program.hpp) with a phase separation, and executed by phasecheck-runner,
/// which checks every byte, under Open MPI's mpirun on this machine or under SimGrid's smpirun
/// on a simulated network built from a tree topology (launch/runner.hpp). What a run found is a
/// RunOutcome; report/run_report.hpp renders it.
///
/// Limits of a run on this machine (24 GiB), checked before any process starts: all ranks'
/// messages within 2 GiB (every rank keeps its own messages to start each call from, holds them
/// and what it receives, and the library's send and receive buffers: about five times that), a
/// buffer program's buffers and staging within 2 GiB too, and every message within an MPI count.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffers.hpp"
#include "core/claims.hpp"
#include "core/schedule.hpp"
#include "core/topology.hpp"
#include "launch/process.hpp"
#include "launch/runner.hpp"
#include "verify/report.hpp"

namespace phasecheck::experiments {

/// Processes `run` starts on this one machine.
inline constexpr Rank kMaxRunRanks = 256;
/// Machines (and switches) of a tree that `simulate` and `whatif experiment` simulate: SimGrid
/// runs every rank in one process and routes the tree with Floyd's algorithm, cubic in its
/// nodes; shift on a tree of 256 machines takes two minutes of simulated runs on this machine.
inline constexpr Rank kMaxSimulatedRanks = 256;

/// Throws InputError naming `command` when `tree` has more than kMaxSimulatedRanks machines or
/// switches; checked before anything is read or simulated.
void check_simulated_tree(const Tree& tree, std::string_view command);

/// Throws InputError ("--bytes B on N ranks: X GiB of messages, more than the 2 GiB a run may
/// use") when `ranks` ranks' messages of `bytes` bytes together pass 2 GiB.
void check_run_volume(Rank ranks, std::uint64_t bytes);

/// The schedule file `path`, read for a run: `check_size` sees the header before the phases are
/// read (it throws InputError to refuse), then a buffer program (format 3) is checked for what
/// the runner can execute with messages of `bytes` bytes: at least a byte per chunk, buffers and
/// one phase's staging within 2 GiB, every message within an MPI count. An alltoallv is refused
/// (InputError): the runner moves equal blocks.
Schedule read_runnable(const std::string& path, std::uint64_t bytes,
                       const std::function<void(const ScheduleHeader&)>& check_size);

/// Verifies `table` on `model` (its own topology when null) with `claims`, and writes its
/// per-rank programs with the `sync` separation (none | barrier | pairwise; InputError
/// otherwise) to the file `plan` for the runner. `source` names the schedule in messages and in
/// the programs. Returns the verification report: a schedule that fails still runs, and the
/// runner shows what its bytes do. Throws InputError, before the programs are made, when they
/// pass the memory limit or the runners together would hold more than the 2 GiB a run may use
/// (each runner keeps only its own program, about 512 bytes an operation: with barriers, an
/// operation for every rank in every phase).
verify::Report write_run_programs(const Schedule& table, const std::string& source,
                                  const std::string& sync, const Topology* model,
                                  const Claims& claims, const std::string& plan);

/// A simulated network: the tree's SimGrid platform and host file, written once into a scratch
/// directory of its own (removed with it). `tree` must outlive it.
class SimulatedNetwork {
 public:
  /// `bandwidth` and `latency` in SimGrid's units ("100Mbps", "10us"), as they go in the platform.
  SimulatedNetwork(const Tree& tree, const std::string& bandwidth, const std::string& latency);

  /// smpirun of the runner (launch::runner_path) on the programs in `plan`; `library` picks
  /// SimGrid's implementation of `collective` (empty: its default), `only` restricts the runner to "schedule" or
  /// "library" (empty: both), `trace` writes SimGrid's Paje trace there (empty: none). Throws
  /// InputError when smpirun cannot be started; its result is read by launch::result_of.
  launch::Launched run(const std::string& plan, std::uint64_t bytes, unsigned repeats,
                       const std::string& library, const std::string& only, double timeout,
                       const std::string& trace = "",
                       Collective collective = Collective::alltoall) const;

 private:
  const Tree& tree_;
  launch::ScratchDirectory scratch_;  // the platform and the host file
};

/// Faraj & Yuan, Section 3: no alltoall moves more than |M| (|M| - 1) B / (|Mu| |Mv|) bytes per
/// second in aggregate. A simulated run's aggregate throughput against that bound, in MB/s.
struct Throughput {
  double schedule = 0, library = 0;  ///< |M| (|M| - 1) m / time
  double peak_bound = 0;
  /// Faster than the bound (by more than 0.1%): the simulation did not simulate this tree.
  bool exceeds_peak = false;

  friend bool operator==(const Throughput&, const Throughput&) = default;
};
std::ostream& operator<<(std::ostream& os, const Throughput& t);

/// What a run found: the schedule, where it ran, the runner's result and the first of the ranks'
/// error lines.
struct RunOutcome {
  std::string source;  ///< the schedule's name in reports (input_name)
  std::string algorithm;
  Collective collective = Collective::alltoall;
  Rank ranks = 0;
  std::optional<BufferLayout> buffers;  ///< a buffer program's (format 3)
  std::string separation;               ///< none | barrier | pairwise
  /// The schedule's verdict on the machine it ran on (its own, or the simulated tree).
  verify::Verdict table = verify::Verdict::pass;
  std::string where;    ///< "under Open MPI (mpirun, this machine)", "simulated by SimGrid on ..."
  std::string library;  ///< the library collective timed in the same run: "MPI_Alltoall", ...
  launch::RunnerResult result;           ///< both times present
  std::vector<std::string> error_lines;  ///< at most kMaxErrorLines
  std::optional<Throughput> throughput;  ///< a simulated alltoall's

  static constexpr std::size_t kMaxErrorLines = 10;
  /// The run's verdict, the one that text, JSON and the exit code say: pass when every byte
  /// arrived as sent and no simulated throughput beats the peak bound, else fail.
  verify::Verdict verdict() const {
    return result.errors == 0 && !(throughput && throughput->exceeds_peak) ? verify::Verdict::pass
                                                                           : verify::Verdict::fail;
  }
  bool ok() const { return verdict() == verify::Verdict::pass; }

  friend bool operator==(const RunOutcome&, const RunOutcome&) = default;
};
std::ostream& operator<<(std::ostream& os, const RunOutcome& o);

/// `phasecheck run`: the schedule's programs under Open MPI on this machine.
struct OpenMpiRun {
  std::string source;  ///< the schedule's path as given: named in messages and in the programs
  std::string sync = "barrier";
  std::uint64_t bytes = 1024;  ///< per message
  unsigned repeats = 5;
  double timeout = 300;  ///< mpirun's own deadline (launch::run_mpirun)
  Claims claims;         ///< what the schedule's algorithm claims: checked by the verdict
};
/// Verifies `schedule` on its own topology, writes its programs and runs them with one process
/// per rank. Throws InputError when mpirun cannot be started, times out, fails or prints no
/// result.
RunOutcome run_on_open_mpi(const Schedule& schedule, const OpenMpiRun& run);

/// `phasecheck simulate`: the schedule's programs under SimGrid on a tree's network.
struct SimGridRun {
  Topology model = FullyConnected(1, 1);  ///< a Tree: the network simulated, and the judge
  std::string source;                     ///< as in OpenMpiRun
  std::string sync = "barrier";
  std::string bandwidth = "100Mbps", latency = "10us";  ///< SimGrid's units, as given
  /// The tree's peak aggregate alltoall throughput at that bandwidth, in bytes per second
  /// (Faraj & Yuan, Section 3).
  double peak_bytes_per_second = 0;
  std::uint64_t bytes = 65536;  ///< per message
  unsigned repeats = 3;
  std::string library;  ///< SimGrid's alltoall to compare with; empty: its default
  std::string trace;    ///< SimGrid's Paje trace file; empty: none
  double timeout = 600;
  Claims claims;
};
/// Verifies `schedule` on the tree, writes its programs and simulates them; for an alltoall
/// also the aggregate throughput against the peak bound. Throws InputError as run_on_open_mpi.
RunOutcome simulate_on_simgrid(const Schedule& schedule, const SimGridRun& run);

}  // namespace phasecheck::experiments
