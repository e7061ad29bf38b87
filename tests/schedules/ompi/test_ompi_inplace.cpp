// ompi-inplace (schedules/ompi/inplace.cpp): MPI_IN_PLACE alltoall through one block of scratch.

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-inplace: round i sends rbuf[left] to left, then the packed rbuf[right] to right") {
  // p = 4: round 1 to rank - 1 then rank + 1; round 2 has left == right: the pack, then one send.
  CHECK(table_text("ompi-inplace", 4) ==
        "0 -> 3; 1 -> 0; 2 -> 1; 3 -> 2 | 0 -> 1; 1 -> 2; 2 -> 3; 3 -> 0 | - | "
        "0 -> 2; 1 -> 3; 2 -> 0; 3 -> 1");
  const Schedule program = program_of("ompi-inplace", 4);
  REQUIRE(program.header.buffers);
  CHECK(program.header.buffers->inplace);
  CHECK(program.header.buffers->input == 0);
  CHECK(program.header.buffers->scratch == 1);
  CHECK(schedules::require_algorithm("ompi-inplace").in_place);
}

TEST_CASE("ompi-inplace: verifies with its claims (2 floor(p/2) phases, C2 = p - 1), p up to 17") {
  int runs = 0;
  for (Rank p = 1; p <= 17; ++p) runs += check_verifies("ompi-inplace", p);
  CHECK(runs == 34);
}

TEST_CASE("ompi-inplace: a partner or an offset off by one at p = 7 is caught") {
  check_caught(off_by_one(program_of("ompi-inplace", 7), 3, 2, false));
  check_caught(off_by_one(program_of("ompi-inplace", 7), 2, 2, true));
}
