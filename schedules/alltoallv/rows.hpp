#pragma once
/// The alltoallv rows, one file each (algorithms.cpp lists them).

#include "schedules/registry.hpp"

namespace phasecheck::schedules::alltoallv {

Algorithm linear_v();
Algorithm pairwise_v();
Algorithm scattered_v();
Algorithm bvn();
Algorithm two_stage_v();

}  // namespace phasecheck::schedules::alltoallv
