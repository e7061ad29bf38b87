// ompi-neighbor-exchange (schedules/ompi/neighbor_exchange.cpp): even p, else refused (ring).

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-neighbor-exchange: one block with neighbor[0], then pairs with alternating sides") {
  // p = 4: even ranks start with rank + 1, odd ones with rank - 1; step 1 the other side.
  CHECK(table_text("ompi-neighbor-exchange", 4) ==
        "- | 0 -> 1; 1 -> 0; 2 -> 3; 3 -> 2 | "
        "0 -> 3 [0] [1]; 1 -> 2 [0] [1]; 2 -> 1 [2] [3]; 3 -> 0 [2] [3]");
}

TEST_CASE("ompi-neighbor-exchange: verifies with its claims at every even p up to 20") {
  int runs = 0;
  for (Rank p = 2; p <= 20; p += 2) runs += check_verifies("ompi-neighbor-exchange", p);
  CHECK(runs == 20);
}

TEST_CASE("ompi-neighbor-exchange: odd p is refused, naming Open MPI's fallback") {
  CHECK(refusal("ompi-neighbor-exchange", 5) ==
        "ompi-neighbor-exchange needs an even number of ranks (p = 5); Open MPI 4.1 falls back to "
        "ring there (coll_base_allgather.c, ompi_coll_base_allgather_intra_ring; registered as "
        "ompi-ring)");
  CHECK(refusal("ompi-neighbor-exchange", 1).find("(p = 1)") != std::string::npos);
}

TEST_CASE("ompi-neighbor-exchange: a partner or an offset off by one at p = 8 is caught") {
  check_caught(off_by_one(program_of("ompi-neighbor-exchange", 8), 3, 2, false));
  check_caught(off_by_one(program_of("ompi-neighbor-exchange", 8), 3, 2, true));
}
