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

TEST_CASE("phase delivery: direct messages are judged as transfer_problem judges them") {
  // The shortcut for direct messages between ranks that exist, against the whole rule: what it
  // lets through, the first transfer it does not take (and those after it), an alltoallv's
  // message of no elements, an allgather's.
  struct Case {
    std::string name;
    ScheduleHeader header;
    Phase phase;
    std::string error;  ///< empty: delivered as it is
  };
  ScheduleHeader v = testing::header(FullyConnected(3, 1));
  Traffic traffic = uniform_traffic(3, 1);
  traffic.counts[0 * 3 + 2] = 0;
  v.traffic = SharedTraffic(traffic);
  const ScheduleHeader gather = testing::header(FullyConnected(3, 1), Collective::allgather);
  const std::vector<Case> cases = {
      {"direct", testing::header(FullyConnected(3, 1)), testing::phase("a", {{0, 1}, {2, 2}}), ""},
      {"a rank past the last, after direct ones", testing::header(FullyConnected(3, 1)),
       testing::phase("a", {{0, 1}, {2, 0}, {3, 0}}),
       "p.json: phases[0].transfers[2]: rank 3 does not exist (ranks: 3)"},
      {"a block of another message, then a bad rank", testing::header(FullyConnected(3, 1)),
       testing::phase("a", {{0, 1, {Block{2, 1}}}, {0, 5}}),
       "p.json: phases[0].transfers[1]: rank 5 does not exist (ranks: 3)"},
      {"an alltoallv's empty message", v, testing::phase("a", {{0, 1}, {0, 2}}),
       "p.json: phases[0].transfers[1]: block [0,2]: counts[0][2] is 0: no message, no block"},
      {"an allgather's direct messages", gather,
       testing::phase("a", {{0, 1}, {1, 2}}, Collective::allgather), ""},
      {"an alltoall block in an allgather", gather, testing::phase("a", {{0, 1}}),
       "p.json: phases[0].transfers[0]: block [0,1] is not a block of an allgather over 3 ranks "
       "([origin])"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    Delivered got;
    const PhaseSink sink = got.sink();
    io::detail::PhaseDelivery delivery("p.json", c.header, io::Tables::derive, sink);
    Phase phase = c.phase;
    if (c.error.empty()) {
      delivery.deliver(phase, 0, false);
      REQUIRE(got.phases.size() == 1);
      CHECK(got.phases[0] == c.phase);
    } else {
      CHECK_THROWS_WITH(delivery.deliver(phase, 0, false), c.error.c_str());
      CHECK(got.phases.empty());
    }
  }
}
