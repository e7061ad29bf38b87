#pragma once
/// The MPI processes one `phasecheck check` or `verify` runs on: `mpirun -np N phasecheck check
/// ...` splits the work in one of two ways.
///  - By phase range (pipeline::Spread::Ranges): `check` of an algorithm of direct phases. Each
///    process makes and judges its own range of the phases, every check; the arrivals cross to the
///    processes that hold their destinations (exchange: MPI_Alltoallv), which judge whether they
///    fit (verify/phase_ranges.hpp); process 0 gathers the findings and makes the report, or
///    checks the whole schedule itself when they cannot make it. Nothing is shared but those
///    messages, so this works across nodes as on one.
///  - Otherwise every process reads or generates every phase and checks its share
///    (verify/verifier.hpp, Share): process 0 holds the stateful checks (delivery, placement,
///    invariants, counts) and makes the report; the phase-local checks (contention, requests) go
///    by blocks of phases to whichever process reaches the block first (claim: a counter in memory
///    the processes of one node share, advanced by an atomic compare-and-swap), so the processes
///    without the stateful checks take more of them; every process sends its findings to process
///    0, which merges them exactly. Processes spread over several nodes share no counter: there
///    processes 1..N-1 deal the phase-local checks out among themselves by phase number.
/// Only process 0 writes the report; every process exits with its code.
///
/// MPI is initialised only when the environment says a launcher started this process (Open MPI's
/// OMPI_COMM_WORLD_SIZE, PMIx's PMIX_RANK, MPICH's PMI_SIZE); otherwise there is one process and
/// no MPI call is made. Only the calling thread talks to MPI (MPI_THREAD_FUNNELED).

#include <memory>
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

  /// This process's share of the checks: with several processes, the stateful checks on process
  /// 0 and the phase-local ones wherever claim() says.
  verify::Share share() const;
  /// Whether the processes claim blocks of phases (several processes, all on one node).
  bool claims() const;
  /// Whether this process takes block `b` of phases' phase-local checks: true when no other
  /// process has reached it yet. Each process asks for blocks 0, 1, 2, ... in order; exactly one
  /// gets each. Only when claims().
  bool claim(std::uint64_t b) const;
  /// Sends `mine` to process 0; there, returns every other process's partial (in rank order).
  std::vector<verify::Verifier::Partial> gather(const verify::Verifier::Partial& mine) const;
  /// A check split by phase range (pipeline::Spread::Ranges): sends out[j] to process j and
  /// returns what each process sent here, in rank order.
  std::vector<std::vector<std::uint32_t>> exchange(
      const std::vector<std::vector<std::uint32_t>>& out) const;
  /// Sends `mine` to process 0; there, returns every process's findings (its own included) in
  /// rank order.
  std::vector<verify::Verifier::RangeFindings> gather(
      const verify::Verifier::RangeFindings& mine) const;
  /// Process 0's exit code, on every process.
  int agree(int code) const;

  ~Processes();
  Processes(const Processes&) = delete;
  Processes& operator=(const Processes&) = delete;

 private:
  Processes();
  int rank_ = 0, size_ = 1;
  bool initialised_ = false;
  // The claim counter: the blocks claimed so far (mpi.h stays in the .cpp).
  struct Window;
  std::unique_ptr<Window> window_;
};

/// After an error: when this process is one of several, stops them all with `code` (MPI_Abort:
/// the others may be waiting for it in gather()); otherwise returns. Safe whether or not MPI was
/// started.
void abort_if_spread(int code);

}  // namespace phasecheck::distributed
