// experiments/machine_bounds.hpp: a machine's lower bounds, and a tree's Faraj-Yuan figures.

#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "experiments/machine_bounds.hpp"
#include "io/json.hpp"

using namespace phasecheck;

namespace {

Topology example(const std::string& name) {
  return io::read_topology_file(
      (std::filesystem::path(PHASECHECK_SOURCE_DIR) / "examples" / name / "topology.json")
          .string());
}

}  // namespace

TEST_CASE("machine_bounds: Figure 1's tree, its bottleneck s1 - s0 and 9 phases") {
  const experiments::MachineBounds b =
      experiments::machine_bounds(example("faraj-yuan-fig1"), Collective::alltoall, 0);
  CHECK(b.topology == "tree(machines=6, switches=4)");
  CHECK(b.kind == "tree");
  CHECK(b.ranks == 6);
  CHECK(b.bounds.size() == 2);
  CHECK(b.direct_phases == 9);
  CHECK(b.c1 == 3);
  CHECK(b.c2 == 9);
  REQUIRE(b.tree);
  CHECK(b.tree->link_a == "s1");
  CHECK(b.tree->link_b == "s0");
  CHECK(b.tree->machines_a == 3);
  CHECK(b.tree->machines_b == 3);
  CHECK(b.tree->load == 9);
  CHECK(b.tree->peak_throughput_factor == doctest::Approx(30.0 / 9).scale(0));
  CHECK_FALSE(b.tree->peak_throughput);
  CHECK(b.tree->faraj_yuan == experiments::FarajYuanFigures{std::string("s1"), {3, 2, 1}, 9});
}

TEST_CASE("machine_bounds: a bandwidth gives the tree's peak throughput in bytes/s") {
  const experiments::MachineBounds b =
      experiments::machine_bounds(example("faraj-yuan-fig1"), Collective::alltoall, 12.5e6);
  REQUIRE(b.tree);
  CHECK(b.tree->bandwidth == 12.5e6);
  REQUIRE(b.tree->peak_throughput);
  CHECK(*b.tree->peak_throughput == doctest::Approx(30.0 / 9 * 12.5e6).scale(0));
}

TEST_CASE("machine_bounds: the 32-machine chain's subtrees, and no tree figures off a tree") {
  const experiments::MachineBounds chain =
      experiments::machine_bounds(example("faraj-yuan-32-chain"), Collective::alltoall, 0);
  REQUIRE(chain.tree);
  REQUIRE(chain.tree->faraj_yuan);
  CHECK(chain.tree->faraj_yuan->subtrees ==
        std::vector<std::uint64_t>{16, 8, 1, 1, 1, 1, 1, 1, 1, 1});
  CHECK(chain.tree->faraj_yuan->phases == 256);
  const experiments::MachineBounds cube =
      experiments::machine_bounds(example("hypercube-3"), Collective::alltoall, 0);
  CHECK_FALSE(cube.tree);
  CHECK(cube.ranks == 8);
}

TEST_CASE(
    "machine_bounds: seconds on a graph with bandwidths, or with --bandwidth on one without") {
  const Topology fixture = io::read_topology_file(
      (std::filesystem::path(PHASECHECK_SOURCE_DIR) / "tests/cli/seconds/two-node-bw.json")
          .string());
  const experiments::MachineBounds b =
      experiments::machine_bounds(fixture, Collective::alltoall, 0, 12.5e6);
  REQUIRE(b.seconds);
  CHECK(b.seconds->bandwidth == 0);  // the topology's own
  CHECK(b.seconds->per_byte.seconds == doctest::Approx(4 / 12.5e9).scale(0));
  REQUIRE(b.seconds->bound);
  CHECK(b.seconds->bound->seconds == doctest::Approx(4e-3).scale(0));
  // The topology gives the bandwidths: --bandwidth is refused, not mixed in.
  CHECK_THROWS_AS(experiments::machine_bounds(fixture, Collective::alltoall, 1e9), InputError);
  // A graph without bandwidths: --bandwidth B is every link's; without it, --bytes means nothing.
  const Topology xgmi = example("xgmi-8");
  CHECK_FALSE(experiments::machine_bounds(xgmi, Collective::alltoall, 0).seconds);
  const auto every = experiments::machine_bounds(xgmi, Collective::alltoall, 1e9);
  REQUIRE(every.seconds);
  CHECK(every.seconds->bandwidth == 1e9);
  // Every physical link B: a host's 7 ports carry 7 B, so its 7 blocks take 1 / B per byte.
  CHECK(every.seconds->per_byte.seconds == doctest::Approx(1 / 1e9).scale(0));
  CHECK_THROWS_AS(experiments::machine_bounds(xgmi, Collective::alltoall, 0, 1024), InputError);
  // A tree keeps its throughput figures, and nothing in seconds.
  CHECK_FALSE(experiments::machine_bounds(example("faraj-yuan-fig1"), Collective::alltoall, 12.5e6)
                  .seconds);
}
