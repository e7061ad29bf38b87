#include "schedules/shipped.hpp"

namespace phasecheck::schedules {

std::vector<Algorithm> mpich_algorithms() { return {}; }

}  // namespace phasecheck::schedules
