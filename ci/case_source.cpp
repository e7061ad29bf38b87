#include "ci/case_source.hpp"

#include <filesystem>
#include <memory>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "launch/process.hpp"
#include "pipeline/generator.hpp"
#include "pipeline/read_schedule.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::ci {

CaseSource case_source(const std::string& manifest_path, double timeout) {
  auto scratch = std::make_shared<const launch::ScratchDirectory>();  // the generators' files
  const std::string directory = std::filesystem::absolute(manifest_path).parent_path().string();
  return {
      [scratch, directory, timeout](const io::GateCase& gate_case,
                                    const Topology& model) -> Schedule {
        if (!gate_case.algorithm.empty()) {
          const auto& algorithm = schedules::require_algorithm(gate_case.algorithm);
          const ScheduleHeader header =
              schedules::make_header(algorithm, model, gate_case.parameters);
          check_memory(held_table_bytes(header),
                       gate_case.algorithm + " on " + std::to_string(header.ranks()) +
                           " ranks (gate holds the whole table; `phasecheck check` streams it)");
          Schedule schedule{header, {}};
          algorithm.generate(schedule.header, collect_into(schedule.phases));
          return schedule;
        }
        if (!gate_case.generator.empty()) {
          std::string problem;
          auto generated = pipeline::run_generator({gate_case.generator, directory, timeout},
                                                   model, scratch->path(), problem);
          if (!generated)
            throw InputError(problem.empty() ? "the generator does not take this machine"
                                             : problem);
          return std::move(*generated);
        }
        return pipeline::read_schedule_file(gate_case.schedule);
      },
      schedules::claims_for};
}

}  // namespace phasecheck::ci
