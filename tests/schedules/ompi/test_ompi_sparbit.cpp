// ompi-sparbit (schedules/ompi/sparbit.cpp): Open MPI 5's Sparbit allgather.

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-sparbit: halving distances, the excluded block left out") {
  // p = 3: distance 2 sends the own block; distance 1 would send two, less the exclusion (bit 0
  // of ignore_steps is set for p = 3): the own block again.
  CHECK(table_text("ompi-sparbit", 3) == "- | 0 -> 2; 1 -> 0; 2 -> 1 | 0 -> 1; 1 -> 2; 2 -> 0");
  // p = 4: no exclusion; distance 1 forwards the own block and the one got from rank - 2.
  CHECK(table_text("ompi-sparbit", 4) ==
        "- | 0 -> 2; 1 -> 3; 2 -> 0; 3 -> 1 | "
        "0 -> 1 [0] [2]; 1 -> 2 [1] [3]; 2 -> 3 [2] [0]; 3 -> 0 [3] [1]");
}

TEST_CASE("ompi-sparbit: verifies with its claims at every p up to 33") {
  int runs = 0;
  for (Rank p = 1; p <= 33; ++p) runs += check_verifies("ompi-sparbit", p);
  CHECK(runs == 66);
}

TEST_CASE("ompi-sparbit: a partner or an offset off by one at p = 11 is caught") {
  check_caught(off_by_one(program_of("ompi-sparbit", 11), 2, 4, false));
  check_caught(off_by_one(program_of("ompi-sparbit", 11), 3, 4, true));
}
