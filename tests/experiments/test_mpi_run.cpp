#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/networks.hpp"
#include "experiments/mpi_run.hpp"
#include "io/json.hpp"
#include "launch/process.hpp"
#include "schedules/registry.hpp"

using namespace phasecheck;
namespace fs = std::filesystem;

namespace {

std::string good(const std::string& name) {
  return (fs::path(PHASECHECK_SOURCE_DIR) / "tests" / "cli" / "good" / name).string();
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("check_run_volume: all ranks' messages up to 2 GiB, one byte more is refused") {
  // 256 ranks x 256 x 32 KiB is exactly 2 GiB.
  CHECK_NOTHROW(experiments::check_run_volume(256, 32768));
  CHECK_NOTHROW(experiments::check_run_volume(2, 1 << 26));
  CHECK_THROWS_WITH_AS(experiments::check_run_volume(256, 65536),
                       "--bytes 65536 on 256 ranks: 4 GiB of messages, more than the 2 GiB a run "
                       "may use",
                       InputError);
  CHECK_THROWS_AS(experiments::check_run_volume(256, 32769), InputError);
}

TEST_CASE("read_runnable: the size check sees the header first, buffers must fit in a run") {
  const std::string path = good("v3-scratch-rotation.json");  // 3 ranks, 1 chunk, 3 + 3 + 2 slots
  Rank seen = 0;
  const Schedule s = experiments::read_runnable(path, 100, [&](const ScheduleHeader& h) {
    seen = h.ranks();
    CHECK(h.buffers);
  });
  CHECK(seen == 3);
  CHECK(s.header.buffers);
  CHECK_FALSE(s.phases.empty());
  // The check_size refusal comes before anything else.
  CHECK_THROWS_WITH_AS(
      experiments::read_runnable(path, 100,
                                 [](const ScheduleHeader&) { throw InputError("too many ranks"); }),
      doctest::Contains("too many ranks"), InputError);
  // 3 ranks x 8 slots x 10^8 bytes = 2.235 GiB of buffers.
  CHECK_THROWS_WITH_AS(
      experiments::read_runnable(path, 100000000, [](const ScheduleHeader&) {}),
      doctest::Contains("--bytes 100000000: the buffers of 3 ranks take 2.235 GiB, "
                        "more than the 2 GiB a run may use"),
      InputError);
}

TEST_CASE("write_run_programs: the verdict on the judge and the programs file for the runner") {
  const launch::ScratchDirectory scratch;
  const Topology tree = io::read_topology_file(
      (fs::path(PHASECHECK_SOURCE_DIR) / "examples" / "faraj-yuan-fig1" / "topology.json")
          .string());
  const auto& faraj_yuan = *schedules::find_algorithm("faraj-yuan");
  const Schedule table = schedules::generate(faraj_yuan, tree, {});
  const std::string plan = scratch.file("programs.json");
  const verify::Report report = experiments::write_run_programs(
      table, "fy.json", "pairwise", nullptr, faraj_yuan.claims(table.header), plan);
  CHECK(report.verdict() == verify::Verdict::pass);
  const std::string written = slurp(plan);
  CHECK(written.find("\"format\": \"phasecheck.programs/2\"") != std::string::npos);
  CHECK(written.find("\"separation\": \"pairwise\"") != std::string::npos);
  CHECK(written.find("\"schedule\": \"fy.json\"") != std::string::npos);

  // shift contends on this tree: the verdict says so, and the programs are written all the same
  // (the runner shows what the bytes do).
  const auto& shift = *schedules::find_algorithm("shift");
  const Schedule contending = schedules::generate(shift, tree, {});
  const std::string shift_plan = scratch.file("shift.json");
  CHECK(experiments::write_run_programs(contending, "shift.json", "barrier", &tree,
                                        shift.claims(contending.header), shift_plan)
            .verdict() == verify::Verdict::fail);
  CHECK(slurp(shift_plan).find("\"separation\": \"barrier\"") != std::string::npos);

  // A separation the programs do not know, and a judge of another size: InputError, the latter
  // naming the schedule; no programs written.
  CHECK_THROWS_AS(experiments::write_run_programs(table, "fy.json", "fence", nullptr, {},
                                                  scratch.file("fence.json")),
                  InputError);
  const Topology other = FullyConnected(5, 1);  // the schedule has 6 ranks
  CHECK_THROWS_WITH_AS(experiments::write_run_programs(table, "fy.json", "none", &other, {},
                                                       scratch.file("other.json")),
                       doctest::Contains("fy.json: "), InputError);
  CHECK_FALSE(fs::exists(scratch.file("other.json")));
}

TEST_CASE("check_simulated_tree: 256 machines and 256 switches, refused beyond either") {
  const std::vector<std::uint64_t> fanout_256 = {16, 16}, fanout_257 = {257};
  CHECK_NOTHROW(experiments::check_simulated_tree(tree_network(fanout_256), "simulate"));
  CHECK_THROWS_WITH_AS(experiments::check_simulated_tree(tree_network(fanout_257), "simulate"),
                       "simulate works on at most 256 ranks; this machine has 257 (`verify "
                       "--topology` judges a schedule on any tree)",
                       InputError);
  // A chain of 300 switches above two machines: SimGrid's routing is cubic in the nodes.
  std::vector<std::uint64_t> chain(300, 1);
  chain.back() = 2;
  CHECK_THROWS_WITH_AS(
      experiments::check_simulated_tree(tree_network(chain), "whatif experiment"),
      doctest::Contains(
          "whatif experiment works on trees of at most 256 switches; this one has 300"),
      InputError);
}

TEST_CASE("write_run_programs: what the runners would hold is refused before the programs") {
  // 256 ranks and 20,000 phases of one message: with a barrier in each, 5,200,000 operations,
  // which the 256 runners would hold as about 2.5 GiB.
  Schedule sparse{ScheduleHeader{}, {}};
  sparse.header.topology = FullyConnected(256, 1);
  for (std::uint32_t i = 0; i < 20000; ++i) {
    Phase p("p");
    const Rank src = i % 256, dst = (i + 1) % 256;
    p.add(src, dst, direct_block(Collective::alltoall, src, dst));
    sparse.phases.push_back(std::move(p));
  }
  const launch::ScratchDirectory scratch;
  CHECK_THROWS_WITH_AS(experiments::write_run_programs(sparse, "sparse.json", "barrier", nullptr,
                                                       {}, scratch.file("barrier.json")),
                       doctest::Contains("sparse.json: the programs of 256 ranks have 5200000 "
                                         "operations (a barrier for every rank in each of 20000 "
                                         "phases; --sync none has none): their runners would "
                                         "hold 2.48"),
                       InputError);
  CHECK_FALSE(fs::exists(scratch.file("barrier.json")));
  // Without barriers: 80,000 operations, written (the table does not deliver: the verdict says so).
  CHECK(experiments::write_run_programs(sparse, "sparse.json", "none", nullptr, {},
                                        scratch.file("none.json"))
            .verdict() == verify::Verdict::fail);
  CHECK(fs::exists(scratch.file("none.json")));
}

TEST_CASE("RunOutcome::ok: no wrong byte and no simulated throughput beyond the peak bound") {
  experiments::RunOutcome o;
  o.result.errors = 0;
  CHECK(o.ok());
  o.throughput = experiments::Throughput{.schedule = 40, .library = 41, .peak_bound = 41.67};
  CHECK(o.ok());
  o.throughput->exceeds_peak = true;
  CHECK_FALSE(o.ok());
  o.throughput.reset();
  o.result.errors = 2;
  CHECK_FALSE(o.ok());
}
