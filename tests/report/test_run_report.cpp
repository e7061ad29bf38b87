#include <doctest/doctest.h>

#include <string>

#include "experiments/mpi_run.hpp"
#include "report/run_report.hpp"

// The renderers of report/run_report.hpp on canned outcomes (no MPI needed).

using namespace phasecheck;

namespace {

experiments::RunOutcome simulated_fig1() {
  experiments::RunOutcome o;
  o.source = "examples/faraj-yuan-fig1/faraj-yuan.json";
  o.algorithm = "faraj-yuan";
  o.collective = Collective::alltoall;
  o.ranks = 6;
  o.separation = "barrier";
  o.table = verify::Verdict::pass;
  o.where = "simulated by SimGrid on tree(machines=6, switches=4), 100Mbps links, 10us latency";
  o.library = "MPI_Alltoall (SimGrid's default)";
  o.result = {.bytes = 65536,
              .repeats = 1,
              .errors = 0,
              .schedule_seconds = 0.04832,
              .library_seconds = 0.04727};
  o.throughput = experiments::Throughput{
      .schedule = 40.69, .library = 41.6, .peak_bound = 41.67, .exceeds_peak = false};
  return o;
}

}  // namespace

TEST_CASE("run_text: verdict, sizes, times and the throughput against the peak bound") {
  CHECK(reports::run_text(simulated_fig1()) ==
        "PASS  faraj-yuan (alltoall) on 6 ranks simulated by SimGrid on tree(machines=6, "
        "switches=4), 100Mbps links, 10us latency: every byte arrived as sent\n"
        "  65536 bytes per message, barrier separation, median of 1 calls (the slowest rank's "
        "time)\n"
        "  schedule verifies on its model\n"
        "  faraj-yuan: 48.32 ms per call\n"
        "  MPI_Alltoall (SimGrid's default): 47.27 ms per call (same run); ratio 1.022\n"
        "  aggregate throughput: faraj-yuan 40.69 MB/s, library 41.6 MB/s; peak bound |M| (|M| - "
        "1) B / (|Mu| |Mv|) = 41.67 MB/s\n");
}

TEST_CASE("run_text: wrong bytes, a buffer program, error lines and the '...' for more") {
  experiments::RunOutcome o = simulated_fig1();
  o.throughput.reset();
  o.where = "under Open MPI (mpirun, this machine)";
  o.library = "MPI_Alltoall";
  o.table = verify::Verdict::fail;
  o.buffers = BufferLayout{.chunks = 2, .input = 6, .output = 6, .scratch = 1};
  o.result = {.bytes = 1000,
              .chunk_bytes = 500,
              .repeats = 3,
              .errors = 3,
              .schedule_seconds = 0.001,
              .library_seconds = 0};
  o.error_lines = {"rank 4: block [0,4] never arrived", "rank 5: block [0,5] never arrived"};
  CHECK(reports::run_text(o) ==
        "FAIL  faraj-yuan (alltoall, buffer program) on 6 ranks under Open MPI (mpirun, this "
        "machine): 3 errors in the data over 3 calls\n"
        "  1000 bytes per message (2 chunks of 500 bytes; buffers of 6 + 6 + 1 chunks: input, "
        "output, scratch), barrier separation, median of 3 calls (the slowest rank's time)\n"
        "  schedule DOES NOT VERIFY on its model\n"
        "  faraj-yuan: 1 ms per call\n"
        "  MPI_Alltoall: 0 ms per call (same run); ratio 0\n"
        "  rank 4: block [0,4] never arrived\n"
        "  rank 5: block [0,5] never arrived\n"
        "  ...\n");
  // Exactly as many lines as errors: no "...".
  o.result.errors = 2;
  o.result.repeats = 1;
  const std::string text = reports::run_text(o);
  CHECK(text.find("2 errors in the data\n") != std::string::npos);
  CHECK(text.find("...") == std::string::npos);
}

TEST_CASE("run_text: a simulated throughput beyond the peak bound fails the run, not only a line") {
  experiments::RunOutcome o = simulated_fig1();
  o.throughput->exceeds_peak = true;
  // Every byte arrived, yet the run fails: the one verdict that text, JSON and the exit code say.
  CHECK(o.result.errors == 0);
  CHECK(o.verdict() == verify::Verdict::fail);
  CHECK_FALSE(o.ok());
  const std::string text = reports::run_text(o);
  CHECK(text.starts_with("FAIL  faraj-yuan (alltoall) on 6 ranks"));
  CHECK(text.ends_with(
      "  FAIL  faster than the peak bound: the simulated network is not this topology\n"));
  CHECK(reports::simulate_json(o)["verdict"] == "fail");
}

TEST_CASE("RunOutcome::verdict: data errors fail, a clean run passes") {
  experiments::RunOutcome o = simulated_fig1();
  CHECK(o.verdict() == verify::Verdict::pass);
  o.result.errors = 1;
  CHECK(o.verdict() == verify::Verdict::fail);
  CHECK(reports::run_text(o).starts_with("FAIL  "));
  CHECK(reports::run_json(o)["verdict"] == "fail");
}

TEST_CASE("run_json and simulate_json: the shapes of docs/formats.md") {
  experiments::RunOutcome o = simulated_fig1();
  const nlohmann::ordered_json run = reports::run_json(o);
  std::vector<std::string> keys;
  for (const auto& [key, value] : run.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"command", "verdict", "schedule", "algorithm",
                                         "collective", "ranks", "where", "bytes", "chunk_bytes",
                                         "separation", "repeats", "data_errors", "error_lines",
                                         "table", "seconds", "library", "ratio"});
  CHECK(run["command"] == "run");
  CHECK(run["verdict"] == "pass");
  CHECK(run["chunk_bytes"].is_null());
  CHECK(run["table"] == "pass");
  CHECK(run["seconds"]["schedule"] == 0.04832);
  CHECK(run["ratio"] == 0.04832 / 0.04727);

  nlohmann::ordered_json sim = reports::simulate_json(o);
  CHECK(sim["command"] == "simulate");
  CHECK(sim.back() == nlohmann::ordered_json({{"schedule", 40.69},
                                              {"library", 41.6},
                                              {"peak_bound", 41.67},
                                              {"exceeds_peak", false}}));
  o.throughput->exceeds_peak = true;
  sim = reports::simulate_json(o);
  CHECK(sim["verdict"] == "fail");
  CHECK(sim["data_errors"] == 0);
  // An allgather has no throughput bound: null. A library time of 0 has no ratio.
  o.throughput.reset();
  o.collective = Collective::allgather;
  o.result.library_seconds = 0;
  sim = reports::simulate_json(o);
  CHECK(sim["throughput_MBps"].is_null());
  CHECK(sim["ratio"].is_null());
  CHECK(sim["verdict"] == "pass");
}
