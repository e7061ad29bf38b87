// ompi-pairwise (schedules/ompi/pairwise.cpp): Open MPI's order, the self copy last and local.

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-pairwise: step s sends to rank + s, the local copy is the last step") {
  // p = 3 from coll_base_alltoall.c: step 1 to rank + 1, step 2 to rank + 2, step 3 to itself.
  CHECK(table_text("ompi-pairwise", 3) == "0 -> 1; 1 -> 2; 2 -> 0 | 0 -> 2; 1 -> 0; 2 -> 1 | -");
  const Schedule program = program_of("ompi-pairwise", 3);
  REQUIRE(program.phases.size() == 3);
  for (const BufferOp& op : program.phases.back().ops()) CHECK(op.local());
}

TEST_CASE("ompi-pairwise: verifies with its claims (p phases, C2 = p - 1) at every p up to 17") {
  int runs = 0;
  for (Rank p = 1; p <= 17; ++p) runs += check_verifies("ompi-pairwise", p);
  CHECK(runs == 34);
  CHECK_THROWS_AS(program_of("ompi-pairwise", 4, with({{"collective", "allgather"}})), InputError);
}

TEST_CASE("ompi-pairwise: a partner or an offset off by one at p = 6 is caught") {
  check_caught(off_by_one(program_of("ompi-pairwise", 6), 2, 4, false));
  check_caught(off_by_one(program_of("ompi-pairwise", 6), 2, 4, true));
}
