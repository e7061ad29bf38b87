#include "schedules/mpich/mpich.hpp"
#include "schedules/shipped.hpp"

namespace phasecheck::schedules {

std::vector<Algorithm> mpich_algorithms() {
  using namespace mpich;
  return {brucks(),
          k_brucks(),
          pairwise(),
          scattered(),
          pairwise_sendrecv_replace(),
          recursive_doubling(),
          recexch(),
          ring(),
          circulant()};
}

}  // namespace phasecheck::schedules
