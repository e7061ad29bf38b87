// `phasecheck run` and `phasecheck simulate`: a schedule's per-rank programs executed by
// phasecheck-runner (runner/runner.cpp) under Open MPI's mpirun on this machine, or under
// SimGrid's smpirun on a simulated network built from a tree topology (docs/run.md).

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/progress.hpp"
#include "io/json.hpp"
#include "io/programs_json.hpp"
#include "io/simgrid_platform.hpp"
#include "io/simgrid_trace.hpp"
#include "launch/process.hpp"
#include "programs/program.hpp"
#include "programs/synchronization.hpp"
#include "report/svg_plot.hpp"
#include "report/table.hpp"
#include "report/verify_report.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::cli {
namespace {

/// Runs argv (no shell) in its own process group, killed with the group after `timeout` seconds
/// or when phasecheck is interrupted.
launch::Finished run_process(const std::vector<std::string>& argv, double timeout) {
  return launch::run({.argv = argv, .timeout = timeout});
}

/// The runner binary: $PHASECHECK_RUNNER / $PHASECHECK_SMPI_RUNNER, else the one built with
/// this program.
std::string runner_path(bool smpi) {
  if (const char* env = std::getenv(smpi ? "PHASECHECK_SMPI_RUNNER" : "PHASECHECK_RUNNER"))
    return env;
  const std::string built = smpi ? PHASECHECK_SMPI_RUNNER : PHASECHECK_RUNNER;
  if (built.empty())
    throw InputError(
        "this phasecheck was built without the runner (-DPHASECHECK_BUILD_RUNNER=OFF)");
  return built;
}

/// The runner's result line (rank 0 prints one JSON object), or an InputError with what the
/// launcher said.
nlohmann::json result_of(const launch::Finished& f, const std::string& launcher, double timeout) {
  std::istringstream lines(f.out);
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty() && line.front() == '{') last = line;
  if (f.timed_out)
    throw InputError(launcher + " did not finish in time (a deadlock?): " + f.describe(timeout));
  if (last.empty() || f.status != 0)
    throw InputError(launcher + " failed (" + f.describe(timeout) + "):\n" + f.err_tail());
  try {
    return nlohmann::json::parse(last);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(launcher + " printed a result line that is not JSON (" + e.what() + ")");
  }
}

/// The runner's error lines ("rank 3: block [0,3] never arrived"), at most `limit`.
std::vector<std::string> rank_errors(const std::string& err, std::size_t limit) {
  std::vector<std::string> out;
  std::istringstream lines(err);
  std::string line;
  while (std::getline(lines, line) && out.size() < limit)
    if (line.rfind("rank ", 0) == 0) out.push_back(line);
  return out;
}

struct Prepared {
  Schedule table;
  verify::Report report;
  programs::Separation separation;
  std::string source;  ///< the schedule's name in reports
};

/// The schedule, verified on `model` (its own when null), and its programs written to `plan`.
Prepared prepare(Schedule table, const std::string& source, const std::string& sync,
                 const Topology* model, const std::string& plan) {
  Prepared p{std::move(table), {}, programs::parse_separation(sync), input_name(source)};
  const Topology& judge = model ? *model : p.table.header.topology;
  try {
    p.report = verify::verify(p.table, judge, claims_for(p.table.header));
  } catch (const InputError& e) {  // the rank counts differ: say which file
    throw InputError(source + ": " + e.what());
  }
  std::optional<programs::SyncPlan> sync_plan;
  if (p.separation == programs::Separation::pairwise)
    sync_plan = programs::pairwise_synchronization(p.table, judge);
  const auto progs =
      programs::rank_programs(p.table, p.separation, sync_plan ? &*sync_plan : nullptr);
  write_output(plan, [&](std::ostream& os) {
    os << io::programs_to_json(progs, p.table, source, p.separation);
  });
  return p;
}

void check_common(std::uint64_t bytes, unsigned repeats, double timeout) {
  if (bytes < 1 || bytes > (1u << 26))
    throw InputError("--bytes must be in [1, 67108864] (bytes per message)");
  if (repeats < 1 || repeats > 1000) throw InputError("--repeats must be in [1, 1000]");
  check_timeout(timeout);
}

/// All ranks' messages together (p^2 B for alltoall) must fit in this machine's 24 GiB about
/// five times over: every rank keeps its own messages (to start each call from), holds them and
/// what it receives, and the library's send and receive buffers.
/// Processes `run` starts on this one machine.
constexpr Rank kMaxRunRanks = 256;

void check_volume(Rank ranks, std::uint64_t bytes) {
  const double total = double(ranks) * ranks * double(bytes);
  if (total > 2.0 * (1ull << 30))
    throw InputError("--bytes " + std::to_string(bytes) + " on " + std::to_string(ranks) +
                     " ranks: " + number(total / (1ull << 30)) +
                     " GiB of messages, more than the 2 GiB a run may use");
}

/// A buffer program (format 3) runs with chunks of floor(B / chunks) bytes (docs/run.md); from
/// its header: at least a byte per chunk, and every rank's input, output and scratch buffers
/// together within the 2 GiB a run may use.
void check_buffers(const ScheduleHeader& h, std::uint64_t bytes) {
  const BufferLayout& b = *h.buffers;
  if (bytes < b.chunks)
    throw InputError("--bytes " + std::to_string(bytes) + ": a message of this schedule has " +
                     std::to_string(b.chunks) + " chunks, so at least " + std::to_string(b.chunks) +
                     " bytes");
  const std::uint64_t chunk = bytes / b.chunks;
  const double total = double(h.ranks()) * (double(b.input) + b.output + b.scratch) * double(chunk);
  if (total > 2.0 * (1ull << 30))
    throw InputError("--bytes " + std::to_string(bytes) + ": the buffers of " +
                     std::to_string(h.ranks()) + " ranks take " + number(total / (1ull << 30)) +
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
  if (total > 2.0 * (1ull << 30))
    throw InputError("--bytes " + std::to_string(bytes) + ": staging " +
                     std::to_string(needs.staged) + " chunks per rank in one phase takes " +
                     number(total / (1ull << 30)) + " GiB, more than the 2 GiB a run may use");
}

/// The schedule `path`, read for run or simulate: its size checked from the header before the
/// phases are read, and a buffer program checked for what the runner can execute.
Schedule read_runnable(const std::string& path, std::uint64_t bytes,
                       const std::function<void(const ScheduleHeader&)>& check_size) {
  Schedule s = io::read_schedule_file(path, [&](const ScheduleHeader& h) {
    check_size(h);
    if (h.buffers) check_buffers(h, bytes);
  });
  if (s.header.buffers) {
    try {
      check_staging(s, bytes);
    } catch (const InputError& e) {
      throw InputError(input_name(path) + ": " + e.what());
    }
  }
  return s;
}

std::string ms(double seconds) { return number(seconds * 1e3) + " ms"; }

/// What run and simulate found: the runner's result `r` for the prepared schedule, `where` it ran,
/// the `library` collective it was timed against and the first of the ranks' error lines.
struct RunOutcome {
  const Prepared& p;
  const nlohmann::json& r;
  std::string where;    ///< "under Open MPI (mpirun, this machine)", "simulated by SimGrid on ..."
  std::string library;  ///< "MPI_Alltoall", ...
  std::vector<std::string> errors;
  bool ok() const { return r.at("errors").get<long long>() == 0; }
};

/// The verdict and the timing lines shared by run and simulate.
void print_run(const RunOutcome& o, std::ostream& out) {
  const Prepared& p = o.p;
  const nlohmann::json& r = o.r;
  const long long bad = r.at("errors").get<long long>();
  const double schedule = r.at("schedule_seconds").get<double>(),
               lib = r.at("library_seconds").get<double>();
  const Rank ranks = p.table.header.ranks();
  const auto& buffers = p.table.header.buffers;
  out << (bad == 0 ? "PASS" : "FAIL") << "  " << p.table.header.algorithm << " ("
      << p.table.header.collective << (buffers ? ", buffer program" : "") << ") on " << ranks
      << " ranks " << o.where << ": "
      << (bad == 0 ? buffers ? "every output slot holds its chunk, byte for byte"
                             : "every byte arrived as sent"
                   : std::to_string(bad) + (bad == 1 ? " error" : " errors") + " in the data" +
                         (r.at("repeats").get<int>() > 1
                              ? " over " + std::to_string(r.at("repeats").get<int>()) + " calls"
                              : std::string()))
      << "\n  " << r.at("bytes").get<std::uint64_t>() << " bytes per message";
  if (buffers)
    out << " (" << buffers->chunks << (buffers->chunks == 1 ? " chunk" : " chunks") << " of "
        << r.at("chunk_bytes").get<std::uint64_t>() << " bytes; buffers of " << buffers->input
        << " + " << buffers->output << " + " << buffers->scratch
        << " chunks: input, output, scratch)";
  out << ", " << programs::to_string(p.separation) << " separation, median of "
      << r.at("repeats").get<int>() << " calls (the slowest rank's time)\n"
      << "  schedule "
      << (p.report.verdict() == verify::Verdict::pass ? "verifies" : "DOES NOT VERIFY")
      << " on its model\n"
      << "  " << p.table.header.algorithm << ": " << ms(schedule) << " per call\n"
      << "  " << o.library << ": " << ms(lib) << " per call (same run); ratio "
      << number(lib > 0 ? schedule / lib : 0) << "\n";
}

/// The runner's error lines, after the summary; "..." when there were more.
void print_errors(const RunOutcome& o, std::ostream& out) {
  for (const auto& e : o.errors) out << "  " << e << "\n";
  if (o.r.at("errors").get<std::size_t>() > o.errors.size()) out << "  ...\n";
}

/// run's and simulate's --report json (docs/formats.md, "Command reports").
nlohmann::ordered_json run_json(const RunOutcome& o, std::string_view command) {
  const Prepared& p = o.p;
  const nlohmann::json& r = o.r;
  const double schedule = r.at("schedule_seconds").get<double>(),
               lib = r.at("library_seconds").get<double>();
  nlohmann::ordered_json j;
  j["command"] = command;
  j["verdict"] = o.ok() ? "pass" : "fail";
  j["schedule"] = p.source;
  j["algorithm"] = p.table.header.algorithm;
  j["collective"] = to_string(p.table.header.collective);
  j["ranks"] = p.table.header.ranks();
  j["where"] = o.where;
  j["bytes"] = r.at("bytes").get<std::uint64_t>();
  j["chunk_bytes"] = p.table.header.buffers ? nlohmann::ordered_json(r.at("chunk_bytes"))
                                            : nlohmann::ordered_json(nullptr);
  j["separation"] = programs::to_string(p.separation);
  j["repeats"] = r.at("repeats").get<int>();
  j["data_errors"] = r.at("errors").get<long long>();
  j["error_lines"] = o.errors;
  j["table"] = to_string(p.report.verdict());
  j["seconds"] = {{"schedule", schedule}, {"library", lib}};
  j["library"] = o.library;
  j["ratio"] = lib > 0 ? nlohmann::ordered_json(schedule / lib) : nlohmann::ordered_json(nullptr);
  return j;
}

// ---- SimGrid platform -------------------------------------------------------------------------

/// "100Mbps", "1Gbps", "12.5MBps", "10us": SimGrid's own units, checked here so that a typo is
/// exit 2; returns the value in the base unit (bytes per second, seconds).
double quantity(const std::string& s, const char* what,
                const std::vector<std::pair<std::string, double>>& units) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  const std::string unit = s.substr(used);
  for (const auto& [name, scale] : units)
    if (used > 0 && unit == name && v > 0 && std::isfinite(v)) return v * scale;
  std::string known;
  for (const auto& u : units) known += (known.empty() ? "" : ", ") + u.first;
  throw InputError(std::string(what) + " '" + s + "': a positive number with a unit (" + known +
                   ")");
}

const std::vector<std::string> kOpenMpi = {
    "mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml", "ob1", "--mca",
    "btl",    "self,vader"};

}  // namespace

int run(const RunArgs& args, std::ostream& out) {
  check_common(args.bytes, args.repeats, args.timeout);
  const launch::ScratchDirectory scratch;  // the programs, for the runner
  const std::string plan = scratch.file("programs.json");
  // The machine's size first, from the header: before the phases are read and verified.
  const auto check_size = [&](const ScheduleHeader& h) {
    const Rank ranks = h.ranks();
    if (args.np != 0 && args.np != ranks)
      throw InputError("--np " + std::to_string(args.np) + ": the schedule has " +
                       std::to_string(ranks) + " ranks");
    if (ranks < 2 || ranks > kMaxRunRanks)
      throw InputError("run: 2 to " + std::to_string(kMaxRunRanks) + " ranks on this machine");
    check_volume(ranks, args.bytes);
  };
  const Prepared p = prepare(read_runnable(args.schedule, args.bytes, check_size), args.schedule,
                             args.sync, nullptr, plan);
  const Rank ranks = p.table.header.ranks();
  std::vector<std::string> cmd = kOpenMpi;
  for (const std::string& a :
       {std::string("-np"), std::to_string(ranks), std::string("--timeout"),
        std::to_string(static_cast<long>(std::ceil(args.timeout))), runner_path(false), plan,
        std::string("--bytes"), std::to_string(args.bytes), std::string("--repeats"),
        std::to_string(args.repeats)})
    cmd.push_back(a);
  const launch::Finished f = run_process(cmd, args.timeout + 30);
  const nlohmann::json r = result_of(f, "mpirun", args.timeout + 30);
  const RunOutcome o{
      p, r, "under Open MPI (mpirun, this machine)",
      std::string("MPI_") +
          (p.table.header.collective == Collective::alltoall ? "Alltoall" : "Allgather"),
      rank_errors(f.err, 10)};
  if (args.report == "json") {
    out << reports::json_text(run_json(o, "run"));
  } else {
    print_run(o, out);
    print_errors(o, out);
  }
  return o.ok() ? 0 : 1;
}

namespace {

double bandwidth_of(const std::string& s) {
  return quantity(s, "--bandwidth",
                  {{"bps", 1 / 8.},
                   {"kbps", 1e3 / 8},
                   {"Mbps", 1e6 / 8},
                   {"Gbps", 1e9 / 8},
                   {"Bps", 1},
                   {"kBps", 1e3},
                   {"MBps", 1e6},
                   {"GBps", 1e9}});
}

void check_latency(const std::string& s) {
  quantity(s, "--latency", {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}});
}

/// A simulated network: the tree's platform and host file, written once.
class Network {
 public:
  Network(const Tree& tree, const std::string& bandwidth, const std::string& latency)
      : tree_(tree) {
    write_output(platform(), [&](std::ostream& os) {
      os << io::simgrid_platform_xml(tree, bandwidth, latency);
    });
    write_output(hosts(), [&](std::ostream& os) { os << io::simgrid_hostfile(tree); });
  }

  /// smpirun of the runner on the programs in `plan`; `library` picks SimGrid's alltoall, `only`
  /// restricts the runner to "schedule" or "library".
  launch::Finished run(const std::string& plan, std::uint64_t bytes, unsigned repeats,
                       const std::string& library, const std::string& only, double timeout,
                       const std::string& trace = "") const {
    std::vector<std::string> cmd = {"smpirun",
                                    "-np",
                                    std::to_string(tree_.ranks()),
                                    "-platform",
                                    platform(),
                                    "-hostfile",
                                    hosts(),
                                    "--cfg=smpi/simulate-computation:no",
                                    "--cfg=network/crosstraffic:0",
                                    "--cfg=smpi/bw-factor:0:1",
                                    "--cfg=smpi/lat-factor:0:1",
                                    "--log=root.thres:critical"};
    if (!library.empty()) cmd.push_back("--cfg=smpi/alltoall:" + library);
    if (!trace.empty())  // every internal message of the collectives too (SimGrid's Paje trace)
      for (const std::string& a :
           {std::string("--cfg=tracing:yes"), std::string("--cfg=tracing/smpi:yes"),
            std::string("--cfg=tracing/smpi/internals:yes"), "--cfg=tracing/filename:" + trace})
        cmd.push_back(a);
    for (const std::string& a :
         {runner_path(true), plan, std::string("--bytes"), std::to_string(bytes),
          std::string("--repeats"), std::to_string(repeats)})
      cmd.push_back(a);
    if (!only.empty()) {
      cmd.push_back("--only");
      cmd.push_back(only);
    }
    return run_process(cmd, timeout);
  }

 private:
  std::string platform() const { return scratch_.file("platform.xml"); }
  std::string hosts() const { return scratch_.file("hosts.txt"); }

  const Tree& tree_;
  launch::ScratchDirectory scratch_;  // the platform and the host file
};

}  // namespace

int simulate(const SimulateArgs& args, std::ostream& out) {
  check_common(args.bytes, args.repeats, args.timeout);
  require_stdin_once({args.schedule, args.topology});
  const Topology model = io::read_topology_file(args.topology);
  const auto* tree = std::get_if<Tree>(&model);
  if (!tree) throw InputError(input_name(args.topology) + ": simulate needs a tree topology");
  const double bytes_per_second = bandwidth_of(args.bandwidth);
  check_latency(args.latency);
  check_volume(tree->ranks(), args.bytes);
  const launch::ScratchDirectory scratch;  // the programs, for the runner
  const std::string plan = scratch.file("programs.json");
  const Prepared p = prepare(read_runnable(args.schedule, args.bytes, [](const ScheduleHeader&) {}),
                             args.schedule, args.sync, &model, plan);
  const Network network(*tree, args.bandwidth, args.latency);
  const launch::Finished f =
      network.run(plan, args.bytes, args.repeats, args.library, "", args.timeout, args.trace);
  const nlohmann::json r = result_of(f, "smpirun", args.timeout);
  const std::string library =
      p.table.header.collective == Collective::alltoall
          ? "MPI_Alltoall (SimGrid's " + (args.library.empty() ? "default" : args.library) + ")"
          : std::string("MPI_Allgather (SimGrid's default)");
  const RunOutcome o{p, r,
                     "simulated by SimGrid on " + describe(model) + ", " + args.bandwidth +
                         " links, " + args.latency + " latency",
                     library, rank_errors(f.err, 10)};
  nlohmann::ordered_json j = run_json(o, "simulate");
  if (args.report != "json") print_run(o, out);
  bool faster_than_possible = false;
  // Faraj & Yuan, Section 3: no alltoall moves more than |M| (|M| - 1) B / (|Mu| |Mv|) bytes per
  // second in aggregate.
  j["throughput_MBps"] = nullptr;
  if (p.table.header.collective == Collective::alltoall) {
    const double M = tree->ranks(), total = M * (M - 1) * double(args.bytes);
    const double schedule = r.at("schedule_seconds").get<double>(),
                 lib = r.at("library_seconds").get<double>();
    const double peak = peak_throughput_factor(*tree) * bytes_per_second;
    // No alltoall beats the bottleneck: if the simulation does, it did not simulate this tree.
    faster_than_possible = total / std::min(schedule, lib) > peak * 1.001;
    j["throughput_MBps"] = {{"schedule", total / schedule / 1e6},
                            {"library", total / lib / 1e6},
                            {"peak_bound", peak / 1e6},
                            {"exceeds_peak", faster_than_possible}};
    if (args.report != "json") {
      out << "  aggregate throughput: " << p.table.header.algorithm << " "
          << number(total / schedule / 1e6) << " MB/s, library " << number(total / lib / 1e6)
          << " MB/s; peak bound |M| (|M| - 1) B / (|Mu| |Mv|) = " << number(peak / 1e6)
          << " MB/s\n";
      if (faster_than_possible)
        out << "  FAIL  faster than the peak bound: the simulated network is not this topology\n";
    }
  }
  const bool ok = o.ok() && !faster_than_possible;
  if (args.report == "json") {
    j["verdict"] = ok ? "pass" : "fail";
    out << reports::json_text(j);
  } else {
    print_errors(o, out);
  }
  return ok ? 0 : 1;
}

// ---- whatif experiment --paper faraj-yuan
// --------------------------------------------------------

namespace {

/// One line of the experiment: a schedule of ours with a phase separation, or one of SimGrid's
/// built-in alltoall implementations (library != "").
struct Contender {
  std::string label, algorithm, sync, library;
};

const std::vector<Contender>& contenders() {
  static const std::vector<Contender> all = {
      {"linear (LAM: post everything)", "linear", "none", ""},
      {"shift (MPICH pairwise order)", "shift", "none", ""},
      {"faraj-yuan, barrier", "faraj-yuan", "barrier", ""},
      {"faraj-yuan, pair-wise sync", "faraj-yuan", "pairwise", ""},
      {"SimGrid basic_linear", "", "", "basic_linear"},
      {"SimGrid pair", "", "", "pair"},
      {"SimGrid ring", "", "", "ring"},
      {"SimGrid bruck", "", "", "bruck"},
      {"SimGrid ompi", "", "", "ompi"},
      {"SimGrid mpich", "", "", "mpich"},
  };
  return all;
}

}  // namespace

int whatif_experiment(const WhatIfArgs& args, reports::TableFormat format, std::ostream& out) {
  if (args.paper != "faraj-yuan")
    throw InputError("whatif experiment: --paper must be faraj-yuan (the one reproduced so far)");
  const double bytes_per_second = bandwidth_of(args.bandwidth);
  check_latency(args.latency);
  check_timeout(args.timeout);
  std::vector<std::string> files = args.topologies;
  if (files.empty())
    for (const char* name : {"faraj-yuan-24", "faraj-yuan-32-star", "faraj-yuan-32-chain"})
      files.push_back(std::string(PHASECHECK_EXAMPLES_DIR) + "/" + name + "/topology.json");
  std::vector<std::uint64_t> sizes = args.bytes;
  for (const unsigned kb : args.message_kb) sizes.push_back(std::uint64_t{kb} * 1024);
  if (sizes.empty())
    for (const std::uint64_t kb : {8, 16, 32, 64, 128, 256}) sizes.push_back(kb * 1024);
  for (const std::uint64_t b : sizes)
    if (b < 1 || b > 64 * 1024 * 1024)
      throw InputError("whatif experiment: --bytes must be in [1, 64MiB], not " +
                       std::to_string(b));
  // Every machine is read and checked before the first (long) simulation.
  std::vector<Topology> models;
  for (const std::string& file : files) {
    models.push_back(io::read_topology_file(file));
    const auto* tree = std::get_if<Tree>(&models.back());
    if (!tree) throw InputError(file + ": the experiment needs tree topologies");
    check_volume(tree->ranks(), *std::max_element(sizes.begin(), sizes.end()));
  }
  // A plot is named after its machine file (core/files.hpp, machine_name); two machines of the
  // same name get -2, -3, ... All plot names are checked before the first simulation.
  std::vector<std::string> names;
  for (const std::string& file : files) {
    std::string name = machine_name(file);
    for (int n = 2; std::find(names.begin(), names.end(), name) != names.end(); ++n)
      name = machine_name(file) + "-" + std::to_string(n);
    names.push_back(name);
    if (!args.out_dir.empty()) check_output(args.out_dir + "/" + name + "-throughput.svg", files);
  }
  bool all_ok = true;
  ProgressMeter progress(terminal_stderr(), "whatif experiment", "simulations",
                         files.size() * contenders().size() * sizes.size());
  // Text: one table per machine, sizes across. JSON and CSV: one row per machine, contender and
  // size; milliseconds null where the run failed, with the reason in "status".
  const bool text = format == reports::TableFormat::text;
  std::ostringstream discard;
  std::ostream& say = text ? out : discard;
  reports::Table long_table({{"machine", "machine"},
                        {"algorithm", "algorithm"},
                        {"bytes", "bytes"},
                        {"milliseconds", "ms"},
                        {"throughput_MBps", "MB/s"},
                        {"status", "status"}});
  say << "Faraj & Yuan, Section 6 (Figs. 6-8), simulated by SimGrid: completion time of one "
         "MPI_Alltoall in ms, "
      << args.bandwidth << " links, " << args.latency
      << " latency, full-duplex fluid model; every byte checked for our schedules\n";
  for (std::size_t m = 0; m < files.size(); ++m) {
    const Topology& model = models[m];
    const auto* tree = std::get_if<Tree>(&model);
    const Network network(*tree, args.bandwidth, args.latency);
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::string> header = {"algorithm"};
    for (const auto b : sizes) header.push_back(reports::size_label(b));
    Table table(header);
    std::vector<std::pair<std::string, std::vector<double>>> series;
    std::map<std::string, std::string> notes;  // why a contender failed -> at which sizes
    // Library runs need programs of the right rank count; linear's are the cheapest.
    const Schedule filler = schedules::generate(*schedules::find_algorithm("linear"), model, {});
    for (const Contender& c : contenders()) {
      const launch::ScratchDirectory scratch;  // the programs, for the runner
      const std::string plan = scratch.file("programs.json");
      std::optional<Prepared> prepared;
      if (c.library.empty())
        prepared.emplace(
            prepare(schedules::generate(*schedules::find_algorithm(c.algorithm), model, {}),
                    c.algorithm, c.sync, &model, plan));
      else
        prepare(filler, "linear", "none", &model, plan);
      std::vector<std::string> row = {c.label};
      std::vector<double> throughput;
      for (const auto b : sizes) {
        progress.note(names[m] + ", " + c.label + ", " + reports::size_label(b));
        progress.advance();
        const launch::Finished f = network.run(
            plan, b, 1, c.library, c.library.empty() ? "schedule" : "library", args.timeout);
        double seconds = std::nan("");
        try {
          const nlohmann::json r = result_of(f, "smpirun", args.timeout);
          seconds = r.at(c.library.empty() ? "schedule_seconds" : "library_seconds").get<double>();
          if (r.at("errors").get<long long>() != 0) {
            all_ok = false;
            row.push_back("BYTES WRONG");
            long_table.add({names[m], c.label, b, {}, {}, std::string("bytes wrong")});
            throughput.push_back(std::nan(""));
            continue;
          }
        } catch (const InputError& e) {
          // SimGrid may refuse one of its own algorithms (pair: powers of two only): a note.
          // Ours must run.
          if (c.library.empty()) all_ok = false;
          const std::string what = e.what();
          const auto why = what.find("Uncaught exception");
          const std::string reason = why == std::string::npos
                                         ? std::string("smpirun failed")
                                         : what.substr(why, what.find('\n', why) - why);
          std::string& at = notes[c.label + ": " + reason];
          at += (at.empty() ? "" : ", ") + reports::size_label(b);
          row.push_back("-");
          long_table.add({names[m], c.label, b, {}, {}, reason});
          throughput.push_back(std::nan(""));
          continue;
        }
        row.push_back(number(std::round(seconds * 1e4) / 10));
        throughput.push_back(double(tree->ranks()) * (tree->ranks() - 1) * double(b) / seconds /
                             1e6);
        long_table.add({names[m], c.label, b, seconds * 1e3, throughput.back(), std::string("ok")});
      }
      table.add(std::move(row));
      series.push_back({c.label, std::move(throughput)});
    }
    // The bottleneck link carries |Mu| |Mv| messages each way: no alltoall finishes sooner.
    const Tree::Cut cut = tree->bottleneck();
    const double load = double(cut.machines_a) * cut.machines_b;
    std::vector<std::string> bound = {"bound |Mu| |Mv| m / B"};
    for (const auto b : sizes) {
      bound.push_back(number(std::round(load * double(b) / bytes_per_second * 1e4) / 10));
      long_table.add({names[m], std::string("bound |Mu| |Mv| m / B"), b,
                      load * double(b) / bytes_per_second * 1e3, {}, std::string("bound")});
    }
    table.add(std::move(bound));
    const std::string& name = names[m];
    progress.finish();
    say << "\n"
        << name << ": " << describe(model) << ", bottleneck " << tree->node_name(cut.a) << " - "
        << tree->node_name(cut.b) << " (" << cut.machines_a << " x " << cut.machines_b
        << "), simulated in "
        << number(
               std::round(
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() *
                   10) /
               10)
        << " s wall time\n\n";
    table.print(say);
    for (const auto& [why, sizes_failed] : notes)
      say << "  " << why << " (at " << sizes_failed << ")\n";
    if (!args.out_dir.empty()) {
      const std::string svg = args.out_dir + "/" + name + "-throughput.svg";
      write_output(
          svg,
          [&](std::ostream& os) {
            os << reports::throughput_svg(name + ": " + describe(model) + ", " + args.bandwidth, sizes,
                                 series, peak_throughput_factor(*tree) * bytes_per_second / 1e6);
          },
          files);
      say << "  plot: " << svg << "\n";
    }
  }
  if (!text) {
    nlohmann::ordered_json facts;
    facts["paper"] = args.paper;
    facts["bandwidth"] = args.bandwidth;
    facts["latency"] = args.latency;
    facts["machines"] = names;
    out << reports::render({"whatif experiment", all_ok ? "pass" : "fail", "", std::move(facts),
                       std::move(long_table), ""},
                      format);
  }
  return all_ok ? 0 : 1;
}

int import_trace(const ImportArgs& args, std::ostream& out) {
  if (args.format != "simgrid-trace")
    throw InputError("import: unknown format '" + args.format + "' (known: simgrid-trace)");
  require_stdin_once({args.file, args.topology});
  const io::TraceImport trace = io::read_simgrid_trace(args.file, args.state, args.call);
  const Topology model = args.topology.empty() ? Topology(FullyConnected(trace.ranks, 1))
                                               : io::read_topology_file(args.topology);
  if (ranks(model) != trace.ranks)
    throw InputError(input_name(args.file) + " has " + std::to_string(trace.ranks) +
                     " ranks, but " + input_name(args.topology) + " has " +
                     std::to_string(ranks(model)));
  const Schedule table = io::trace_schedule(trace, model, parse_collective(args.collective));
  if (args.output.empty() || args.output == "-") {
    out << io::schedule_to_json(table);
    return 0;
  }
  write_output(args.output, [&](std::ostream& os) { os << io::schedule_to_json(table); },
               {args.file, args.topology});
  std::map<std::pair<Rank, Rank>, unsigned> pairs;
  std::size_t self = 0;
  for (const auto& m : trace.messages) {
    if (m.src == m.dst)
      ++self;
    else
      ++pairs[{m.src, m.dst}];
  }
  std::size_t repeated = 0;
  for (const auto& [pair, n] : pairs) repeated += n > 1;
  const std::uint64_t all = std::uint64_t{trace.ranks} * (trace.ranks - 1);
  out << "imported call " << args.call << " of " << trace.calls << " of " << trace.state << " from "
      << args.file << ": " << trace.ranks << " ranks, " << trace.messages.size() << " messages in "
      << table.phases.size() << " steps\n"
      << "  pairs messaged: " << pairs.size() << " of " << all << ", " << repeated
      << " more than once, " << self << " messages to self\n"
      << "  phase table: " << args.output << " (on " << describe(model)
      << "; check it with phasecheck verify)\n";
  return 0;
}

}  // namespace phasecheck::cli
