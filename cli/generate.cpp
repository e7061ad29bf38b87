// `phasecheck generate ALGORITHM --topology FILE`: a registered algorithm's schedule
// (schedules/registry.hpp) written as JSON (io/schedule_json.hpp), as the compact binary stream
// (io/schedule_binary.hpp) or as a buffer program.

#include "cli/checking.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/traffic_option.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "io/json.hpp"
#include "io/schedule_binary.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string algorithm;
  std::string topology;          ///< topology file
  std::vector<std::string> set;  ///< key=value parameters
  std::string output;            ///< file; empty or "-" for standard output
  std::string format = "json";   ///< json | binary (io/schedule_binary.hpp; phase tables)
  bool buffers = false;          ///< format 3: the buffer program
  TrafficOption traffic;         ///< an alltoallv's matrix
};

void add_options(CLI::App& app, Options& options) {
  app.add_option("algorithm", options.algorithm, "Algorithm name (see `algorithms`)")->required();
  app.add_option("--topology", options.topology, "Topology JSON file")->required();
  app.add_option("--set", options.set, "Algorithm parameter key=value (repeatable)");
  app.add_option("-o,--output", options.output, "Output file (default: standard output)");
  app.add_option("--format", options.format,
                 "json (default) or binary: the compact stream (docs/formats.md), phase tables")
      ->check(one_of({"json", "binary"}));
  app.add_flag("--buffers", options.buffers,
               "Write the buffer program (format 3: where every chunk lands)");
  options.traffic.add(app);
}

int run(const Options& options, const Streams& streams) {
  const auto& algorithm = schedules::require_algorithm(options.algorithm);
  const bool binary = options.format == "binary";
  if (binary && options.buffers)
    throw InputError(
        "generate: --buffers writes JSON (format 3); --format binary carries phase "
        "tables only");
  if (!options.output.empty())
    check_output(options.output, {options.topology, options.traffic.path});
  const Topology machine = io::read_topology_file(options.topology);
  const Parameters parameters = Parameters::parse(options.set);
  const SharedTraffic traffic = options.traffic.read();
  const ScheduleHeader header = on_machine_of(options.topology, [&] {
    return schedules::make_header(algorithm, machine, parameters, traffic);
  });
  // A buffer program is made from the whole table (where each relayed block waits depends on its
  // last use), so both are held: refused before generating when they cannot fit.
  if (options.buffers)
    on_machine_of(options.topology, [&] {
      check_memory(checked_mul(held_table_bytes(header), 2),
                   "generate --buffers on " + std::to_string(header.ranks()) +
                       " ranks (the whole table and its program are held; without --buffers the "
                       "table is streamed)");
    });
  const auto write = [&](std::ostream& os) {
    if (binary) {
      io::BinaryScheduleWriter writer(os, header);
      on_machine_of(options.topology, [&] { algorithm.generate(header, writer.sink()); });
      writer.finish();
      return;
    }
    if (options.buffers) {
      const Schedule program = on_machine_of(
          options.topology, [&] { return schedules::generate_program(algorithm, header); });
      io::ScheduleWriter writer(os, program.header);
      for (const Phase& phase : program.phases) writer.phase(phase);
      writer.finish();
      return;
    }
    io::ScheduleWriter writer(os, header);
    on_machine_of(options.topology, [&] { algorithm.generate(header, writer.sink()); });
    writer.finish();
  };
  if (options.output.empty())
    write(streams.out);
  else
    write_output(options.output, write, {options.topology});
  return 0;
}

constexpr CommandDefinition<Options> definition{
    .name = "generate",
    .summary = "Generate a schedule as JSON",
    .formats = {},
    .add_options = add_options,
    .run = run,
};

}  // namespace

extern const Command generate_command;
const Command generate_command = definition;

}  // namespace phasecheck::cli
