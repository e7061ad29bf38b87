// ompi-bruck-k (schedules/ompi/bruck_k.cpp): the radix-k Bruck allgather of Open MPI main/6.0.

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-bruck-k: k - 1 isends of rbuf[0 ..] per round, then the rotation") {
  // p = 5, k = 3: distance 1 sends the own block to rank - 1 and rank - 2; distance 3 sends
  // min(3, 5 - 3) = 2 blocks to rank - 3; the rotation's three copies send nothing.
  CHECK(
      table_text("ompi-bruck-k", 5, with({{"radix", "3"}})) ==
      "- | 0 -> 4; 0 -> 3; 1 -> 0; 1 -> 4; 2 -> 1; 2 -> 0; 3 -> 2; 3 -> 1; 4 -> 3; 4 -> 2 | "
      "0 -> 2 [0] [1]; 1 -> 3 [1] [2]; 2 -> 4 [2] [3]; 3 -> 0 [3] [4]; 4 -> 1 [4] [0] | - | - | -");
}

TEST_CASE("ompi-bruck-k: verifies with its claims for every radix at p up to 17") {
  int runs = 0;
  for (Rank p = 1; p <= 17; ++p)
    for (Rank k = 2; k <= std::max<Rank>(p, 2); ++k)
      runs += check_verifies("ompi-bruck-k", p, with({{"radix", std::to_string(k)}}));
  CHECK(runs > 200);
}

TEST_CASE("ompi-bruck-k: a partner or an offset off by one at p = 10, k = 3 is caught") {
  const Parameters k3 = with({{"radix", "3"}});
  check_caught(off_by_one(program_of("ompi-bruck-k", 10, k3), 2, 7, false));
  check_caught(off_by_one(program_of("ompi-bruck-k", 10, k3), 3, 7, true));
  CHECK_THROWS_AS(program_of("ompi-bruck-k", 10, with({{"radix", "1"}})), InputError);
}
