#include "launch/runner.hpp"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "core/error.hpp"

namespace phasecheck::launch {

std::string runner_path(Mpi mpi) {
  const bool smpi = mpi == Mpi::simgrid;
  if (const char* env = std::getenv(smpi ? "PHASECHECK_SMPI_RUNNER" : "PHASECHECK_RUNNER"))
    return env;
  const std::string built = smpi ? PHASECHECK_SMPI_RUNNER : PHASECHECK_RUNNER;
  if (built.empty())
    throw InputError(
        "this phasecheck was built without the runner (-DPHASECHECK_BUILD_RUNNER=OFF)");
  return built;
}

std::ostream& operator<<(std::ostream& os, const RunnerJob& job) {
  os << "RunnerJob{" << job.runner << " " << job.plan << ", bytes=" << job.bytes
     << ", repeats=" << job.repeats;
  if (!job.only.empty()) os << ", only=" << job.only;
  return os << "}";
}

std::vector<std::string> runner_arguments(const RunnerJob& job) {
  std::vector<std::string> args = {job.runner,  job.plan,
                                   "--bytes",   std::to_string(job.bytes),
                                   "--repeats", std::to_string(job.repeats)};
  if (!job.only.empty()) {
    args.push_back("--only");
    args.push_back(job.only);
  }
  return args;
}

std::vector<std::string> mpirun_command(std::uint32_t ranks, double timeout, const RunnerJob& job) {
  std::vector<std::string> cmd = {"mpirun",
                                  "--allow-run-as-root",
                                  "--oversubscribe",
                                  "--mca",
                                  "pml",
                                  "ob1",
                                  "--mca",
                                  "btl",
                                  "self,vader",
                                  "-np",
                                  std::to_string(ranks),
                                  "--timeout",
                                  std::to_string(static_cast<long>(std::ceil(timeout)))};
  for (std::string& a : runner_arguments(job)) cmd.push_back(std::move(a));
  return cmd;
}

std::vector<std::string> smpirun_command(const SmpirunOptions& options, const RunnerJob& job) {
  std::vector<std::string> cmd = {"smpirun",
                                  "-np",
                                  std::to_string(options.ranks),
                                  "-platform",
                                  options.platform,
                                  "-hostfile",
                                  options.hostfile,
                                  "--cfg=smpi/simulate-computation:no",
                                  "--cfg=network/crosstraffic:0",
                                  "--cfg=smpi/bw-factor:0:1",
                                  "--cfg=smpi/lat-factor:0:1",
                                  "--log=root.thres:critical"};
  if (!options.library.empty())
    cmd.push_back("--cfg=smpi/" + std::string(to_string(options.collective)) + ":" +
                  options.library);
  if (!options.trace.empty())  // every internal message of the collectives too
    for (std::string a : {std::string("--cfg=tracing:yes"), std::string("--cfg=tracing/smpi:yes"),
                          std::string("--cfg=tracing/smpi/internals:yes"),
                          "--cfg=tracing/filename:" + options.trace})
      cmd.push_back(std::move(a));
  for (std::string& a : runner_arguments(job)) cmd.push_back(std::move(a));
  return cmd;
}

Launched run_mpirun(std::uint32_t ranks, double timeout, const RunnerJob& job) {
  const double deadline = timeout + kMpirunGrace;
  return {"mpirun", deadline,
          run({.argv = mpirun_command(ranks, timeout, job), .timeout = deadline})};
}

Launched run_smpirun(const SmpirunOptions& options, const RunnerJob& job, double timeout) {
  return {"smpirun", timeout, run({.argv = smpirun_command(options, job), .timeout = timeout})};
}

std::ostream& operator<<(std::ostream& os, const RunnerResult& r) {
  os << "RunnerResult{bytes=" << r.bytes;
  if (r.chunk_bytes) os << ", chunk_bytes=" << *r.chunk_bytes;
  os << ", repeats=" << r.repeats << ", errors=" << r.errors;
  if (r.schedule_seconds) os << ", schedule_seconds=" << *r.schedule_seconds;
  if (r.library_seconds) os << ", library_seconds=" << *r.library_seconds;
  return os << "}";
}

RunnerResult result_of(const Launched& run) {
  const Finished& f = run.finished;
  std::istringstream lines(f.out);
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty() && line.front() == '{') last = line;
  if (f.timed_out)
    throw InputError(run.launcher +
                     " did not finish in time (a deadlock?): " + f.describe(run.timeout));
  if (last.empty() || f.status != 0)
    throw InputError(run.launcher + " failed (" + f.describe(run.timeout) + "):\n" + f.err_tail());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(last);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(run.launcher + " printed a result line that is not JSON (" + e.what() + ")");
  }
  try {
    RunnerResult r;
    r.bytes = j.at("bytes").get<std::uint64_t>();
    if (j.contains("chunk_bytes")) r.chunk_bytes = j.at("chunk_bytes").get<std::uint64_t>();
    r.repeats = j.at("repeats").get<unsigned>();
    r.errors = j.at("errors").get<long long>();
    if (j.contains("schedule_seconds")) r.schedule_seconds = j.at("schedule_seconds").get<double>();
    if (j.contains("library_seconds")) r.library_seconds = j.at("library_seconds").get<double>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw InputError(run.launcher + " printed a result line that is not the runner's (" + e.what() +
                     ")");
  }
}

std::vector<std::string> rank_errors(const std::string& err, std::size_t limit) {
  std::vector<std::string> out;
  std::istringstream lines(err);
  std::string line;
  while (std::getline(lines, line) && out.size() < limit)
    if (line.rfind("rank ", 0) == 0) out.push_back(line);
  return out;
}

}  // namespace phasecheck::launch
