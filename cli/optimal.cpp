// `phasecheck optimal --topology FILE`: the optimum asked of experiments/optimum.hpp (Z3: a
// verified witness, UNSAT below it), its witness written when it passed the verifier, and the
// answer rendered by report/optimal_report.hpp.

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "experiments/optimum.hpp"
#include "io/json.hpp"
#include "report/optimal_report.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string topology;
  std::string collective = "alltoall";
  double timeout = 60;  ///< seconds per solver call
  reports::ReportFormat report = reports::ReportFormat::text;
  std::string mode = "direct";           ///< direct or forwarding
  std::string symmetry = "clique";       ///< clique, first or none (to measure it)
  std::string encoding = "cardinality";  ///< cardinality or pairwise (to measure it)
  std::uint64_t max_transfer = 0;        ///< forwarding: blocks per transfer (0: no limit)
  std::string smt2;                      ///< write the instance as SMT-LIB2
  std::string output;                    ///< write the optimal schedule
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("--topology", options.topology, "Topology JSON file (at most 12 ranks)")
      ->required();
  app.add_option("--collective", options.collective, "alltoall or allgather")
      ->check(one_of({"alltoall", "allgather"}));
  app.add_option("--timeout", options.timeout, "Seconds per solver call (default 60)");
  app.add_option("--report", options.report, "Report format");
  app.add_option("--mode", options.mode,
                 "direct (each message straight to its destination) or forwarding (k-port, "
                 "blocks relayed: the (C1, C2) Pareto frontier)")
      ->check(one_of({"direct", "forwarding"}));
  app.add_option("--symmetry", options.symmetry,
                 "clique (default), first or none: which messages to fix to phases")
      ->check(one_of({"clique", "first", "none"}));
  app.add_option("--encoding", options.encoding,
                 "cardinality (default) or pairwise at-most-one constraints")
      ->check(one_of({"cardinality", "pairwise"}));
  app.add_option("--max-transfer", options.max_transfer,
                 "forwarding: at most this many blocks per transfer (default no limit)")
      ->check(natural());
  app.add_option("--smt2", options.smt2, "Write the instance as SMT-LIB2 to this file");
  app.add_option("-o,--output", options.output, "Write the optimal schedule to this file");
}

verify::Symmetry symmetry_named(const std::string& name) {
  if (name == "first") return verify::Symmetry::first;
  if (name == "none") return verify::Symmetry::none;
  return verify::Symmetry::clique;  // one_of admits only these three
}

int optimal_direct(const Options& options, const Topology& model, Collective collective,
                   std::ostream& out) {
  if (!options.output.empty()) check_output(options.output, {options.topology});
  verify::OptimalOptions solver;
  solver.collective = collective;
  solver.timeout = options.timeout;
  solver.symmetry = symmetry_named(options.symmetry);
  solver.encoding =
      options.encoding == "pairwise" ? verify::Encoding::pairwise : verify::Encoding::cardinality;
  solver.smt2 = options.smt2;
  const experiments::DirectOptimum optimum = experiments::direct_optimum(model, solver);
  // Only a witness the verifier passed is written (the library checked it).
  if (!options.output.empty() && optimum.solver.witness &&
      optimum.solver.witness_check.verdict != verify::Verdict::fail)
    write_output(options.output,
                 [&](std::ostream& os) { os << io::schedule_to_json(*optimum.solver.witness); },
                 {options.topology});
  const reports::OptimumMachine machine{input_name(options.topology), describe(model)};
  out << (options.report == reports::ReportFormat::json ? reports::optimum_json(optimum, machine)
                                                        : reports::optimum_text(optimum, machine));
  return optimum.verdict == verify::Verdict::pass ? 0 : 1;
}

int optimal_forwarding(const Options& options, const Topology& model, Collective collective,
                       std::ostream& out) {
  if (!options.smt2.empty() || !options.output.empty() || options.symmetry != "clique" ||
      options.encoding != "cardinality")
    throw InputError("--smt2, --output, --symmetry and --encoding are for --mode direct");
  verify::ForwardingOptions solver;
  solver.collective = collective;
  solver.max_transfer = options.max_transfer;
  solver.timeout = options.timeout;
  const experiments::ForwardingOptimum optimum = experiments::forwarding_optimum(model, solver);
  const reports::OptimumMachine machine{input_name(options.topology), describe(model)};
  out << (options.report == reports::ReportFormat::json ? reports::optimum_json(optimum, machine)
                                                        : reports::optimum_text(optimum, machine));
  return optimum.solver.verdict() == verify::Verdict::pass ? 0 : 1;
}

/// Exit 0 when proven, 1 when unknown (a timeout) or a witness fails the checkers.
int run(const Options& options, const Streams& streams) {
  // -o -: the schedule is standard output, so the report goes to standard error.
  std::ostream& out = options.output == "-" ? streams.err : streams.out;
  const Topology model = io::read_topology_file(options.topology);
  const Collective collective = parse_collective(options.collective);
  check_timeout(options.timeout);
  if (options.mode == "forwarding") return optimal_forwarding(options, model, collective, out);
  return optimal_direct(options, model, collective, out);  // one_of admits direct or forwarding
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.topology}; }

constexpr CommandDefinition<Options> definition{
    .name = "optimal",
    .summary =
        "Minimal phases of a direct schedule on a machine, proven with Z3 (SAT witness "
        "verified, UNSAT below it), or unknown on a timeout",
    .formats = reports::optimum_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command optimal_command;
const Command optimal_command = definition;

}  // namespace phasecheck::cli
