// ompi-recursive-doubling (schedules/ompi/recursive_doubling.cpp): powers of two, else refused.

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-recursive-doubling: exchange with rank ^ d the d blocks held") {
  // p = 4: distance 1 swaps own blocks; distance 2: ranks 0 and 1 hold [0, 1], ranks 2 and 3 [2,
  // 3].
  CHECK(table_text("ompi-recursive-doubling", 4) ==
        "- | 0 -> 1; 1 -> 0; 2 -> 3; 3 -> 2 | "
        "0 -> 2 [0] [1]; 1 -> 3 [0] [1]; 2 -> 0 [2] [3]; 3 -> 1 [2] [3]");
}

TEST_CASE("ompi-recursive-doubling: verifies with its claims at p = 1 .. 64, powers of two") {
  int runs = 0;
  for (Rank p = 1; p <= 64; p *= 2) runs += check_verifies("ompi-recursive-doubling", p);
  CHECK(runs == 14);
}

TEST_CASE("ompi-recursive-doubling: other sizes are refused, naming Open MPI's fallback") {
  CHECK(refusal("ompi-recursive-doubling", 6) ==
        "ompi-recursive-doubling needs a power-of-two number of ranks (p = 6); Open MPI 4.1 falls "
        "back to bruck there (coll_base_allgather.c, ompi_coll_base_allgather_intra_bruck, "
        "which sends what ompi-bruck-k sends with radix 2)");
  CHECK_THROWS_AS(program_of("ompi-recursive-doubling", 4, with({{"collective", "alltoall"}})),
                  InputError);
}

TEST_CASE("ompi-recursive-doubling: a partner or an offset off by one at p = 8 is caught") {
  check_caught(off_by_one(program_of("ompi-recursive-doubling", 8), 2, 5, false));
  check_caught(off_by_one(program_of("ompi-recursive-doubling", 8), 3, 5, true));
}
