#pragma once
/// `phasecheck record`: an implementation of alltoall or allgather run on real MPI processes
/// over a declared space of cases (ranks x counts x types x in place), every run recorded and
/// judged (record/judge.hpp). One mpirun per algorithm and rank count runs all its cases in
/// order; a case that crashes, hangs (its deadline kills mpirun's process group) or aborts fails
/// with what happened, and the cases after it run in a new mpirun.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "record/judge.hpp"
#include "record/recording.hpp"

namespace phasecheck::record {

/// The most processes of one recorded run: an mpirun on this one machine.
inline constexpr Rank kMaxRunRanks = 256;

struct SweepSpec {
  Level level = Level::pml;  ///< pml: the library's MPI_Alltoall/MPI_Allgather; pmpi: `function`
  Collective collective = Collective::alltoall;
  /// pml: Open MPI algorithms by number or name (record/open_mpi.hpp); empty: the library's own
  /// choice, unforced.
  std::vector<std::string> algorithms;
  std::string function;  ///< pmpi: "LIB.so:SYMBOL"
  std::vector<Rank> ranks;
  std::vector<std::uint32_t> counts;
  std::vector<Types> types;
  std::vector<bool> inplace;
  double timeout = 60;     ///< seconds for one case (an mpirun gets this per case it runs)
  std::string mpi_prefix;  ///< another Open MPI 4.1 installation; empty: the one built with
  std::string keep;        ///< -o DIR: the recorded schedules and the replay commands go here
  /// The command line that reruns one case, for the report: given the case's algorithm, p,
  /// count, types and in place.
  std::function<std::string(const std::string&, Rank, std::uint32_t, Types, bool)> replay;
  std::ostream* progress = nullptr;  ///< a terminal for the progress line, or null
};

struct Case {
  std::string algorithm;  ///< as asked ("modified_bruck", "" for the library's choice, the symbol)
  Rank ranks = 0;
  std::uint32_t count = 0;
  Types types = Types::contiguous;
  bool inplace = false;
  Judgement judgement;          ///< its report's verdict is the case's
  std::string schedule_file;    ///< where -o kept its table ("" when not kept)
  std::string replay;           ///< the command that reruns it
};

struct Sweep {
  Level level = Level::pml;
  Collective collective = Collective::alltoall;
  std::string library;  ///< the MPI library, as the first recording says it (untrusted text)
  std::string routine;  ///< MPI_Alltoall, or the user's LIB.so:SYMBOL
  std::vector<Case> cases;
  /// fail if a case failed, else unknown, else pass if one passed, else not evaluated: the
  /// verify::Report rule over the cases.
  Verdict verdict() const;
};

/// Runs and judges every case. Throws InputError before any case runs when the library cannot
/// be recorded (not Open MPI 4.1 at level pml, an --mpi-prefix without it, the driver missing),
/// naming what was found; and when `keep` cannot be written.
Sweep sweep(const SweepSpec& spec);

/// The recording driver: $PHASECHECK_RECORD_DRIVER, else the one built with phasecheck.
std::string driver_path();

}  // namespace phasecheck::record
