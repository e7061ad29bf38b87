#pragma once
/// The alltoallv algorithms (core/traffic.hpp): uneven messages from a traffic matrix. The
/// registry (registry.cpp) appends these rows after the libraries' (shipped.hpp).

#include <vector>

#include "schedules/registry.hpp"

namespace phasecheck::schedules {

std::vector<Algorithm> alltoallv_algorithms();

}  // namespace phasecheck::schedules
