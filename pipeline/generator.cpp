#include "pipeline/generator.hpp"

#include <filesystem>

#include "core/error.hpp"
#include "core/files.hpp"
#include "io/json.hpp"
#include "launch/process.hpp"
#include "pipeline/read_schedule.hpp"

namespace phasecheck::pipeline {

std::optional<Schedule> run_generator(const Generator& g, const Topology& t,
                                      const std::string& scratch, std::string& problem) {
  const std::string in = scratch + "/topology.json", out = scratch + "/schedule.json";
  std::filesystem::remove(out);
  write_output(in, [&](std::ostream& os) { os << io::topology_to_pretty_json(t); });
  const launch::Finished f = launch::run({.argv = launch::shell_command(g.command),
                                          .stdin_file = in,
                                          .stdout_file = out,
                                          .directory = g.directory,
                                          .timeout = g.timeout});
  if (f.status == 2) return std::nullopt;
  if (f.status != 0) {
    problem = "the generator failed (" + f.describe(g.timeout) + "): " + g.command;
    if (const std::string tail = f.err_tail(); !tail.empty()) problem += "\n" + tail;
    return std::nullopt;
  }
  try {
    return pipeline::read_schedule_file(out);
  } catch (const InputError& e) {
    problem = std::string("the generator's output is not a valid schedule: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace phasecheck::pipeline
