#include <doctest/doctest.h>

#include <algorithm>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "launch/runner.hpp"

using namespace phasecheck;
using launch::Finished;
using launch::Launched;
using launch::RunnerJob;
using launch::RunnerResult;

namespace {

using Args = std::vector<std::string>;

/// What a launcher that exited with `status` left behind.
Launched launched(std::string out, std::string err = "", int status = 0) {
  Finished f;
  f.status = status;
  f.out = std::move(out);
  f.err = std::move(err);
  return {"smpirun", 60, f};
}

const RunnerJob kJob{
    .runner = "/opt/runner", .plan = "/tmp/p/programs.json", .bytes = 4096, .repeats = 3};

}  // namespace

TEST_CASE("runner_arguments: plan, size and repeats, --only only when asked") {
  CHECK(launch::runner_arguments(kJob) ==
        Args{"/opt/runner", "/tmp/p/programs.json", "--bytes", "4096", "--repeats", "3"});
  RunnerJob library = kJob;
  library.only = "library";
  CHECK(launch::runner_arguments(library) == Args{"/opt/runner", "/tmp/p/programs.json", "--bytes",
                                                  "4096", "--repeats", "3", "--only", "library"});
}

TEST_CASE("mpirun_command: Open MPI as root, oversubscribed, shared memory, timeout rounded up") {
  CHECK(launch::mpirun_command(6, 299.2, kJob) ==
        Args{"mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml", "ob1", "--mca",
             "btl", "self,vader", "-np", "6", "--timeout", "300", "/opt/runner",
             "/tmp/p/programs.json", "--bytes", "4096", "--repeats", "3"});
  // A whole number of seconds stays as it is.
  CHECK(launch::mpirun_command(2, 10, kJob)[12] == "10");
}

TEST_CASE("smpirun_command: the fluid full-duplex model, library and trace only when given") {
  launch::SmpirunOptions o{.ranks = 6, .platform = "/s/platform.xml", .hostfile = "/s/hosts.txt"};
  const Args base = {"smpirun",
                     "-np",
                     "6",
                     "-platform",
                     "/s/platform.xml",
                     "-hostfile",
                     "/s/hosts.txt",
                     "--cfg=smpi/simulate-computation:no",
                     "--cfg=network/crosstraffic:0",
                     "--cfg=smpi/bw-factor:0:1",
                     "--cfg=smpi/lat-factor:0:1",
                     "--log=root.thres:critical"};
  Args expected = base;
  for (const auto& a : launch::runner_arguments(kJob)) expected.push_back(a);
  CHECK(launch::smpirun_command(o, kJob) == expected);

  o.library = "ring";
  o.trace = "/out/ring.trace";
  RunnerJob schedule_only = kJob;
  schedule_only.only = "schedule";
  expected = base;
  for (const std::string a :
       {"--cfg=smpi/alltoall:ring", "--cfg=tracing:yes", "--cfg=tracing/smpi:yes",
        "--cfg=tracing/smpi/internals:yes", "--cfg=tracing/filename:/out/ring.trace"})
    expected.push_back(a);
  for (const auto& a : launch::runner_arguments(schedule_only)) expected.push_back(a);
  CHECK(launch::smpirun_command(o, schedule_only) == expected);

  // An allgather picks SimGrid's allgather of that name.
  o.collective = Collective::allgather;
  o.library = "rdb";
  o.trace.clear();
  const Args allgather = launch::smpirun_command(o, kJob);
  CHECK(std::find(allgather.begin(), allgather.end(), "--cfg=smpi/allgather:rdb") !=
        allgather.end());
  CHECK(std::find(allgather.begin(), allgather.end(), "--cfg=smpi/alltoall:rdb") ==
        allgather.end());
}

TEST_CASE("result_of: the last JSON line of standard output, optional fields absent or present") {
  // SimGrid and Open MPI print their own lines around the runner's.
  const Launched both = launched(
      "[0.000000] [smpi/INFO] hello\n{\"old\": 1}\n"
      "{\"ranks\":6,\"bytes\":1024,\"repeats\":3,\"errors\":0,"
      "\"schedule_seconds\":0.0125,\"library_seconds\":0.025}\n"
      "trailing noise\n");
  CHECK(launch::result_of(both) == RunnerResult{.bytes = 1024,
                                                .repeats = 3,
                                                .errors = 0,
                                                .schedule_seconds = 0.0125,
                                                .library_seconds = 0.025});
  // A buffer program's chunk, and a run timed with --only library.
  const Launched chunks = launched(
      "{\"ranks\":3,\"bytes\":100,\"chunk_bytes\":25,\"repeats\":1,\"errors\":7,"
      "\"library_seconds\":0.5}\n");
  CHECK(launch::result_of(chunks) ==
        RunnerResult{
            .bytes = 100, .chunk_bytes = 25, .repeats = 1, .errors = 7, .library_seconds = 0.5});
}

TEST_CASE("result_of: a timeout, a failure, no result line or a broken one is an InputError") {
  Finished slow;
  slow.timed_out = true;
  slow.out = "{\"bytes\":1,\"repeats\":1,\"errors\":0}\n";  // a result does not excuse the deadline
  CHECK_THROWS_WITH_AS(launch::result_of({"mpirun", 330, slow}),
                       "mpirun did not finish in time (a deadlock?): timed out after 330 s",
                       InputError);
  // A result line and a failing exit: the exit wins, with the tail of standard error.
  CHECK_THROWS_WITH_AS(launch::result_of(launched("{\"bytes\":1,\"repeats\":1,\"errors\":0}\n",
                                                  "line 1\nCannot read from /nonexistent\n", 134)),
                       "smpirun failed (exit 134):\nline 1\nCannot read from /nonexistent",
                       InputError);
  CHECK_THROWS_WITH_AS(launch::result_of(launched("no result\n", "it broke\n")),
                       "smpirun failed (exit 0):\nit broke", InputError);
  CHECK_THROWS_WITH_AS(launch::result_of(launched("{\"bytes\": \n")),
                       doctest::Contains("smpirun printed a result line that is not JSON ("),
                       InputError);
  CHECK_THROWS_WITH_AS(
      launch::result_of(launched("{\"bytes\":1,\"repeats\":1}\n")),
      doctest::Contains("smpirun printed a result line that is not the runner's ("), InputError);
  CHECK_THROWS_WITH_AS(
      launch::result_of(launched("{\"bytes\":\"many\",\"repeats\":1,\"errors\":0}\n")),
      doctest::Contains("not the runner's"), InputError);
}

TEST_CASE("rank_errors: the lines that start with \"rank \", at most the limit, in order") {
  const std::string err =
      "[h0] warning: something\n"
      "rank 4: block [0,4] never arrived\n"
      "  rank 9: indented, not the runner's\n"
      "phasecheck-runner: a message of rank 0\n"
      "rank 5: phase 6: block [0,5] arrives a second time, from 0\n"
      "rank 1: block [2,1] never arrived";  // the last line has no newline
  CHECK(launch::rank_errors(err, 10) == Args{"rank 4: block [0,4] never arrived",
                                             "rank 5: phase 6: block [0,5] arrives a second time, "
                                             "from 0",
                                             "rank 1: block [2,1] never arrived"});
  CHECK(launch::rank_errors(err, 1) == Args{"rank 4: block [0,4] never arrived"});
  CHECK(launch::rank_errors(err, 0).empty());
  CHECK(launch::rank_errors("", 10).empty());
}

TEST_CASE("runner_path: the environment overrides the built runner, per MPI") {
  setenv("PHASECHECK_RUNNER", "/from/env/runner", 1);
  setenv("PHASECHECK_SMPI_RUNNER", "/from/env/runner-smpi", 1);
  CHECK(launch::runner_path(launch::Mpi::open_mpi) == "/from/env/runner");
  CHECK(launch::runner_path(launch::Mpi::simgrid) == "/from/env/runner-smpi");
  unsetenv("PHASECHECK_RUNNER");
  unsetenv("PHASECHECK_SMPI_RUNNER");
  // Without them: the one built with phasecheck, or an InputError when none was.
  try {
    CHECK_FALSE(launch::runner_path(launch::Mpi::open_mpi).empty());
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("built without the runner") != std::string::npos);
  }
}
