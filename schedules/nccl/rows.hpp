#pragma once
/// The rows of schedules/nccl/, one per algorithm file; algorithms.cpp lists them.

#include "schedules/registry.hpp"

namespace phasecheck::schedules::nccl {

/// p2p_alltoall.cpp: NCCL's alltoall as grouped send/recv in its p2p schedule's order.
Algorithm p2p_alltoall_row();
/// pivot_alltoall.cpp: RCCL's AllToAllPivot on the 16-GCD MI250X machine.
Algorithm pivot_alltoall_row();
/// pat_allgather.cpp: NCCL's PAT allgather, one GPU per node.
Algorithm pat_allgather_row();

}  // namespace phasecheck::schedules::nccl
