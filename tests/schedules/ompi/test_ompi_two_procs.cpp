// ompi-two-procs (schedules/ompi/two_procs.cpp): one sendrecv, p = 2 only.

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-two-procs: one exchange with rank ^ 1, then the local copy, both collectives") {
  CHECK(table_text("ompi-two-procs", 2) == "0 -> 1; 1 -> 0 | -");
  CHECK(table_text("ompi-two-procs", 2, with({{"collective", "allgather"}})) ==
        "0 -> 1; 1 -> 0 | -");
  CHECK(check_verifies("ompi-two-procs", 2) == 2);
  CHECK(check_verifies("ompi-two-procs", 2, with({{"collective", "allgather"}})) == 2);
}

TEST_CASE("ompi-two-procs: other sizes are refused as Open MPI refuses them") {
  for (Rank p : {1u, 3u, 4u}) {
    const std::string why = refusal("ompi-two-procs", p);
    CHECK(why.find("exactly 2 ranks (p = " + std::to_string(p) + ")") != std::string::npos);
    CHECK(why.find("MPI_ERR_UNSUPPORTED_OPERATION") != std::string::npos);
  }
  CHECK(refusal("ompi-two-procs", 3, with({{"collective", "allgather"}}))
            .find("coll_base_allgather.c") != std::string::npos);
}

TEST_CASE("ompi-two-procs: an offset off by one is caught") {
  check_caught(off_by_one(program_of("ompi-two-procs", 2), 0, 0, true));
  check_caught(
      off_by_one(program_of("ompi-two-procs", 2, with({{"collective", "allgather"}})), 0, 1, true));
}
