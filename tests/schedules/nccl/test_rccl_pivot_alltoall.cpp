#include <doctest/doctest.h>

#include <algorithm>

#include "core/error.hpp"
#include "core/networks.hpp"
#include "io/json.hpp"
#include "schedules/nccl/mi250x.hpp"
#include "schedules/nccl/nccl_test_support.hpp"
#include "schedules/nccl/pivot_alltoall.hpp"

using namespace phasecheck;
using namespace phasecheck::schedules::nccl;
using namespace phasecheck::testing::nccl;

namespace {

const Phase& labelled(const std::vector<Phase>& phases, const std::string& label) {
  const auto it = std::find_if(phases.begin(), phases.end(),
                               [&](const Phase& p) { return p.label() == label; });
  REQUIRE(it != phases.end());
  return *it;
}

/// The blocks of the transfers src -> dst of `phase`, in order.
std::vector<Block> carried(const Phase& phase, Rank src, Rank dst) {
  std::vector<Block> out;
  for (const Transfer& t : phase.transfers())
    if (t.src == src && t.dst == dst)
      for (const Block& b : phase.blocks(t)) out.push_back(b);
  return out;
}

}  // namespace

TEST_CASE("the MI250X model: 16 GCDs, 7 xGMI links each, every ring step a link") {
  const Graph g = mi250x_16();
  CHECK(g.ranks() == 16);
  for (const RingOrder& ring : mi250x_rings())
    for (Rank i = 0; i < 16; ++i) CHECK(g.distance(ring[i], ring[(i + 1) % 16]) == 1);
  // The file the command line takes is the same machine.
  CHECK(io::read_topology_file(PHASECHECK_SOURCE_DIR
                               "/tests/schedules/nccl/mi250x-16/topology.json") == Topology(g));
}

TEST_CASE("rccl-pivot-alltoall: the order alltoall_pivot.h's hop loop gives, on ring 0 and 3") {
  std::vector<Phase> phases;
  emit_pivot_alltoall([](Rank, Rank step) { return step; }, collect_into(phases));
  REQUIRE(phases.size() == kPivotPhases);
  // Ring 0 is 0 1 3 2 6 7 15 14 10 11 9 8 12 13 5 4; channel 3 runs it reversed.
  const Phase& hop1 = labelled(phases, "hops 1, step 0");
  // 0 -> 1 is a step of ring 0 (chunk 0), ring 1 (chunk 1) and ring 2 reversed (chunk 2).
  CHECK(carried(hop1, 0, 1) ==
        std::vector<Block>{{0, 1, 0}, {0, 1, 1}, {0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 1, 5}});
  // 0 -> 4: rings 0 and 1 reversed.
  CHECK(carried(hop1, 0, 4) == std::vector<Block>{{0, 4, 0}, {0, 4, 1}, {0, 4, 2}, {0, 4, 3}});
  // At 3 hops, step 2, GCD 3 (ring 0 position 2) forwards what GCD 0 sent to GCD 2.
  CHECK(carried(labelled(phases, "hops 3, step 2"), 3, 2).front() == Block{0, 2, 0});
  // The pivot: 8 hops either way reach GCD 10 from GCD 0; each way carries half of chunk 0.
  const Phase& pivot = labelled(phases, "hops 8, step 0");
  CHECK(carried(pivot, 0, 4).front() == Block{0, 10, 1});
  CHECK(carried(pivot, 0, 1) == std::vector<Block>{{0, 10, 0}, {0, 8, 2}, {0, 10, 5}});
}

TEST_CASE("rccl-pivot-alltoall verifies on the MI250X with its claims, program included") {
  const Topology machine = mi250x_16();
  const auto r = verify_row("rccl-pivot-alltoall", machine);
  CHECK_MESSAGE(r.verdict() == verify::Verdict::pass, failed_checks(r));
  CHECK(r.passed(CheckId::contention));
  CHECK(r.passed(CheckId::claims));
  CHECK(r.counts.phases == kPivotPhases);
  const auto program = verify_program("rccl-pivot-alltoall", machine);
  CHECK_MESSAGE(program.verdict() == verify::Verdict::pass, failed_checks(program));
  CHECK(program.passed(CheckId::placement));
}

TEST_CASE("rccl-pivot-alltoall refuses any other machine, naming what RCCL does there") {
  CHECK_THROWS_WITH_AS(verify_row("rccl-pivot-alltoall", FullyConnected(16, 1)),
                       doctest::Contains("grouped send/recv (nccl-p2p-alltoall)"), InputError);
  CHECK_THROWS_WITH_AS(verify_row("rccl-pivot-alltoall", Topology(xgmi(8))),
                       doctest::Contains("16-GCD MI250X"), InputError);
}

TEST_CASE("rccl-pivot-alltoall mutant: the origin one position off at one step fails delivery") {
  const auto& a = row("rccl-pivot-alltoall");
  const ScheduleHeader h = schedules::make_header(a, mi250x_16(), {});
  Schedule mutant{h, {}};
  emit_pivot_alltoall([](Rank hops, Rank step) { return hops == 5 && step == 2 ? 3 : step; },
                      collect_into(mutant.phases));
  const auto r = verify::verify(mutant, h.topology, a.claims(h));
  CHECK(r.verdict() == verify::Verdict::fail);
  CHECK_FALSE(r.passed(CheckId::delivery));
}
