// phasecheck: generate and check communication schedules for all-to-all collectives.

#include <iostream>

#include "cli/command_line.hpp"

int main(int argc, char** argv) {
  phasecheck::cli::CommandLine command_line;
  if (const auto code = command_line.parse(argc, argv, std::cout, std::cerr)) return *code;
  return command_line.run(std::cout, std::cerr);
}
