#pragma once
/// Faraj & Yuan, Section 6 (Figs. 6-8), simulated by SimGrid: the completion time of one
/// MPI_Alltoall on each of the paper's switched-Ethernet clusters (trees of switches), per message
/// size, for our schedules (linear, shift, faraj-yuan with a barrier or pair-wise
/// synchronization between phases; every byte checked) and for SimGrid's own alltoall
/// implementations, next to the bottleneck bound |Mu| |Mv| m / B, the time no alltoall beats.
/// The network is SimGrid's full-duplex fluid model (docs/run.md), so the table shows
/// synchronization cost and imbalance, not the contention losses of real switches.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/table.hpp"
#include "core/topology.hpp"

namespace phasecheck::experiments {

/// A machine of the experiment.
struct ExperimentMachine {
  std::string file;  ///< its topology file
  std::string name;  ///< in tables and plot names: machine_name(file), then -2, -3, ... for repeats
  Topology model = FullyConnected(1, 1);  ///< a Tree

  friend bool operator==(const ExperimentMachine&, const ExperimentMachine&) = default;
};

/// Every machine file read and checked before the first (long) simulation: a tree small enough
/// to simulate (check_simulated_tree), whose ranks' messages of `largest_bytes` fit in a run
/// (check_run_volume). Throws InputError naming the file.
std::vector<ExperimentMachine> read_experiment_machines(const std::vector<std::string>& files,
                                                        std::uint64_t largest_bytes);

struct FarajYuanQuestion {
  std::vector<ExperimentMachine> machines;              ///< from read_experiment_machines
  std::vector<std::uint64_t> sizes;                     ///< message sizes in bytes, in column order
  std::string bandwidth = "100Mbps", latency = "10us";  ///< SimGrid's units, as given
  double bytes_per_second = 0;                          ///< the bandwidth
  double timeout = 60;                                  ///< seconds per simulation
};

/// One machine's part of the experiment.
struct FarajYuanMachine {
  ExperimentMachine machine;
  /// One row per contender and the bound row last; a column per size: milliseconds, "-" where
  /// the run failed, "BYTES WRONG" where the runner found wrong bytes.
  Table table;
  /// Aggregate throughput in MB/s per contender and size, NaN where the run failed.
  std::vector<std::pair<std::string, std::vector<double>>> series;
  /// Why a contender failed ("SimGrid pair: Uncaught exception ...") -> at which sizes ("8K, 16K").
  std::map<std::string, std::string> notes;
  double wall_seconds = 0;  ///< how long its simulations took
};

/// Runs every contender at every size on every machine, one smpirun each. `on_machine` sees each
/// machine's part when its simulations are done (with the progress line erased), so that it can
/// be shown while the next one runs. Returns the long table, one row per machine, contender and
/// size (milliseconds and MB/s null where the run failed, the reason in "status"), plus the bound
/// rows; its verdict is "pass" unless one of our schedules failed to run or got bytes wrong
/// (SimGrid may refuse one of its own algorithms: that is a note). Throws InputError when smpirun
/// cannot be started or the runner was not built.
TableReport faraj_yuan_experiment(const FarajYuanQuestion& question, std::ostream* progress,
                                  const std::function<void(const FarajYuanMachine&)>& on_machine);

}  // namespace phasecheck::experiments
