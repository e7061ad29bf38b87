#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "core/error.hpp"
#include "experiments/faraj_yuan_experiment.hpp"
#include "report/run_report.hpp"

// The experiment's machines and its text, without SimGrid: the simulations themselves are
// covered by tests/cli (whatif_experiment_*).

using namespace phasecheck;
namespace fs = std::filesystem;

namespace {

std::string example(const std::string& name) {
  return (fs::path(PHASECHECK_SOURCE_DIR) / "examples" / name / "topology.json").string();
}

}  // namespace

TEST_CASE("read_experiment_machines: trees named after their files, repeats numbered") {
  const std::string fig1 = example("faraj-yuan-fig1"), star = example("faraj-yuan-32-star");
  const auto machines = experiments::read_experiment_machines({fig1, star, fig1, fig1}, 8192);
  REQUIRE(machines.size() == 4);
  CHECK(machines[0].name == "faraj-yuan-fig1");
  CHECK(machines[1].name == "faraj-yuan-32-star");
  CHECK(machines[2].name == "faraj-yuan-fig1-2");
  CHECK(machines[3].name == "faraj-yuan-fig1-3");
  CHECK(machines[2].file == fig1);
  CHECK(std::get<Tree>(machines[1].model).ranks() == 32);
}

TEST_CASE("read_experiment_machines: a machine that is not a tree, or too large a message") {
  const std::string ring = example("ring-6");
  CHECK_THROWS_WITH_AS(experiments::read_experiment_machines({example("faraj-yuan-fig1"), ring}, 8),
                       (ring + ": the experiment needs tree topologies").c_str(), InputError);
  // 32 x 32 x 4 MiB = 4 GiB of messages.
  CHECK_THROWS_WITH_AS(
      experiments::read_experiment_machines({example("faraj-yuan-32-star")}, 4u << 20),
      doctest::Contains("on 32 ranks: 4 GiB of messages"), InputError);
}

TEST_CASE("faraj_yuan text: the heading, and a machine's line, table and notes") {
  experiments::FarajYuanQuestion q;
  q.bandwidth = "1Gbps";
  q.latency = "5us";
  CHECK(reports::faraj_yuan_heading(q) ==
        "Faraj & Yuan, Section 6 (Figs. 6-8), simulated by SimGrid: completion time of one "
        "MPI_Alltoall in ms, 1Gbps links, 5us latency, full-duplex fluid model; every byte "
        "checked for our schedules\n");

  const auto machines = experiments::read_experiment_machines({example("faraj-yuan-fig1")}, 8);
  Table table({{"algorithm", "algorithm"}, {"8K", "8K"}, {"16K", "16K"}});
  table.add({std::string("linear (LAM: post everything)"), 6.0, 11.9});
  table.add({std::string("SimGrid pair"), std::string("-"), std::string("-")});
  table.add({std::string("bound |Mu| |Mv| m / B"), 5.9, 11.8});
  const experiments::FarajYuanMachine m{
      machines[0],
      table,
      {{"linear (LAM: post everything)", {6.0, 11.9}}, {"SimGrid pair", {NAN, NAN}}},
      {{"SimGrid pair: Uncaught exception std::invalid_argument: powers of two", "8K, 16K"}},
      1.74};
  CHECK(reports::faraj_yuan_machine_text(m) ==
        "\nfaraj-yuan-fig1: tree(machines=6, switches=4), bottleneck s1 - s0 (3 x 3), simulated "
        "in 1.7 s wall time\n\n"
        "algorithm                      8K   16K\n"
        "linear (LAM: post everything)  6    11.9\n"
        "SimGrid pair                   -    -\n"
        "bound |Mu| |Mv| m / B          5.9  11.8\n"
        "  SimGrid pair: Uncaught exception std::invalid_argument: powers of two (at 8K, 16K)\n");
}
