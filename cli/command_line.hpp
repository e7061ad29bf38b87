#pragma once
/// The phasecheck command line: parsing (CLI11, hidden here so that only one translation unit pays
/// for it) apart from running, so that the parser can be fuzzed without running any command.

#include <iosfwd>
#include <memory>
#include <optional>

namespace phasecheck::cli {

class CommandLine {
 public:
  CommandLine();
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  /// Parses and validates the arguments. Returns the exit code when the program stops here
  /// (--help and --version: 0; a usage error or an invalid option value: 2, with the message on
  /// `err`), or nullopt when a command is ready to run.
  std::optional<int> parse(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

  /// Runs the parsed command: its exit code, 2 for bad input (the message on `err`), 3 for an
  /// internal error.
  int run(std::ostream& out, std::ostream& err);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace phasecheck::cli
