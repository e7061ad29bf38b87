// deploy/c_source.hpp: the C text of plans: names, determinism, comments a person can read.
#include "deploy/c_source.hpp"

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "helpers.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::deploy {
namespace {

using namespace phasecheck::testing;

Plan plan_of(const Schedule& s, std::string source) {
  Checked c = check(s, source, SyncChoice::automatic);
  REQUIRE_MESSAGE(c.plan, c.refusal);
  return *c.plan;
}

Plan hypercube_exchange(unsigned dimension) {
  return plan_of(
      schedules::generate(schedules::require_algorithm("hypercube-exchange"), Hypercube(dimension)),
      "hx" + std::to_string(dimension) + ".json");
}

TEST_CASE("c_identifier keeps letters, digits and underscores") {
  CHECK(c_identifier("hypercube-exchange") == "hypercube_exchange");
  CHECK(c_identifier("a b/c*1") == "a_b_c_1");
  CHECK(c_identifier("") == "schedule");
}

TEST_CASE("routine_names: phasecheck_<name>_<collective>, made unique by ranks, then a number") {
  const Plan a = hypercube_exchange(2), b = hypercube_exchange(3);
  CHECK(routine_names({a}) == std::vector<std::string>{"phasecheck_hypercube_exchange_alltoall"});
  CHECK(routine_names({a, b}) ==
        std::vector<std::string>{"phasecheck_hypercube_exchange_p4_alltoall",
                                 "phasecheck_hypercube_exchange_p8_alltoall"});
  CHECK(routine_names({a, a}) ==
        std::vector<std::string>{"phasecheck_hypercube_exchange_p4_alltoall",
                                 "phasecheck_hypercube_exchange_p4_2_alltoall"});
}

TEST_CASE("routine_source: one function per schedule, phases named in comments, same bytes twice") {
  const Plan p = hypercube_exchange(2);
  const std::string c = routine_source({p});
  CHECK(c == routine_source({p}));
  CHECK(c.find("int phasecheck_hypercube_exchange_alltoall(const void *sendbuf, int sendcount, "
               "MPI_Datatype sendtype, void *recvbuf,\n    int recvcount, MPI_Datatype recvtype, "
               "MPI_Comm comm) {") != std::string::npos);
  CHECK(c.find("/* rank 3, phase 1 \"step 2 (dimension 1)\" */") != std::string::npos);
  CHECK(c.find("#define PC_USE_ALLTOALL 1\n#define PC_USE_ALLGATHER 0\n") != std::string::npos);
  CHECK(c.find("static int pc_execute(") != std::string::npos);  // self-contained
  CHECK(c.find("int MPI_Alltoall(") == std::string::npos);       // no interposer in a routine
  CHECK(c.find("return PMPI_Alltoall(sendbuf") != std::string::npos);
}

TEST_CASE("routine_source: a label cannot end the comment it is printed in") {
  Schedule s = direct_program_3();
  s.phases[0].set_label("evil */ int x; /*\n");
  const std::string c = routine_source({plan_of(s, "evil.json")});
  CHECK(c.find("evil */") == std::string::npos);
  CHECK(c.find("evil * / int x; / *?") != std::string::npos);
}

TEST_CASE("interposer_source: the schedules' table and MPI_Alltoall, one schedule per size") {
  const Plan a = hypercube_exchange(2), b = hypercube_exchange(3);
  const std::string c = interposer_source({a, b});
  CHECK(c.find("static const pc_schedule *const pc_deployed[] = {&pc_0, &pc_1};") !=
        std::string::npos);
  CHECK(c.find("int MPI_Alltoall(const void *sendbuf") != std::string::npos);
  CHECK(c.find("int MPI_Allgather(const void *sendbuf") != std::string::npos);
  // Alltoall schedules only, and still both collectives compiled: MPI_Allgather falls back.
  CHECK(c.find("#define PC_USE_ALLTOALL 1\n#define PC_USE_ALLGATHER 1\n") != std::string::npos);
  CHECK_THROWS_WITH_AS(interposer_source({a, a}),
                       "hx2.json and hx2.json are both MPI_Alltoall on 4 ranks: deploy one "
                       "schedule per collective and communicator size",
                       InputError);
}

}  // namespace
}  // namespace phasecheck::deploy
