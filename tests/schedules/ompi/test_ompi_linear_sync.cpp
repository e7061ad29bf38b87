// ompi-linear-sync (schedules/ompi/linear_sync.cpp): N irecvs and N isends at a time.

#include "schedules/ompi/ompi_models.hpp"

using namespace phasecheck;
using namespace phasecheck::testing::ompi;

TEST_CASE("ompi-linear-sync: isends to rank - 1, rank - 2, ... in batches of max_requests") {
  // p = 4, N = 2: the self copy, then requests 1..2 (rank - 1, rank - 2), then request 3.
  CHECK(table_text("ompi-linear-sync", 4, with({{"max_requests", "2"}})) ==
        "- | 0 -> 3; 0 -> 2; 1 -> 0; 1 -> 3; 2 -> 1; 2 -> 0; 3 -> 2; 3 -> 1 | "
        "0 -> 1; 1 -> 2; 2 -> 3; 3 -> 0");
  // Open MPI's default 0 (and any N >= p - 1) posts everything at once.
  CHECK(table_text("ompi-linear-sync", 3) == "- | 0 -> 2; 0 -> 1; 1 -> 0; 1 -> 2; 2 -> 1; 2 -> 0");
  CHECK(table_text("ompi-linear-sync", 3, with({{"max_requests", "3"}})) ==
        table_text("ompi-linear-sync", 3));
}

TEST_CASE("ompi-linear-sync: verifies with its claims, requests at most 2 N, p up to 13") {
  int runs = 0;
  for (Rank p = 1; p <= 13; ++p)
    for (Rank n = 0; n <= p; n += 2)
      runs += check_verifies("ompi-linear-sync", p, with({{"max_requests", std::to_string(n)}}));
  CHECK(runs > 50);
  const auto h = header_of("ompi-linear-sync", 9, with({{"max_requests", "3"}}));
  const Claims c = schedules::claims_for(h);
  REQUIRE(c.max_requests);
  CHECK(c.max_requests->at_most == 6);
  REQUIRE(c.phases);
  CHECK(c.phases->at_most == 1 + 3);  // the copy, then ceil(8 / 3) batches
}

TEST_CASE("ompi-linear-sync: a batch over the request limit fails the requests check") {
  // The claims of N = 2 held against the schedule of N = 3: some rank has 6 requests out.
  Schedule wide = program_of("ompi-linear-sync", 7, with({{"max_requests", "3"}}));
  const Claims narrow =
      schedules::claims_for(header_of("ompi-linear-sync", 7, with({{"max_requests", "2"}})));
  const verify::Report r = verify::verify(wide, wide.header.topology, narrow);
  CHECK_FALSE(r.passed(CheckId::requests));
}

TEST_CASE("ompi-linear-sync: a partner or an offset off by one at p = 7 is caught") {
  check_caught(
      off_by_one(program_of("ompi-linear-sync", 7, with({{"max_requests", "2"}})), 2, 3, false));
  check_caught(
      off_by_one(program_of("ompi-linear-sync", 7, with({{"max_requests", "2"}})), 2, 3, true));
}
