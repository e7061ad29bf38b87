// ompi-direct (schedules/ompi/direct.cpp): Open MPI 6's direct-messaging allgather.

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-direct: isend sbuf to rank + 1, rank + 2, ... all at once") {
  CHECK(table_text("ompi-direct", 3) == "0 -> 1; 0 -> 2; 1 -> 2; 1 -> 0; 2 -> 0; 2 -> 1");
}

TEST_CASE("ompi-direct: verifies with its claims (one phase, 2 (p - 1) requests), p up to 17") {
  int runs = 0;
  for (Rank p = 1; p <= 17; ++p) runs += check_verifies("ompi-direct", p);
  CHECK(runs == 34);
}

TEST_CASE("ompi-direct: a partner or an offset off by one at p = 6 is caught") {
  check_caught(off_by_one(program_of("ompi-direct", 6), 0, 2, false));
  check_caught(off_by_one(program_of("ompi-direct", 6), 0, 2, true));
}
