// `phasecheck run` and `phasecheck simulate`: a schedule's per-rank programs executed by
// phasecheck-runner (runner/runner.cpp) under Open MPI's mpirun on this machine, or under
// SimGrid's smpirun on a simulated network built from a tree topology (docs/run.md).

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/table.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "io/json.hpp"
#include "io/programs_json.hpp"
#include "programs/program.hpp"
#include "programs/synchronization.hpp"
#include "verify/verifier.hpp"

extern char** environ;

namespace phasecheck::cli {
namespace {

/// A file in the system's temporary directory, removed when this goes out of scope.
class TempFile {
 public:
  explicit TempFile(const std::string& suffix) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("phasecheck-XXXXXX" + suffix)).string();
    const int fd = mkstemps(pattern.data(), static_cast<int>(suffix.size()));
    if (fd < 0) throw InputError("cannot create a temporary file in " + pattern);
    close(fd);
    path_ = pattern;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

struct Finished {
  int status = -1;  ///< exit code; -1 when killed or not started
  bool timed_out = false;
  std::string out, err;
};

/// Runs argv[0] (searched in PATH) with stdout and stderr captured, in its own process group,
/// killed with the group after `timeout` seconds. No shell: arguments are passed as they are.
Finished run_process(const std::vector<std::string>& argv, double timeout) {
  TempFile out(".out"), err(".err");
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, out.path().c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawn_file_actions_addopen(&files, 2, err.path().c_str(), O_WRONLY | O_TRUNC, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &files, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  Finished f;
  if (spawned != 0) {
    f.err = argv[0] + ": cannot start it (" + std::strerror(spawned) + ")";
    return f;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      f.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (!f.timed_out && WIFEXITED(status)) f.status = WEXITSTATUS(status);
  f.out = slurp(out.path());
  f.err = slurp(err.path());
  return f;
}

/// The runner binary: $PHASECHECK_RUNNER / $PHASECHECK_SMPI_RUNNER, else the one built with
/// this program.
std::string runner_path(bool smpi) {
  if (const char* env = std::getenv(smpi ? "PHASECHECK_SMPI_RUNNER" : "PHASECHECK_RUNNER"))
    return env;
  return smpi ? PHASECHECK_SMPI_RUNNER : PHASECHECK_RUNNER;
}

/// The runner's result line (rank 0 prints one JSON object), or an InputError with what the
/// launcher said.
nlohmann::json result_of(const Finished& f, const std::string& launcher) {
  std::istringstream lines(f.out);
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty() && line.front() == '{') last = line;
  if (f.timed_out) throw InputError(launcher + " did not finish in time (a deadlock?)");
  if (last.empty() || f.status != 0) {
    std::string tail = f.err.size() > 2000 ? f.err.substr(f.err.size() - 2000) : f.err;
    throw InputError(launcher + " failed (exit " + std::to_string(f.status) + "):\n" + tail);
  }
  return nlohmann::json::parse(last);
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
};

/// The schedule, verified, and its programs written to `plan`.
Prepared prepare(const std::string& path, const std::string& sync, const Topology* model,
                 const TempFile& plan) {
  Prepared p{io::read_schedule_file(path), {}, programs::parse_separation(sync)};
  const Topology& judge = model ? *model : p.table.header.topology;
  p.report = verify::verify(p.table, judge, claims_for(p.table.header));
  std::optional<programs::SyncPlan> sync_plan;
  if (p.separation == programs::Separation::pairwise)
    sync_plan = programs::pairwise_synchronization(p.table, judge);
  const auto progs =
      programs::rank_programs(p.table, p.separation, sync_plan ? &*sync_plan : nullptr);
  write_file_atomically(plan.path(), [&](std::ostream& os) {
    os << io::programs_to_json(progs, p.table, path, p.separation);
  });
  return p;
}

void check_common(std::uint64_t bytes, unsigned repeats, double timeout) {
  if (bytes < 1 || bytes > (1u << 26))
    throw InputError("--bytes must be in [1, 67108864] (bytes per message)");
  if (repeats < 1 || repeats > 1000) throw InputError("--repeats must be in [1, 1000]");
  if (!(timeout > 0) || !std::isfinite(timeout) || timeout > 86400)
    throw InputError("--timeout must be a positive number of seconds (at most a day)");
}

std::string ms(double seconds) { return number(seconds * 1e3) + " ms"; }

/// The verdict and the timing lines shared by run and simulate; returns the exit code.
int report(const Prepared& p, const nlohmann::json& r, const std::string& where,
           const std::string& library, std::ostream& out) {
  const long long bad = r.at("errors").get<long long>();
  const double schedule = r.at("schedule_seconds").get<double>(),
               lib = r.at("library_seconds").get<double>();
  const Rank ranks = p.table.header.ranks();
  out << (bad == 0 ? "PASS" : "FAIL") << "  " << p.table.header.algorithm << " ("
      << p.table.header.collective << ") on " << ranks << " ranks " << where << ": "
      << (bad == 0 ? "every byte arrived as sent"
                   : std::to_string(bad) + (bad == 1 ? " error" : " errors") + " in the data")
      << "\n  " << r.at("bytes").get<std::uint64_t>() << " bytes per message, "
      << programs::to_string(p.separation) << " separation, median of "
      << r.at("repeats").get<int>() << " calls (the slowest rank's time)\n"
      << "  schedule "
      << (p.report.verdict() == verify::Verdict::pass ? "verifies" : "DOES NOT VERIFY")
      << " on its model\n"
      << "  " << p.table.header.algorithm << ": " << ms(schedule) << " per call\n"
      << "  " << library << ": " << ms(lib) << " per call (same run); ratio "
      << number(lib > 0 ? schedule / lib : 0) << "\n";
  return bad == 0 ? 0 : 1;
}

/// The runner's error lines, after the summary; "..." when there were more.
void print_errors(const std::vector<std::string>& errors, const nlohmann::json& r,
                  std::ostream& out) {
  for (const auto& e : errors) out << "  " << e << "\n";
  if (r.at("errors").get<std::size_t>() > errors.size()) out << "  ...\n";
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

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

/// A SimGrid platform of the tree (toolchain.md, measured on this machine): one Floyd zone,
/// machines as hosts, switches as routers, one split-duplex link per cable, one route per cable
/// (the reverse route takes the other half).
std::string platform_xml(const Tree& tree, const std::string& bandwidth,
                         const std::string& latency) {
  std::ostringstream x;
  x << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
    << "<platform version=\"4.1\">\n<zone id=\"tree\" routing=\"Floyd\">\n";
  for (const auto& m : tree.machines())
    x << "  <host id=\"" << xml_escape(m) << "\" speed=\"1Gf\"/>\n";
  for (const auto& s : tree.switches()) x << "  <router id=\"" << xml_escape(s) << "\"/>\n";
  for (std::size_t i = 0; i < tree.links().size(); ++i)
    x << "  <link id=\"cable" << i << "\" bandwidth=\"" << bandwidth << "\" latency=\"" << latency
      << "\" sharing_policy=\"SPLITDUPLEX\"/>\n";
  for (std::size_t i = 0; i < tree.links().size(); ++i) {
    const auto& [a, b] = tree.links()[i];
    x << "  <route src=\"" << xml_escape(a) << "\" dst=\"" << xml_escape(b)
      << "\"><link_ctn id=\"cable" << i << "\" direction=\"UP\"/></route>\n";
  }
  x << "</zone>\n</platform>\n";
  return x.str();
}

const std::vector<std::string> kOpenMpi = {
    "mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "pml", "ob1", "--mca",
    "btl",    "self,vader"};

}  // namespace

int run(const RunArgs& args, std::ostream& out) {
  check_common(args.bytes, args.repeats, args.timeout);
  TempFile plan(".json");
  const Prepared p = prepare(args.schedule, args.sync, nullptr, plan);
  const Rank ranks = p.table.header.ranks();
  if (args.np != 0 && args.np != ranks)
    throw InputError("--np " + std::to_string(args.np) + ": the schedule has " +
                     std::to_string(ranks) + " ranks");
  if (ranks < 2 || ranks > 256) throw InputError("run: 2 to 256 ranks on this machine");
  std::vector<std::string> cmd = kOpenMpi;
  for (const std::string& a :
       {std::string("-np"), std::to_string(ranks), std::string("--timeout"),
        std::to_string(static_cast<long>(std::ceil(args.timeout))), runner_path(false), plan.path(),
        std::string("--bytes"), std::to_string(args.bytes), std::string("--repeats"),
        std::to_string(args.repeats)})
    cmd.push_back(a);
  const Finished f = run_process(cmd, args.timeout + 30);
  const nlohmann::json r = result_of(f, "mpirun");
  const int code =
      report(p, r, "under Open MPI (mpirun, this machine)",
             std::string("MPI_") +
                 (p.table.header.collective == Collective::alltoall ? "Alltoall" : "Allgather"),
             out);
  print_errors(rank_errors(f.err, 10), r, out);
  return code;
}

int simulate(const SimulateArgs& args, std::ostream& out) {
  check_common(args.bytes, args.repeats, args.timeout);
  const Topology model = io::read_topology_file(args.topology);
  const auto* tree = std::get_if<Tree>(&model);
  if (!tree) throw InputError(args.topology + ": simulate needs a tree topology");
  const double bytes_per_second = quantity(args.bandwidth, "--bandwidth",
                                           {{"bps", 1 / 8.},
                                            {"kbps", 1e3 / 8},
                                            {"Mbps", 1e6 / 8},
                                            {"Gbps", 1e9 / 8},
                                            {"Bps", 1},
                                            {"kBps", 1e3},
                                            {"MBps", 1e6},
                                            {"GBps", 1e9}});
  quantity(args.latency, "--latency", {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}});
  const std::string& bandwidth = args.bandwidth;
  const std::string& latency = args.latency;
  TempFile plan(".json"), platform(".xml"), hosts(".txt");
  const Prepared p = prepare(args.schedule, args.sync, &model, plan);
  if (p.table.header.ranks() != tree->ranks())
    throw InputError(args.schedule + ": " + std::to_string(p.table.header.ranks()) +
                     " ranks, but " + args.topology + " has " + std::to_string(tree->ranks()) +
                     " machines");
  write_file_atomically(platform.path(),
                        [&](std::ostream& os) { os << platform_xml(*tree, bandwidth, latency); });
  write_file_atomically(hosts.path(), [&](std::ostream& os) {
    for (const auto& m : tree->machines()) os << m << "\n";  // rank i on machine i
  });
  std::vector<std::string> cmd = {"smpirun",
                                  "-np",
                                  std::to_string(tree->ranks()),
                                  "-platform",
                                  platform.path(),
                                  "-hostfile",
                                  hosts.path(),
                                  "--cfg=smpi/simulate-computation:no",
                                  "--cfg=network/crosstraffic:0",
                                  "--cfg=smpi/bw-factor:0:1",
                                  "--cfg=smpi/lat-factor:0:1",
                                  "--log=root.thres:critical"};
  if (!args.library.empty()) cmd.push_back("--cfg=smpi/alltoall:" + args.library);
  for (const std::string& a :
       {runner_path(true), plan.path(), std::string("--bytes"), std::to_string(args.bytes),
        std::string("--repeats"), std::to_string(args.repeats)})
    cmd.push_back(a);
  const Finished f = run_process(cmd, args.timeout);
  const nlohmann::json r = result_of(f, "smpirun");
  const std::string library =
      p.table.header.collective == Collective::alltoall
          ? "MPI_Alltoall (SimGrid's " + (args.library.empty() ? "default" : args.library) + ")"
          : std::string("MPI_Allgather (SimGrid's default)");
  const int code = report(p, r,
                          "simulated by SimGrid on " + describe(model) + ", " + bandwidth +
                              " links, " + latency + " latency",
                          library, out);
  // Faraj & Yuan, Section 3: no alltoall moves more than |M| (|M| - 1) B / (|Mu| |Mv|) bytes per
  // second in aggregate.
  if (p.table.header.collective == Collective::alltoall) {
    const double M = tree->ranks(), total = M * (M - 1) * double(args.bytes);
    const double schedule = r.at("schedule_seconds").get<double>(),
                 lib = r.at("library_seconds").get<double>();
    const double peak = peak_throughput_factor(*tree) * bytes_per_second;
    out << "  aggregate throughput: " << p.table.header.algorithm << " "
        << number(total / schedule / 1e6) << " MB/s, library " << number(total / lib / 1e6)
        << " MB/s; peak bound |M| (|M| - 1) B / (|Mu| |Mv|) = " << number(peak / 1e6) << " MB/s\n";
  }
  print_errors(rank_errors(f.err, 10), r, out);
  return code;
}

}  // namespace phasecheck::cli
