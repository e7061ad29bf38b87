#pragma once
/// `phasecheck deploy`: verified schedules into unmodified MPI programs (docs/run.md, "Deploy").
/// Every schedule is read (io/), judged for deployment (deploy/plan.hpp) and, only when every one
/// of them passes, turned into C (deploy/c_source.hpp): the PMPI interposer compiled by mpicc
/// into a shared library (deploy/compile.hpp), or with `emit_c` the routines' C source itself.

#include <string>
#include <vector>

#include "deploy/compile.hpp"
#include "deploy/plan.hpp"

namespace phasecheck::deploy {

struct Request {
  std::vector<std::string> schedules;  ///< files; "-" (standard input) at most once
  std::string output;                  ///< the library, or with emit_c the C file ("-": stdout)
  bool emit_c = false;
  SyncChoice sync = SyncChoice::automatic;
  CompileOptions compile;
};

struct Outcome {
  std::vector<Checked> checked;        ///< one per schedule, in order
  std::vector<std::string> functions;  ///< emit_c: the routines written, one per schedule
  std::string c_source;                ///< emit_c to standard output: the text; else empty
  /// pass when something was written: there were schedules and every one passed.
  Verdict verdict() const {
    for (const Checked& c : checked)
      if (c.verdict() != Verdict::pass) return Verdict::fail;
    return checked.empty() ? Verdict::fail : Verdict::pass;
  }
  bool deployed() const { return verdict() == Verdict::pass; }
};

/// Reads, checks and, when all pass, writes. Throws InputError for bad input (a file that does
/// not read, more ranks than kMaxDeployRanks, two schedules for one collective and size, an
/// output that may not be written, mpicc failing); nothing is written then, nor when a schedule
/// is refused (Outcome::deployed() is false).
Outcome deploy(const Request& request);

}  // namespace phasecheck::deploy
