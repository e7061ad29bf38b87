#include "deploy/deploy.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "deploy/c_source.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"

namespace phasecheck::deploy {

Outcome deploy(const Request& request) {
  if (request.schedules.empty()) throw InputError("deploy: no schedule given");
  require_stdin_once(request.schedules);
  if (request.output.empty())
    throw InputError(request.emit_c
                         ? "deploy --emit-c: -o FILE.c is required (- for standard output)"
                         : "deploy: -o LIB.so is required");
  const bool to_stdout = request.emit_c && request.output == "-";
  if (!request.emit_c && request.output == "-")
    throw InputError("deploy: -o -: a shared library is not written to standard output");
  if (!to_stdout) check_output(request.output, request.schedules);
  if (!request.emit_c) check_timeout(request.compile.timeout);

  Outcome outcome;
  for (const std::string& path : request.schedules) {
    const std::string source = input_name(path);
    // The reader names the file in its messages.
    const Schedule schedule = pipeline::read_schedule_file(path, [&](const ScheduleHeader& h) {
      if (h.ranks() > kMaxDeployRanks)
        throw InputError("deploy works on at most " + std::to_string(kMaxDeployRanks) +
                         " ranks; this schedule has " + std::to_string(h.ranks()));
    });
    outcome.checked.push_back(check(schedule, source, request.sync));
  }
  if (!outcome.deployed()) return outcome;

  std::vector<Plan> plans;
  for (const Checked& c : outcome.checked) plans.push_back(*c.plan);
  if (request.emit_c) {
    std::string text = routine_source(plans);
    outcome.functions = routine_names(plans);
    if (to_stdout)
      outcome.c_source = std::move(text);
    else
      write_output(request.output, [&](std::ostream& os) { os << text; }, request.schedules);
    return outcome;
  }
  build_shared_library(interposer_source(plans), request.output, request.schedules,
                       request.compile);
  return outcome;
}

}  // namespace phasecheck::deploy
