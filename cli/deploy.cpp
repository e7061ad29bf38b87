// `phasecheck deploy SCHEDULE... -o LIB.so`: verified schedules under unmodified MPI programs.
// The options, a call into deploy/deploy.hpp, and what it decided rendered by
// report/deploy_report.hpp.

#include <ostream>

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "deploy/deploy.hpp"
#include "report/deploy_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::vector<std::string> schedules;  ///< schedule files; "-" (standard input) once
  std::string output;                  ///< LIB.so, or with --emit-c the C file ("-": stdout)
  bool emit_c = false;                 ///< write the routines' C source instead of a library
  std::string sync = "auto";           ///< auto | none | barrier | pairwise
  std::string mpicc = "mpicc";
  double timeout = 300;  ///< seconds for mpicc
  reports::ReportFormat report = reports::ReportFormat::text;
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("schedules", options.schedules, "Schedule files (- for standard input)")
      ->required();
  app.add_option("-o,--output", options.output,
                 "The shared library (LIB.so); with --emit-c the C file (- for standard output)")
      ->required();
  app.add_flag("--emit-c", options.emit_c,
               "Write one C99 function per schedule (phasecheck_<name>_alltoall) instead");
  app.add_option("--sync", options.sync,
                 "Phase separation (default auto: pairwise on a routed model, none on a fully "
                 "connected one, barrier otherwise)")
      ->check(one_of({"auto", "none", "barrier", "pairwise"}));
  app.add_option("--mpicc", options.mpicc, "The MPI C compiler (default mpicc)");
  app.add_option("--timeout", options.timeout, "Seconds before mpicc is stopped (default 300)");
  app.add_option("--report", options.report, "What was verified and written: text or json");
}

/// Verifies every schedule and, when all pass, writes the PMPI interposer (built by mpicc) or
/// the C routines. Exit 1, nothing written, when a schedule is refused (its report follows).
int run(const Options& options, const Streams& streams) {
  if (options.report == reports::ReportFormat::json && options.emit_c && options.output == "-")
    throw InputError(
        "deploy: --report json describes what was written: with --emit-c give -o "
        "FILE.c (on standard output the C itself is the answer)");
  deploy::Request request;
  request.schedules = options.schedules;
  request.output = options.output;
  request.emit_c = options.emit_c;
  request.sync = deploy::parse_sync_choice(options.sync);
  request.compile.mpicc = options.mpicc;
  request.compile.timeout = options.timeout;
  const deploy::Outcome outcome = deploy::deploy(request);
  if (!outcome.c_source.empty()) {  // --emit-c -o -: the C is the answer
    streams.out << outcome.c_source;
    return 0;
  }
  streams.out << reports::render_deploy({options.output, options.emit_c, outcome}, options.report);
  return outcome.deployed() ? 0 : 1;
}

ErrorReport error_report(const Options& options) {
  return {options.report, "", options.schedules.empty() ? "deploy" : options.schedules.front()};
}

constexpr CommandDefinition<Options> definition{
    .name = "deploy",
    .summary =
        "Verify schedules and build a PMPI interposer of MPI_Alltoall and MPI_Allgather "
        "that unmodified MPI programs run with LD_PRELOAD, or with --emit-c their C "
        "routines",
    .formats = reports::deploy_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command deploy_command;
const Command deploy_command = definition;

}  // namespace phasecheck::cli
