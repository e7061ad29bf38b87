// `phasecheck import FORMAT FILE`: a SimGrid Paje trace of a collective turned into a phase table
// (io/simgrid_trace.hpp), or an MSCCL XML program or MSCCL++ plan lowered to a format-3 buffer
// program (verify/msccl_execution.hpp, verify/mscclpp_execution.hpp); what was imported
// rendered by report/transfer_report.hpp.

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "io/json.hpp"
#include "io/msccl_xml.hpp"
#include "io/mscclpp_plan.hpp"
#include "io/simgrid_trace.hpp"
#include "report/transfer_report.hpp"
#include "verify/msccl_execution.hpp"
#include "verify/mscclpp_execution.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string format;  ///< simgrid-trace, msccl or mscclpp
  std::string file;
  std::string topology;  ///< the machine the table is judged on; empty: fully-connected, 1 port
  std::string state = "PMPI_Alltoall";
  unsigned call = 0;
  std::string collective = "alltoall";
  std::string output;  ///< empty: the table on standard output
  reports::ReportFormat report = reports::ReportFormat::text;  ///< json: with -o FILE
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("format", options.format, "simgrid-trace, msccl or mscclpp")
      ->required()
      ->check(one_of({"simgrid-trace", "msccl", "mscclpp"}));
  app.add_option("file", options.file,
                 "Paje trace (smpirun --cfg=tracing:yes ...), MSCCL XML or an MSCCL++ execution "
                 "plan (- for standard input)")
      ->required();
  app.add_option("--topology", options.topology,
                 "The machine to judge the table on (default: fully-connected, 1 port)");
  app.add_option("--state", options.state, "The collective's state (default PMPI_Alltoall)");
  app.add_option("--call", options.call, "Which call of it, from 0 (default 0)")->check(natural());
  app.add_option("--collective", options.collective, "alltoall or allgather")
      ->check(one_of({"alltoall", "allgather"}));
  app.add_option("-o,--output", options.output, "Write the table here (default: standard output)");
  app.add_option("--report", options.report, "What was imported, with -o: text or json");
}

/// MSCCL XML or an MSCCL++ plan in: the program lowered to format 3. Exit 1, and nothing
/// written, when its execution faults (deadlock, race, ...): the JSON would not carry them.
int import_program(const Options& options, std::ostream& out) {
  if (!data_to_stdout(options.output)) check_output(options.output, {options.file});
  const std::string source = input_name(options.file);
  const Schedule program = options.format == "mscclpp"
                               ? mscclpp::lower(io::read_mscclpp_plan_file(options.file), source)
                               : msccl::lower(io::read_msccl_file(options.file), source);
  const Imported& imported = *program.header.imported;
  const reports::MscclImportRun run{source, options.output, imported, program.phases.size()};
  // A program whose execution faults is not written: the JSON would not carry the faults.
  if (!imported.faults.empty()) {
    out << reports::render_msccl_import(run, options.report);
    return 1;
  }
  const auto write = [&](std::ostream& os) {
    io::ScheduleWriter writer(os, program.header);
    for (const Phase& phase : program.phases) writer.phase(phase);
    writer.finish();
  };
  if (data_to_stdout(options.output)) {
    write(out);
    return 0;
  }
  write_output(options.output, write, {options.file});
  out << reports::render_msccl_import(run, options.report);
  return 0;
}

/// A SimGrid Paje trace of a collective turned into a phase table.
int import_trace(const Options& options, std::ostream& out) {
  require_stdin_once({options.file, options.topology});
  if (!data_to_stdout(options.output))
    check_output(options.output, {options.file, options.topology});
  const io::TraceImport trace = io::read_simgrid_trace(options.file, options.state, options.call);
  const Topology model = options.topology.empty() ? Topology(FullyConnected(trace.ranks, 1))
                                                  : io::read_topology_file(options.topology);
  if (ranks(model) != trace.ranks)
    throw InputError(input_name(options.file) + " has " + std::to_string(trace.ranks) +
                     " ranks, but " + input_name(options.topology) + " has " +
                     std::to_string(ranks(model)));
  const Schedule table = io::trace_schedule(trace, model, parse_collective(options.collective));
  if (data_to_stdout(options.output)) {
    out << io::schedule_to_json(table);
    return 0;
  }
  write_output(options.output, [&](std::ostream& os) { os << io::schedule_to_json(table); },
               {options.file, options.topology});
  out << reports::render_trace_import(
      {input_name(options.file), options.output, describe(model), options.call, trace,
       io::coverage(trace), table.phases.size()},
      options.report);
  return 0;
}

int run(const Options& options, const Streams& streams) {
  check_data_report(options.report, options.output, "import");
  if (options.format == "msccl" || options.format == "mscclpp")
    return import_program(options, streams.out);
  return import_trace(options, streams.out);  // one_of admits msccl, mscclpp or simgrid-trace
}

ErrorReport error_report(const Options& options) { return {options.report, "", options.file}; }

constexpr CommandDefinition<Options> definition{
    .name = "import",
    .summary =
        "Turn a SimGrid Paje trace of a collective into a phase table (pattern level: who "
        "sends to whom, in which step of each rank), or an MSCCL XML program or MSCCL++ "
        "execution plan into a format-3 buffer program",
    .formats = reports::transfer_formats,
    .add_options = add_options,
    .run = run,
    .error_report = error_report,
};

}  // namespace

extern const Command import_command;
const Command import_command = definition;

}  // namespace phasecheck::cli
