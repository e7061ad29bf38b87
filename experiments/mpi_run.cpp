#include "experiments/mpi_run.hpp"

#include <algorithm>
#include <limits>
#include <ostream>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/table.hpp"
#include "io/json.hpp"
#include "io/programs_json.hpp"
#include "io/simgrid_platform.hpp"
#include "pipeline/read_schedule.hpp"
#include "programs/program.hpp"
#include "programs/synchronization.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::experiments {
namespace {

constexpr double kGiB = double(1ull << 30);
/// What all ranks of one run may hold together.
constexpr double kRunMemory = 2 * kGiB;

/// A buffer program (format 3) runs with chunks of floor(B / chunks) bytes (docs/run.md); from
/// its header: at least a byte per chunk, and every rank's input, output and scratch buffers
/// together within the memory a run may use.
void check_buffers(const ScheduleHeader& h, std::uint64_t bytes) {
  const BufferLayout& b = *h.buffers;
  if (b.inplace && h.collective == Collective::alltoall)  // the runner's alltoall reads an input
    throw InputError(
        "an alltoall program in place (format 4) does not run: the runner's "
        "alltoall programs read an input buffer");
  if (bytes < b.chunks)
    throw InputError("--bytes " + std::to_string(bytes) + ": a message of this schedule has " +
                     std::to_string(b.chunks) + " chunks, so at least " + std::to_string(b.chunks) +
                     " bytes");
  const std::uint64_t chunk = bytes / b.chunks;
  const double total = double(h.ranks()) * (double(b.input) + b.output + b.scratch) * double(chunk);
  if (total > kRunMemory)
    throw InputError("--bytes " + std::to_string(bytes) + ": the buffers of " +
                     std::to_string(h.ranks()) + " ranks take " + figure(total / kGiB) +
                     " GiB, more than the 2 GiB a run may use");
}

/// What the runner needs beyond the buffers (format 3): staging for a phase and messages MPI
/// can count; throws InputError on an op it cannot execute (a slot beyond a buffer).
void check_staging(const Schedule& program, std::uint64_t bytes) {
  const programs::StagingNeeds needs = programs::staging_needs(program);
  const std::uint64_t chunk = bytes / program.header.buffers->chunks;
  if (double(needs.message) * double(chunk) > double(std::numeric_limits<int>::max()))
    throw InputError("--bytes " + std::to_string(bytes) + ": a message of " +
                     std::to_string(needs.message) +
                     " chunks is more than the 2^31 - 1 bytes an MPI count holds");
  const double total = double(program.header.ranks()) * double(needs.staged) * double(chunk);
  if (total > kRunMemory)
    throw InputError("--bytes " + std::to_string(bytes) + ": staging " +
                     std::to_string(needs.staged) + " chunks per rank in one phase takes " +
                     figure(total / kGiB) + " GiB, more than the 2 GiB a run may use");
}

/// What every runner process holds of its own program, per operation and per block it carries:
/// the program as a JSON document and as the runner's plan (measured: 160 MB for a program of
/// 300,000 operations).
constexpr double kRunnerBytesPerOperation = 512, kRunnerBytesPerBlock = 128;

/// The runners of one run together hold every rank's program: within what a run may use, and
/// refused before the programs are made. The programs themselves are checked against the memory
/// limit (programs::check_programs_memory).
void check_runner_memory(const Schedule& table, programs::Separation separation,
                         const programs::SyncPlan* sync = nullptr) {
  programs::check_programs_memory(table, separation, sync);
  const std::uint64_t operations = programs::program_operations(table, separation, sync);
  std::uint64_t blocks = 0;
  for (const Phase& phase : table.phases)
    for (const Transfer& t : phase.transfers())
      if (!t.local()) blocks += 2 * std::uint64_t{t.block_count};  // the send's and the receive's
  const double total =
      double(operations) * kRunnerBytesPerOperation + double(blocks) * kRunnerBytesPerBlock;
  if (total > kRunMemory)
    throw InputError("the programs of " + std::to_string(table.header.ranks()) + " ranks have " +
                     std::to_string(operations) + " operations" +
                     (separation == programs::Separation::barrier
                          ? " (a barrier for every rank in each of " +
                                std::to_string(table.phases.size()) +
                                " phases; --sync none has none)"
                          : std::string()) +
                     ": their runners would hold " + figure(total / kGiB) +
                     " GiB, more than the 2 GiB a run may use");
}

/// The outcome's description of the schedule, before the run.
RunOutcome describe_run(const Schedule& table, const std::string& source, const std::string& sync,
                        const verify::Report& report) {
  RunOutcome o;
  o.source = input_name(source);
  o.algorithm = table.header.algorithm;
  o.collective = table.header.collective;
  o.ranks = table.header.ranks();
  o.buffers = table.header.buffers;
  o.separation = programs::to_string(programs::parse_separation(sync));
  o.table = report.verdict();
  return o;
}

/// Both times of a result that ran schedule and library: a runner that printed fewer is not
/// this one.
void require_times(const launch::RunnerResult& r, const std::string& launcher) {
  if (!r.schedule_seconds || !r.library_seconds)
    throw InputError(launcher + " printed a result line without " +
                     (r.schedule_seconds ? "library_seconds" : "schedule_seconds"));
}

}  // namespace

void check_simulated_tree(const Tree& tree, std::string_view command) {
  const std::string instead = "`verify --topology` judges a schedule on any tree";
  check_ranks(tree.ranks(), kMaxSimulatedRanks, command, instead);
  if (tree.switches().size() > kMaxSimulatedRanks)
    throw InputError(std::string(command) + " works on trees of at most " +
                     std::to_string(kMaxSimulatedRanks) + " switches; this one has " +
                     std::to_string(tree.switches().size()) + " (" + instead + ")");
}

void check_run_volume(Rank ranks, std::uint64_t bytes) {
  const double total = double(ranks) * ranks * double(bytes);
  if (total > kRunMemory)
    throw InputError("--bytes " + std::to_string(bytes) + " on " + std::to_string(ranks) +
                     " ranks: " + figure(total / kGiB) +
                     " GiB of messages, more than the 2 GiB a run may use");
}

Schedule read_runnable(const std::string& path, std::uint64_t bytes,
                       const std::function<void(const ScheduleHeader&)>& check_size) {
  Schedule s = pipeline::read_schedule_file(path, [&](const ScheduleHeader& h) {
    // The runner moves --bytes per block; an alltoallv's blocks have their own sizes.
    if (h.traffic)
      throw InputError("an alltoallv is not run or simulated here (its messages have the "
                       "matrix's sizes, the runner moves --bytes per block); `phasecheck deploy` "
                       "serves MPI_Alltoallv with linear-v, pairwise-v and scattered-v");
    check_size(h);
    if (h.buffers) check_buffers(h, bytes);
  });
  if (s.header.buffers) with_source(path, [&] { check_staging(s, bytes); });
  return s;
}

verify::Report write_run_programs(const Schedule& table, const std::string& source,
                                  const std::string& sync, const Topology* model,
                                  const Claims& claims, const std::string& plan) {
  const programs::Separation separation = programs::parse_separation(sync);
  const Topology& judge = model ? *model : table.header.topology;
  // Pair-wise synchronization adds operations only its plan knows (at most kMaxSyncRanks ranks):
  // checked below, once the plan is made.
  with_source(source, [&] {
    if (separation != programs::Separation::pairwise) check_runner_memory(table, separation);
  });
  // (An InputError here: the rank counts differ; it names the file.)
  verify::Report report = with_source(source, [&] { return verify::verify(table, judge, claims); });
  std::optional<programs::SyncPlan> sync_plan;
  if (separation == programs::Separation::pairwise)
    sync_plan = programs::pairwise_synchronization(table, judge);
  with_source(source, [&] {
    if (sync_plan) check_runner_memory(table, separation, &*sync_plan);
  });
  const auto progs = programs::rank_programs(table, separation, sync_plan ? &*sync_plan : nullptr);
  write_output(plan, [&](std::ostream& os) {
    io::write_programs_json(os, progs, table, source, separation);
  });
  return report;
}

SimulatedNetwork::SimulatedNetwork(const Tree& tree, const std::string& bandwidth,
                                   const std::string& latency)
    : tree_(tree) {
  write_output(scratch_.file("platform.xml"),
               [&](std::ostream& os) { os << io::simgrid_platform_xml(tree, bandwidth, latency); });
  write_output(scratch_.file("hosts.txt"),
               [&](std::ostream& os) { os << io::simgrid_hostfile(tree); });
}

launch::Launched SimulatedNetwork::run(const std::string& plan, std::uint64_t bytes,
                                       unsigned repeats, const std::string& library,
                                       const std::string& only, double timeout,
                                       const std::string& trace, Collective collective) const {
  const launch::SmpirunOptions options{.ranks = tree_.ranks(),
                                       .platform = scratch_.file("platform.xml"),
                                       .hostfile = scratch_.file("hosts.txt"),
                                       .library = library,
                                       .collective = collective,
                                       .trace = trace};
  const launch::RunnerJob job{.runner = launch::runner_path(launch::Mpi::simgrid),
                              .plan = plan,
                              .bytes = bytes,
                              .repeats = repeats,
                              .only = only};
  return launch::run_smpirun(options, job, timeout);
}

std::ostream& operator<<(std::ostream& os, const Throughput& t) {
  return os << "Throughput{schedule=" << t.schedule << " MB/s, library=" << t.library
            << " MB/s, peak_bound=" << t.peak_bound << " MB/s"
            << (t.exceeds_peak ? ", exceeds the peak" : "") << "}";
}

std::ostream& operator<<(std::ostream& os, const RunOutcome& o) {
  os << "RunOutcome{" << o.source << ": " << o.algorithm << " (" << o.collective << ") on "
     << o.ranks << " ranks " << o.where << ", " << o.separation << " separation, table " << o.table
     << ", " << o.result << " against " << o.library << ", " << o.error_lines.size()
     << " error lines";
  if (o.throughput) os << ", " << *o.throughput;
  return os << "}";
}

RunOutcome run_on_open_mpi(const Schedule& schedule, const OpenMpiRun& run) {
  const launch::ScratchDirectory scratch;  // the programs, for the runner
  const std::string plan = scratch.file("programs.json");
  const verify::Report report =
      write_run_programs(schedule, run.source, run.sync, nullptr, run.claims, plan);
  RunOutcome o = describe_run(schedule, run.source, run.sync, report);
  const launch::Launched l =
      launch::run_mpirun(o.ranks, run.timeout,
                         {.runner = launch::runner_path(launch::Mpi::open_mpi),
                          .plan = plan,
                          .bytes = run.bytes,
                          .repeats = run.repeats});
  o.result = launch::result_of(l);
  require_times(o.result, l.launcher);
  o.where = "under Open MPI (mpirun, this machine)";
  o.library =
      std::string("MPI_") + (o.collective == Collective::alltoall ? "Alltoall" : "Allgather");
  o.error_lines = launch::rank_errors(l.finished.err, RunOutcome::kMaxErrorLines);
  return o;
}

RunOutcome simulate_on_simgrid(const Schedule& schedule, const SimGridRun& run) {
  const auto* tree = std::get_if<Tree>(&run.model);
  if (!tree) throw InputError(input_name(run.source) + ": a simulation needs a tree topology");
  check_simulated_tree(*tree, "simulate");
  const launch::ScratchDirectory scratch;  // the programs, for the runner
  const std::string plan = scratch.file("programs.json");
  const verify::Report report =
      write_run_programs(schedule, run.source, run.sync, &run.model, run.claims, plan);
  RunOutcome o = describe_run(schedule, run.source, run.sync, report);
  const SimulatedNetwork network(*tree, run.bandwidth, run.latency);
  const launch::Launched l = network.run(plan, run.bytes, run.repeats, run.library, "", run.timeout,
                                         run.trace, schedule.header.collective);
  o.result = launch::result_of(l);
  require_times(o.result, l.launcher);
  o.where = "simulated by SimGrid on " + describe(run.model) + ", " + run.bandwidth + " links, " +
            run.latency + " latency";
  o.library = std::string(o.collective == Collective::alltoall ? "MPI_Alltoall" : "MPI_Allgather") +
              " (SimGrid's " + (run.library.empty() ? "default" : run.library) + ")";
  o.error_lines = launch::rank_errors(l.finished.err, RunOutcome::kMaxErrorLines);
  if (o.collective == Collective::alltoall) {
    const double M = tree->ranks(), total = M * (M - 1) * double(run.bytes);
    const double schedule_seconds = *o.result.schedule_seconds,
                 library_seconds = *o.result.library_seconds;
    const double peak = run.peak_bytes_per_second;
    // No alltoall beats the bottleneck: if the simulation does, it did not simulate this tree.
    o.throughput = Throughput{
        .schedule = total / schedule_seconds / 1e6,
        .library = total / library_seconds / 1e6,
        .peak_bound = peak / 1e6,
        .exceeds_peak = total / std::min(schedule_seconds, library_seconds) > peak * 1.001};
  }
  return o;
}

}  // namespace phasecheck::experiments
