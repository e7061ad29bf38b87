#include "schedules/ompi/ompi.hpp"
#include "schedules/shipped.hpp"

namespace phasecheck::schedules {

std::vector<Algorithm> ompi_algorithms() {
  return {ompi::pairwise(),
          ompi::linear_sync(),
          ompi::inplace(),
          ompi::two_procs(),
          ompi::recursive_doubling(),
          ompi::ring(),
          ompi::neighbor_exchange(),
          ompi::sparbit(),
          ompi::bruck_k(),
          ompi::direct()};
}

}  // namespace phasecheck::schedules
