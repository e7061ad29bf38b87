// The table of commands. Adding one is its file, cli/NAME.cpp, which ends with
// `const Command NAME_command = definition;`, and its name here: declared, and listed where
// `phasecheck --help` is to show it.

#include "cli/command_table.hpp"

namespace phasecheck::cli {

// clang-format off
extern const Command algorithms_command, generate_command, verify_command, draw_command,
    check_command, cost_command, sync_command, run_command, simulate_command, diff_command,
    gate_command, import_command, export_command, deploy_command, lint_command, program_command,
    congestion_command, topology_command, fuzz_command, optimal_command, mutate_command,
    bounds_command, survey_command, sweep_command, whatif_command, record_command;
extern const Command traffic_command;
// clang-format on

std::span<const Command* const> command_table() {
  static constexpr const Command* table[] = {
      &algorithms_command, &generate_command, &verify_command, &draw_command,
      &check_command,      &cost_command,     &sync_command,   &run_command,
      &simulate_command,   &diff_command,     &gate_command,   &import_command,
      &export_command,     &deploy_command,   &lint_command,   &program_command,
      &congestion_command, &topology_command, &fuzz_command,   &optimal_command,
      &mutate_command,     &bounds_command,   &survey_command, &sweep_command,
      &whatif_command,     &record_command,
      &traffic_command,
  };
  return table;
}

}  // namespace phasecheck::cli
