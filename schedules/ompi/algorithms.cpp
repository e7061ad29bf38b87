#include "schedules/shipped.hpp"

namespace phasecheck::schedules {

std::vector<Algorithm> ompi_algorithms() { return {}; }

}  // namespace phasecheck::schedules
