// ompi-ring (schedules/ompi/ring.cpp): p - 1 steps to rank + 1 in rbuf.

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-ring: step i sends rbuf[rank - i] to rank + 1") {
  CHECK(table_text("ompi-ring", 3) ==
        "- | 0 -> 1; 1 -> 2; 2 -> 0 | 0 -> 1 [2]; 1 -> 2 [0]; 2 -> 0 [1]");
}

TEST_CASE("ompi-ring: verifies with its claims (p phases, C2 = p - 1) at every p up to 17") {
  int runs = 0;
  for (Rank p = 1; p <= 17; ++p) runs += check_verifies("ompi-ring", p);
  CHECK(runs == 34);
  CHECK_THROWS_AS(program_of("ompi-ring", 4, with({{"collective", "alltoall"}})), InputError);
}

TEST_CASE("ompi-ring: a partner or an offset off by one at p = 5 is caught") {
  check_caught(off_by_one(program_of("ompi-ring", 5), 3, 1, false));
  check_caught(off_by_one(program_of("ompi-ring", 5), 3, 1, true));
}
