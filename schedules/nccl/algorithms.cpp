#include "schedules/nccl/rows.hpp"
#include "schedules/shipped.hpp"

namespace phasecheck::schedules {

std::vector<Algorithm> nccl_algorithms() {
  return {nccl::p2p_alltoall_row(), nccl::pat_allgather_row(), nccl::pivot_alltoall_row()};
}

}  // namespace phasecheck::schedules
