#pragma once
/// External generators: a command that reads a machine and prints a schedule. `fuzz`, `gate` and
/// `sweep` take one (--generator CMD, a manifest's "generator"); this is how all of them run it.

#include <optional>
#include <string>

#include "core/schedule.hpp"

namespace phasecheck::pipeline {

/// An external generator: a shell command reading a topology (JSON) on stdin and printing a
/// schedule (JSON) on stdout, run in `directory` (empty: here) with a deadline.
struct Generator {
  std::string command;
  std::string directory;
  double timeout = 60;
};

/// The schedule `g` prints for `t`, using `scratch` (a private directory) for the two files;
/// nothing when it exits with 2 (the machine does not apply) or fails, and then `problem` says
/// why (empty for exit 2): its exit code, signal or timeout, and the tail of its stderr.
std::optional<Schedule> run_generator(const Generator& g, const Topology& t,
                                      const std::string& scratch, std::string& problem);

}  // namespace phasecheck::pipeline
