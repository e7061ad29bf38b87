#pragma once
/// The algorithms MPI and GPU collective libraries ship, modelled from their source: one folder
/// per library, one file per algorithm, each naming in its opening paragraph the library, file and
/// version it follows. The registry (registry.cpp) appends these rows to the seed papers'.

#include <vector>

#include "schedules/registry.hpp"

namespace phasecheck::schedules {

/// Open MPI's coll/base alltoall and allgather (schedules/ompi/).
std::vector<Algorithm> ompi_algorithms();
/// MPICH's alltoall and allgather (schedules/mpich/).
std::vector<Algorithm> mpich_algorithms();
/// NCCL's and RCCL's alltoall and allgather (schedules/nccl/).
std::vector<Algorithm> nccl_algorithms();

}  // namespace phasecheck::schedules
