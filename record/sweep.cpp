#include "record/sweep.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/files.hpp"
#include "core/progress.hpp"
#include "io/json.hpp"
#include "launch/process.hpp"
#include "launch/runner.hpp"
#include "record/open_mpi.hpp"

#ifndef PHASECHECK_RECORD_DRIVER
#define PHASECHECK_RECORD_DRIVER ""
#endif

namespace phasecheck::record {
namespace {

namespace fs = std::filesystem;

/// One case to run: its place in the sweep's order and its directory.
struct Pending {
  std::uint32_t count = 0;
  Types types = Types::contiguous;
  bool inplace = false;
};

std::string case_argument(const Pending& c, const std::string& dir) {
  return std::to_string(c.count) + "," + std::string(to_string(c.types)) + "," +
         (c.inplace ? "1" : "0") + "," + dir;
}

/// The file name -o keeps a case's table under: made of the sweep's own words, never of input.
std::string table_name(const std::string& algorithm, Level level, const Case& c) {
  const std::string who = level == Level::pmpi ? "function"
                          : algorithm.empty()  ? "default"
                                               : algorithm;
  return who + "-p" + std::to_string(c.ranks) + "-c" + std::to_string(c.count) + "-" +
         std::string(to_string(c.types)) + (c.inplace ? "-inplace" : "") + ".json";
}

struct Group {
  const SweepSpec& spec;
  const Installation& installation;
  std::string driver;
  std::string algorithm;  ///< as asked: an Open MPI name, "" (unforced) or the symbol
  std::vector<std::string> force;
  std::string fallback;  ///< the table's name when no registered algorithm matches
  std::string fallback_inplace;  ///< the same for in-place cases, when the library says otherwise
  std::string prefer;            ///< registered algorithms to identify the table with first
};

std::vector<std::string> mpirun_argv(const Group& g, Rank p, double timeout,
                                     const std::vector<std::string>& cases) {
  std::vector<std::string> argv = {g.installation.mpirun, "--allow-run-as-root", "--oversubscribe",
                                   "--mca", "pml", "ob1", "--mca", "btl", "self,vader",
                                   "-np", std::to_string(p), "--timeout",
                                   std::to_string(static_cast<long>(std::ceil(timeout)))};
  for (const std::string& f : g.force) argv.push_back(f);
  if (!g.installation.prefix.empty()) {
    argv.push_back("-x");
    argv.push_back("LD_LIBRARY_PATH=" + g.installation.prefix + "/lib");
  }
  argv.push_back(g.driver);
  argv.push_back("--level");
  argv.push_back(std::string(to_string(g.spec.level)));
  if (g.spec.level == Level::pmpi) {
    argv.push_back("--function");
    argv.push_back(g.spec.function);
  }
  argv.push_back("--collective");
  argv.push_back(g.spec.collective == Collective::alltoall ? "alltoall" : "allgather");
  argv.push_back("--deadline");
  argv.push_back(std::to_string(static_cast<long>(std::ceil(g.spec.timeout))));
  for (const std::string& c : cases) {
    argv.push_back("--case");
    argv.push_back(c);
  }
  return argv;
}

/// Seconds mpirun may take to start and end its ranks, beyond the calls' own deadlines.
constexpr double kStartup = 30;

/// What mpirun's standard error says of a run that stopped: the driver's own lines when there
/// are any (a deadline passed, a bad argument), else mpirun's last line that is not a rule.
std::string said(const std::string& err) {
  std::string driver, last;
  std::size_t at = 0;
  while (at < err.size()) {
    const std::size_t eol = std::min(err.find('\n', at), err.size());
    const std::string line = err.substr(at, eol - at);
    at = eol + 1;
    if (line.rfind("phasecheck-record-driver:", 0) == 0 && driver.empty()) driver = line;
    if (!line.empty() && line.find_first_not_of("- ") != std::string::npos) last = line;
  }
  const std::string& pick = driver.empty() ? last : driver;
  return pick.empty() ? std::string() : ": " + pick;
}

/// Whether every rank of the case wrote its end line (the driver moved on to the next case).
bool finished(const Recording& rec) {
  for (const RankRecording& r : rec.rank)
    if (!r.end) return false;
  return true;
}

/// Runs every case of one algorithm at p ranks; appends them to `out` in order.
void run_group(const Group& g, Rank p, const std::vector<Pending>& todo, Sweep& out,
               ProgressMeter& meter) {
  std::size_t next = 0;
  while (next < todo.size()) {
    launch::ScratchDirectory scratch;
    std::vector<std::string> cases;
    for (std::size_t i = next; i < todo.size(); ++i) {
      const std::string dir = scratch.file("case-" + std::to_string(i));
      fs::create_directory(dir);
      cases.push_back(case_argument(todo[i], dir));
    }
    // Each call has its own deadline in the driver (--deadline); mpirun's covers start-up too.
    const double deadline = g.spec.timeout * static_cast<double>(cases.size()) + kStartup;
    launch::Command command;
    command.argv = mpirun_argv(g, p, deadline, cases);
    command.timeout = deadline + launch::kMpirunGrace;
    const launch::Finished run = launch::run(command);
    if (run.status && *run.status == 5)  // the driver: this library cannot be recorded
      throw InputError("the recording driver refused this MPI library: " + run.err_tail(3));
    const std::size_t first = next;
    const std::string happened = "mpirun " + run.describe(command.timeout) + said(run.err);
    for (std::size_t i = next; i < todo.size(); ++i) {
      const std::string dir = scratch.file("case-" + std::to_string(i));
      const bool started = fs::exists(fs::path(dir) / "rank-0.jsonl");
      if (!started && i > first) break;  // the driver stopped before it: run it again
      Case c;
      c.algorithm = g.algorithm;
      c.ranks = p;
      c.count = todo[i].count;
      c.types = todo[i].types;
      c.inplace = todo[i].inplace;
      if (g.spec.replay) c.replay = g.spec.replay(g.algorithm, p, c.count, c.types, c.inplace);
      const std::string& name =
          c.inplace && !g.fallback_inplace.empty() ? g.fallback_inplace : g.fallback;
      // Contention is judged on the fully connected machine the processes share; the kept
      // tables go through `verify --topology` for any other.
      const Topology model = FullyConnected(p, std::max<Rank>(1, p - 1));
      bool done = false;
      try {
        if (!started) throw InputError("no rank started the case");
        const Recording rec = read_recording(dir);
        if (out.library.empty()) out.library = rec.library;
        done = finished(rec);
        c.judgement = judge(rec, model, name, g.prefer);
        if (!done) c.judgement.report.checks.front().summary += "; " + happened;
      } catch (const InputError& e) {
        c.judgement = unfinished(name, g.spec.collective, model, std::string(e.what()) + "; " + happened);
      }
      if (c.judgement.schedule && !g.spec.keep.empty()) {
        c.schedule_file = (fs::path(g.spec.keep) / table_name(g.algorithm, g.spec.level, c)).string();
        write_output(c.schedule_file,
                     [&](std::ostream& os) { os << io::schedule_to_json(*c.judgement.schedule); });
      }
      out.cases.push_back(std::move(c));
      meter.advance();
      next = i + 1;
      if (!done) break;
    }
  }
}

}  // namespace

Verdict Sweep::verdict() const {
  std::vector<Verdict> verdicts;
  for (const Case& c : cases) verdicts.push_back(c.judgement.report.verdict());
  return overall(verdicts);
}

std::string driver_path() {
  if (const char* env = std::getenv("PHASECHECK_RECORD_DRIVER"); env && *env) return env;
  const std::string built = PHASECHECK_RECORD_DRIVER;
  if (built.empty())
    throw InputError("this phasecheck was built without the recording driver "
                     "(-DPHASECHECK_BUILD_RUNNER=OFF)");
  return built;
}

Sweep sweep(const SweepSpec& spec) {
  const Installation installation = find_installation(spec.mpi_prefix);
  const std::string driver = driver_path();
  if (::access(driver.c_str(), X_OK) != 0)
    throw InputError("the recording driver " + text_escape(driver) + " is not there (build it: "
                     "the target phasecheck-record-driver)");
  std::vector<Group> groups;
  if (spec.level == Level::pmpi) {
    const std::size_t colon = spec.function.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == spec.function.size())
      throw InputError("record function: \"" + text_escape(spec.function) +
                       "\" is not LIB.so:SYMBOL");
    const std::string library = spec.function.substr(0, colon);
    if (!fs::is_regular_file(library))
      throw InputError(text_escape(library) + ": not a regular file (record function LIB.so:SYMBOL)");
    groups.push_back({spec, installation, driver, spec.function.substr(colon + 1), {},
                      spec.function.substr(colon + 1)});
  } else if (spec.algorithms.empty()) {
    groups.push_back({spec, installation, driver, "", {}, "ompi:default"});
  } else {
    for (const std::string& name : spec.algorithms) {
      const OmpiAlgorithm& a = find_ompi_algorithm(spec.collective, name);
      groups.push_back({spec, installation, driver, std::string(a.name),
                        force_algorithm(spec.collective, a), "ompi:" + std::string(a.name),
                        "", std::string(a.registry)});
    }
  }
  for (Group& g : groups) {
    // Open MPI 4.1's tuned decision sends every MPI_IN_PLACE alltoall to basic in-place
    // (coll_tuned_decision_fixed.c and _dynamic.c), whatever algorithm is forced: named so.
    if (spec.level == Level::pml && spec.collective == Collective::alltoall) {
      g.fallback_inplace = "ompi:basic_inplace";
    }
  }
  if (!spec.keep.empty()) {
    if (fs::exists(fs::symlink_status(spec.keep)) && !fs::is_directory(fs::symlink_status(spec.keep)))
      throw InputError("-o " + text_escape(spec.keep) + ": not a directory");
    fs::create_directories(spec.keep);
  }
  std::vector<Pending> todo;
  for (const std::uint32_t count : spec.counts)
    for (const Types t : spec.types)
      for (const bool inplace : spec.inplace) todo.push_back({count, t, inplace});

  Sweep out;
  out.level = spec.level;
  out.collective = spec.collective;
  out.routine = spec.level == Level::pmpi ? spec.function
                : spec.collective == Collective::alltoall ? "MPI_Alltoall"
                                                          : "MPI_Allgather";
  ProgressMeter meter(spec.progress, "record", "cases",
                      groups.size() * spec.ranks.size() * todo.size());
  for (const Group& g : groups)
    for (const Rank p : spec.ranks) {
      meter.note((g.algorithm.empty() ? std::string() : g.algorithm + " ") + "p=" + std::to_string(p));
      run_group(g, p, todo, out, meter);
    }
  meter.finish();
  if (!spec.keep.empty()) {
    std::string lines;
    for (const Case& c : out.cases)
      if (c.judgement.report.verdict() == Verdict::fail) lines += c.replay + "\n";
    if (!lines.empty())
      write_output((fs::path(spec.keep) / "replay.txt").string(),
                   [&](std::ostream& os) { os << lines; });
  }
  if (out.library.empty()) out.library = installation.version;
  return out;
}

}  // namespace phasecheck::record
