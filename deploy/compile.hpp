#pragma once
/// The interposer built into a shared library with mpicc (launch/process.hpp: a process group of
/// its own, a deadline, no shell), in a private scratch directory; the library is then written to
/// its destination as any output is (core/files.hpp: never through a planted name, never over an
/// input, a FIFO or a device never replaced).

#include <string>
#include <vector>

namespace phasecheck::deploy {

struct CompileOptions {
  std::string mpicc = "mpicc";  ///< searched in PATH
  double timeout = 300;         ///< seconds
};

/// The arguments mpicc gets: C99, optimized, position independent, every warning an error (the
/// source is ours: a warning is a bug).
std::vector<std::string> mpicc_arguments(const CompileOptions& options, const std::string& source,
                                         const std::string& library);

/// Compiles `c_source` into a shared library and writes it to `output` (which must not be one of
/// `inputs`). Throws InputError, nothing written, when mpicc cannot be started, fails or times
/// out: the message names mpicc and ends with its last lines of standard error.
void build_shared_library(const std::string& c_source, const std::string& output,
                          const std::vector<std::string>& inputs, const CompileOptions& options);

}  // namespace phasecheck::deploy
