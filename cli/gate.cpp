// `phasecheck diff` and `phasecheck gate` (docs/ci.md): the options, the schedules they read or
// make, the policy of ci/ and a renderer of report/.

#include <filesystem>
#include <set>

#include "ci/comparison.hpp"
#include "ci/gate.hpp"
#include "cli/commands.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/progress.hpp"
#include "fuzz.hpp"
#include "io/gate_manifest.hpp"
#include "io/json.hpp"
#include "launch/process.hpp"
#include "pipeline/read_schedule.hpp"
#include "report/comparison_report.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::cli {

int diff(const DiffArgs& args, std::ostream& out) {
  require_stdin_once({args.before, args.after, args.topology});
  const std::set<std::string> allow(args.allow.begin(), args.allow.end());
  std::optional<Topology> model;
  if (!args.topology.empty()) model = io::read_topology_file(args.topology);
  const auto side = [&](const std::string& path) {
    Schedule s = pipeline::read_schedule_file(path);
    const Claims claims = schedules::claims_for(s.header);
    return ci::judge(std::move(s), input_name(path), model ? &*model : nullptr, claims);
  };
  ci::Side before = side(args.before);
  ci::Side after = side(args.after);
  const ci::Comparison c = ci::compare(std::move(before), std::move(after), allow);
  out << reports::render_comparison(c, args.report);
  return c.passed() ? 0 : 1;
}

int gate(const GateArgs& args, std::ostream& out) {
  const io::GateManifest manifest = io::read_gate_manifest(args.manifest);
  check_timeout(args.timeout);
  const launch::ScratchDirectory scratch;  // the external generators' files
  // Generators run in the manifest's directory, like its relative paths.
  const std::string dir = std::filesystem::absolute(args.manifest).parent_path().string();
  const ci::CaseSource source{
      [&](const io::GateCase& g, const Topology& model) -> Schedule {
        if (!g.algorithm.empty()) {
          // The case's table is held whole (diffed, and written by --update): refused before
          // generating when it cannot fit.
          const auto& algorithm = schedules::require_algorithm(g.algorithm);
          const ScheduleHeader header = schedules::make_header(algorithm, model, g.parameters);
          check_memory(held_table_bytes(header),
                       g.algorithm + " on " + std::to_string(header.ranks()) +
                           " ranks (gate holds the whole table; `phasecheck check` streams it)");
          Schedule s{header, {}};
          algorithm.generate(s.header, collect_into(s.phases));
          return s;
        }
        if (!g.generator.empty()) {
          std::string problem;
          auto got = properties::run_generator({g.generator, dir, args.timeout}, model,
                                               scratch.path(), problem);
          if (!got)
            throw InputError(problem.empty() ? "the generator does not take this machine"
                                             : problem);
          return std::move(*got);
        }
        return pipeline::read_schedule_file(g.schedule);
      },
      schedules::claims_for};
  const ci::GateResult result = ci::run_gate(args.manifest, manifest,
                                             {{args.allow.begin(), args.allow.end()},
                                              args.update,
                                              args.allow_outside,
                                              !args.no_generators},
                                             source, terminal_stderr());
  out << reports::render_gate(result, args.report);
  return result.failed() ? 1 : 0;
}

}  // namespace phasecheck::cli
