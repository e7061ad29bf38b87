// A phase read whole, checked against its header and (version 3) run to fill in its table
// (io/schedule_phases.hpp). The whole reader's messages are in test_schedule_json.cpp.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "helpers.hpp"
#include "io/json.hpp"
#include "io/schedule_phases.hpp"

using namespace phasecheck;
using testing::in;
using testing::out;

namespace {

struct Delivered {
  std::vector<Phase> phases;
  PhaseSink sink() {
    return [this](const Phase& p) { phases.push_back(p); };
  }
};

}  // namespace

TEST_CASE("phase delivery: a table's transfers without blocks get the direct message") {
  ScheduleHeader h = testing::header(Ring(3), Collective::allgather);
  Delivered got;
  const PhaseSink sink = got.sink();
  io::detail::PhaseDelivery delivery("p.json", h, io::Tables::derive, sink);
  Phase read("a");
  read.add(0, 1, std::vector<Block>{});  // "blocks" omitted, read before the header
  read.add(1, 2, std::vector<Block>{Block{0, kEveryRank}});
  delivery.deliver(read, 0, false);
  REQUIRE(got.phases.size() == 1);
  CHECK(got.phases[0] ==
        testing::phase("a", {{0, 1}, {1, 2, {Block{0, kEveryRank}}}}, Collective::allgather));
}

TEST_CASE("phase delivery: a phase that does not fit its header names the file and the place") {
  ScheduleHeader h = testing::header(Ring(3));
  Delivered got;
  const PhaseSink sink = got.sink();
  io::detail::PhaseDelivery delivery("p.json", h, io::Tables::derive, sink);
  Phase bad = testing::phase("a", {{0, 1}, {0, 7}});
  CHECK_THROWS_WITH(delivery.deliver(bad, 4, false),
                    doctest::Contains("p.json: phases[4].transfers[1]: "));
  Phase ops = testing::ops("o", {testing::copy(0, in(0), out(0))});
  CHECK_THROWS_WITH(delivery.deliver(ops, 2, true),
                    "p.json: phases[2]: has \"ops\", which need phasecheck.schedule/3");
  CHECK(got.phases.empty());
}

TEST_CASE("phase delivery: a program's table is derived unless the consumer runs it itself") {
  const Schedule program = testing::direct_program_3();
  for (const io::Tables tables : {io::Tables::derive, io::Tables::ops_only}) {
    Delivered got;
    const PhaseSink sink = got.sink();
    io::detail::PhaseDelivery delivery("p.json", program.header, tables, sink);
    for (std::size_t i = 0; i < program.phases.size(); ++i) {
      Phase phase = program.phases[i];
      delivery.deliver(phase, i, true);
    }
    REQUIRE(got.phases.size() == 2);
    CHECK(got.phases[1].ops().size() == 3);
    CHECK(got.phases[1].size() == (tables == io::Tables::derive ? 3u : 0u));
  }
}

TEST_CASE("phase delivery: a program's bad op and a phase of transfers are refused") {
  const Schedule program = testing::direct_program_3();
  Delivered got;
  const PhaseSink sink = got.sink();
  io::detail::PhaseDelivery delivery("p.json", program.header, io::Tables::derive, sink);
  Phase table = testing::phase("t", {{0, 1}});
  CHECK_THROWS_WITH(delivery.deliver(table, 0, false),
                    "p.json: phases[0]: has \"transfers\"; a version-3 phase has \"ops\"");
  Phase bad = testing::ops("o", {testing::send(0, 9, in(0), out(0))});
  CHECK_THROWS_WITH(delivery.deliver(bad, 1, true),
                    doctest::Contains("p.json: phases[1].ops[0]: "));
  CHECK(got.phases.empty());
}
