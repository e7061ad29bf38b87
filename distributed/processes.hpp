#pragma once
/// The MPI processes one `phasecheck check` or `verify` runs on: `mpirun -np N phasecheck check
/// ...` splits the work, every process reading or generating every phase and checking its share
/// (verify/verifier.hpp, Share): process 0 holds the stateful checks (delivery, placement,
/// invariants, counts) and makes the report; processes 1..N-1 deal the phase-local checks
/// (contention, requests) out among themselves by phase number and send their findings to
/// process 0, which merges them exactly. Only process 0 writes the report; every process exits
/// with its code.
///
/// MPI is initialised only when the environment says a launcher started this process (Open MPI's
/// OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, MPICH's PMI_SIZE); otherwise there is one process and
/// no MPI call is made. Only the calling thread talks to MPI (MPI_THREAD_FUNNELED).

#include <vector>

#include "verify/verifier.hpp"

namespace phasecheck::distributed {

class Processes {
 public:
  /// The processes of this run; initialises MPI on the first call when launched by mpirun.
  static Processes& get();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool spread() const { return size_ > 1; }

  /// This process's share of the checks.
  verify::Share share() const;
  /// Sends `mine` to process 0; there, returns every other process's partial (in rank order).
  std::vector<verify::Verifier::Partial> gather(const verify::Verifier::Partial& mine) const;
  /// Process 0's exit code, on every process.
  int agree(int code) const;

  ~Processes();
  Processes(const Processes&) = delete;
  Processes& operator=(const Processes&) = delete;

 private:
  Processes();
  int rank_ = 0, size_ = 1;
  bool initialised_ = false;
};

/// After an error: when this process is one of several, stops them all with `code` (MPI_Abort:
/// the others may be waiting for it in gather()); otherwise returns. Safe whether or not MPI was
/// started.
void abort_if_spread(int code);

}  // namespace phasecheck::distributed
