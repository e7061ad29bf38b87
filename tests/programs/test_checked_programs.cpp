// programs/checked_programs.hpp: per-rank programs built for each separation and replayed.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "programs/checked_programs.hpp"

using namespace phasecheck;

namespace {

Schedule fig1() {
  return pipeline::read_schedule_file((std::filesystem::path(PHASECHECK_SOURCE_DIR) / "examples" /
                                 "faraj-yuan-fig1" / "faraj-yuan.json")
                                    .string());
}

}  // namespace

TEST_CASE("check_programs: barrier and pairwise separation replay Figure 1 cleanly") {
  const Schedule table = fig1();
  const programs::CheckedPrograms barrier =
      programs::check_programs(table, programs::Separation::barrier, {}, {});
  CHECK(barrier.ok());
  CHECK(barrier.separation_name == "barrier");
  CHECK(barrier.programs.size() == 6);
  CHECK(barrier.operations == 148);
  CHECK_FALSE(barrier.synchronizations.has_value());
  CHECK(barrier.listings.empty());

  const programs::CheckedPrograms pairwise =
      programs::check_programs(table, programs::Separation::pairwise, {}, {3, 0});
  CHECK(pairwise.ok());
  CHECK(pairwise.synchronizations == 8);
  REQUIRE(pairwise.listings.size() == 2);
  CHECK(pairwise.listings[0].first == 3);  // in the order asked
  CHECK(pairwise.listings[1].first == 0);
  CHECK(pairwise.listings[0].second == programs::listing(pairwise.programs[3]));
}

TEST_CASE("check_programs: without separation contending messages overlap and the replay fails") {
  const programs::CheckedPrograms none =
      programs::check_programs(fig1(), programs::Separation::none, {}, {});
  CHECK(none.table.verdict() == verify::Verdict::pass);
  CHECK(none.replay.verdict == verify::Verdict::fail);
  CHECK_FALSE(none.ok());
}

TEST_CASE("check_programs: a listed rank the table does not have is bad input") {
  CHECK_THROWS_WITH_AS(programs::check_programs(fig1(), programs::Separation::barrier, {}, {9}),
                       "--rank 9: the schedule has 6 ranks", InputError);
}
