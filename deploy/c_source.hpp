#pragma once
/// C text from deployment plans (deploy/plan.hpp). Deterministic: the same plans give the same
/// bytes.
///
/// routine_source(): Faraj and Yuan's routine generator. One self-contained C99 file: the
/// runtime (deploy/runtime.c), each schedule's step tables (a rank's steps phase by phase, each
/// phase under a comment with its label) and one public function per schedule with the
/// signature of MPI_Alltoall (MPI_Allgather, MPI_Alltoallv), `phasecheck_<name>_alltoall`
/// (`_allgather`, `_alltoallv`). It compiles with `mpicc -Wall -Werror`; a communicator of
/// another size, or a call the schedule cannot serve, goes to the PMPI_ routine.
///
/// interposer_source(): the same runtime and tables, a table of the deployed schedules and
/// deploy/interposer.c, which defines MPI_Alltoall, MPI_Allgather and MPI_Alltoallv.

#include <string>
#include <string_view>
#include <vector>

#include "deploy/plan.hpp"

namespace phasecheck::deploy {

/// "hypercube-exchange" -> "hypercube_exchange": letters, digits and '_' kept, anything else '_'.
std::string c_identifier(std::string_view name);

/// The public function names of routine_source(plans), in plan order:
/// phasecheck_<name>_<collective>, <name> the algorithm's identifier, with "_p<ranks>" (and then
/// "_2", "_3", ...) added when two plans would share a name.
std::vector<std::string> routine_names(const std::vector<Plan>& plans);

std::string routine_source(const std::vector<Plan>& plans);

/// Throws InputError when two plans serve one collective on one communicator size (the
/// interposer could not choose): "a.json and b.json are both MPI_Alltoall on 8 ranks".
std::string interposer_source(const std::vector<Plan>& plans);

}  // namespace phasecheck::deploy
