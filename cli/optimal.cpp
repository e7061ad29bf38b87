// `phasecheck optimal`: the options of the proof (experiments/optimum.hpp), the optimum asked
// for, its witness written when it passed the verifier, and the answer rendered by report/.

#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/suggest.hpp"
#include "experiments/optimum.hpp"
#include "io/json.hpp"
#include "report/optimal_report.hpp"

namespace phasecheck::cli {
namespace {

verify::Symmetry parse_symmetry(const std::string& s) {
  if (s == "clique") return verify::Symmetry::clique;
  if (s == "first") return verify::Symmetry::first;
  if (s == "none") return verify::Symmetry::none;
  throw InputError("--symmetry must be clique, first or none, not '" + s + "'");
}

int optimal_direct(const OptimalArgs& args, const Topology& model, Collective c,
                   std::ostream& out) {
  if (!args.output.empty()) check_output(args.output, {args.topology});
  verify::OptimalOptions o;
  o.collective = c;
  o.timeout = args.timeout;
  o.symmetry = parse_symmetry(args.symmetry);
  o.encoding =
      args.encoding == "pairwise" ? verify::Encoding::pairwise : verify::Encoding::cardinality;
  o.smt2 = args.smt2;
  const experiments::DirectOptimum d = experiments::direct_optimum(model, o);
  // Only a witness the verifier passed is written (the library checked it).
  if (!args.output.empty() && d.solver.witness && d.solver.witness_check.verdict != Verdict::fail)
    write_output(args.output,
                 [&](std::ostream& os) { os << io::schedule_to_json(*d.solver.witness); },
                 {args.topology});
  const reports::OptimumMachine machine{input_name(args.topology), describe(model)};
  out << (args.report == "json" ? reports::optimum_json(d, machine)
                                : reports::optimum_text(d, machine));
  return d.verdict == Verdict::pass ? 0 : 1;
}

int optimal_forwarding(const OptimalArgs& args, const Topology& model, Collective c,
                       std::ostream& out) {
  if (!args.smt2.empty() || !args.output.empty() || args.symmetry != "clique" ||
      args.encoding != "cardinality")
    throw InputError("--smt2, --output, --symmetry and --encoding are for --mode direct");
  verify::ForwardingOptions o;
  o.collective = c;
  o.max_transfer = args.max_transfer;
  o.timeout = args.timeout;
  const experiments::ForwardingOptimum f = experiments::forwarding_optimum(model, o);
  const reports::OptimumMachine machine{input_name(args.topology), describe(model)};
  out << (args.report == "json" ? reports::optimum_json(f, machine)
                                : reports::optimum_text(f, machine));
  return f.solver.verdict() == Verdict::pass ? 0 : 1;
}

}  // namespace

int optimal(const OptimalArgs& args, std::ostream& out) {
  const Topology model = io::read_topology_file(args.topology);
  const Collective c = parse_collective(args.collective);
  check_timeout(args.timeout);
  if (args.mode == "forwarding") return optimal_forwarding(args, model, c, out);
  if (args.mode == "direct") return optimal_direct(args, model, c, out);
  throw InputError("optimal: " + unknown_name("mode", args.mode, {"direct", "forwarding"}));
}

}  // namespace phasecheck::cli
