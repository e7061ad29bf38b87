// `phasecheck deploy`: verified schedules under unmodified MPI programs. The options, a call
// into deploy/deploy.hpp, and what it decided rendered by report/deploy_report.hpp.
#include "cli/deploy.hpp"

#include <ostream>

#include "core/error.hpp"
#include "deploy/deploy.hpp"
#include "report/deploy_report.hpp"

namespace phasecheck::cli {

int deploy(const DeployArgs& args, std::ostream& out) {
  const reports::ReportFormat format = reports::parse_report_format(args.report);
  if (format == reports::ReportFormat::junit)
    throw InputError("deploy: --report takes text or json");
  if (format == reports::ReportFormat::json && args.emit_c && args.output == "-")
    throw InputError(
        "deploy: --report json describes what was written: with --emit-c give -o "
        "FILE.c (on standard output the C itself is the answer)");
  deploy::Request request;
  request.schedules = args.schedules;
  request.output = args.output;
  request.emit_c = args.emit_c;
  request.sync = deploy::parse_sync_choice(args.sync);
  request.compile.mpicc = args.mpicc;
  request.compile.timeout = args.timeout;
  const deploy::Outcome outcome = deploy::deploy(request);
  if (!outcome.c_source.empty()) {  // --emit-c -o -: the C is the answer
    out << outcome.c_source;
    return 0;
  }
  out << reports::render_deploy({args.output, args.emit_c, outcome}, format);
  return outcome.deployed() ? 0 : 1;
}

}  // namespace phasecheck::cli
