// The alltoallv rows (schedules/alltoallv/algorithms.hpp).

#include "schedules/alltoallv/algorithms.hpp"

#include "schedules/alltoallv/rows.hpp"

namespace phasecheck::schedules {

std::vector<Algorithm> alltoallv_algorithms() {
  return {alltoallv::linear_v(), alltoallv::pairwise_v(), alltoallv::scattered_v(),
          alltoallv::bvn(), alltoallv::two_stage_v()};
}

}  // namespace phasecheck::schedules
