#pragma once
/// What `verify`, `check` and `generate` share: how the checking spreads, and an algorithm's
/// refusal naming the machine's file.

#include <string>

#include "core/error.hpp"
#include "core/files.hpp"
#include "pipeline/check.hpp"

namespace phasecheck::cli {

/// How `verify` and `check` spread their work: over this process's threads (`threads`; 0: the
/// machine's cores) and, under mpirun, over the MPI processes (distributed/processes.hpp; there
/// one thread each unless `threads` says otherwise: the processes are the spread). The progress
/// line is process 0's.
pipeline::Spread spread(unsigned threads);

/// Runs `f`, which asks an algorithm for its schedule on the machine of the topology file `path`:
/// the algorithm's refusal (the machine is not its kind, a parameter is out of range for it, the
/// memory limit) names the file, as every other bad input does.
template <class F>
decltype(auto) on_machine_of(const std::string& path, F&& f) {
  return with_source(path, std::forward<F>(f));
}

}  // namespace phasecheck::cli
