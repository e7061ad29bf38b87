// The MSCCL execution model (core/msccl.hpp): its events, connections, waits and layers, and
// its memory charged before work. Its checkers are tested in tests/verify/test_msccl_execution.cpp.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/msccl.hpp"
#include "msccl_builders.hpp"

using namespace phasecheck;
using namespace phasecheck::testing;

namespace {

using Execution = msccl::Execution;
using Kind = Execution::EventKind;

}  // namespace

TEST_CASE("msccl: the steps' own state is charged before the events are built") {
  std::string steps;
  for (int s = 0; s < 100; ++s) steps += step(s, "cpy", "i0", "o0");
  const std::string xml = algo(1, gpu(0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"", tb(0, -1, -1, steps)));
  with_memory_limit(10000, [&] {
    CHECK_THROWS_WITH_AS(lower(xml),
                         "t.xml: the execution model of 100 steps (512 bytes a step) needs 50 KiB, "
                         "more than the memory limit of 9.77 KiB (raise it with --max-memory)",
                         InputError);
  });
}


TEST_CASE("msccl::Execution: a send meets the receive of its connection, the receive waits for it") {
  const msccl::Program p = io::parse_msccl(exchange_2(), "t.xml");
  const Execution x(p, "t.xml", msccl::Placement::out_of_place);
  REQUIRE(x.events().size() == 6);
  CHECK(x.unreleased().empty());
  // Two connections, 0 -> 1 and 1 -> 0, in that order, one message each.
  REQUIRE(x.connections().size() == 2);
  const Execution::Connection& there = x.connections()[0];
  CHECK(there.from == 0);
  CHECK(there.to == 1);
  REQUIRE(there.sends.size() == 1);
  REQUIRE(there.receives.size() == 1);
  const std::uint32_t s = there.sends[0], r = there.receives[0];
  CHECK(x.events()[s].kind == Kind::send);
  CHECK(x.events()[r].kind == Kind::receive);
  CHECK(x.events()[s].partner == r);
  CHECK(x.events()[r].partner == s);
  CHECK(x.name(s) == "gpu 0 tb 0 step 0");
  CHECK(x.describe(r) == "gpu 1 tb 0 step 0 (receive from gpu 0)");
  // Gpu 0's send meets gpu 1's receive (layer 1), gpu 1 sends back after it (2), gpu 0 receives
  // that (3): four layers, the copies in the first, each a phase.
  CHECK(x.level(s) == 0);
  CHECK(x.level(r) == 1);
  CHECK(x.order().size() == 6);
  CHECK(x.phase_of_level(3) == 3);
  const Schedule lowered = x.emit({});
  CHECK(lowered.phases.size() == 4);
  CHECK(lowered.header.imported->faults.empty());
  CHECK(lowered.header.imported->summary ==
        "6 steps in 4 threadblocks on 2 gpus, 1 channel, out of place");
}

TEST_CASE("msccl::Execution: what never runs is blocked and unreached, the dependency it names kept") {
  // Gpu 0 sends twice to gpu 1, which receives once; gpu 1's copy waits for a step that never
  // signals.
  const std::string xml = algo(
      2, gpu(0, k2x2,
             tb(0, 1, -1, step(0, "s", "i1", "o0") + step(1, "s", "i1", "o0")) +
                 tb(1, -1, -1, step(0, "cpy", "i0", "o0"))) +
             gpu(1, k2x2,
                 tb(0, -1, 0, step(0, "r", "i0", "o0")) +
                     tb(1, -1, -1, step(0, "cpy", "i1", "o1", "1", 0, 0, 0))));
  const msccl::Program p = io::parse_msccl(xml, "t.xml");
  const Execution x(p, "t.xml", msccl::Placement::out_of_place);
  REQUIRE(x.connections().size() == 1);
  const std::uint32_t second = x.connections()[0].sends.at(1);
  CHECK(x.events()[second].blocked);
  CHECK(x.events()[second].partner == Execution::kNone);
  CHECK(x.level(second) == Execution::kUnreached);
  REQUIRE(x.unreleased().size() == 1);
  const Execution::Unreleased& u = x.unreleased()[0];
  CHECK(x.name(u.waiter) == "gpu 1 tb 1 step 0");
  CHECK(u.waited == StepRef{1, 0, 0});
  CHECK(x.level(u.waiter) == Execution::kUnreached);
  CHECK(x.order().size() == x.events().size() - 2);
}

TEST_CASE("msccl::Execution: an alltoall in place and a step that reduces are refused") {
  const msccl::Program p = io::parse_msccl(exchange_2(), "t.xml");
  CHECK_THROWS_WITH_AS(Execution(p, "t.xml", msccl::Placement::in_place),
                       "t.xml: an alltoall cannot be judged in place (inplace=\"1\" only)",
                       InputError);
  const std::string reduce =
      algo(1, gpu(0, "i_chunks=\"1\" o_chunks=\"1\" s_chunks=\"0\"",
                  tb(0, -1, -1, step(0, "re", "i0", "o0"))));
  CHECK_THROWS_WITH_AS(lower(reduce), doctest::Contains("type=\"re\" reduces"), InputError);
}
