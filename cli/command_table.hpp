#pragma once
/// Every phasecheck command (cli/command.hpp), each defined by its own file cli/NAME.cpp.

#include <span>

#include "cli/command.hpp"

namespace phasecheck::cli {

/// The commands in the order `phasecheck --help` lists them.
std::span<const Command* const> command_table();

}  // namespace phasecheck::cli
