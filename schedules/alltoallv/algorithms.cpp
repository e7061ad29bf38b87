// The alltoallv rows (schedules/alltoallv/algorithms.hpp).

#include "schedules/alltoallv/algorithms.hpp"

namespace phasecheck::schedules {

std::vector<Algorithm> alltoallv_algorithms() { return {}; }

}  // namespace phasecheck::schedules
