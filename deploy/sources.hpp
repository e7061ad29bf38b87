#pragma once
/// The C sources of deploy/ as text, compiled into phasecheck (deploy/CMakeLists.txt embeds
/// them at configure time), so that `phasecheck deploy` writes them wherever it is installed.

#include <string_view>

namespace phasecheck::deploy {

/// deploy/runtime.c: the executor of step tables, datatypes, the communicator cache.
std::string_view runtime_c();
/// deploy/interposer.c: MPI_Alltoall and MPI_Allgather through PMPI, PHASECHECK_LOG.
std::string_view interposer_c();

}  // namespace phasecheck::deploy
