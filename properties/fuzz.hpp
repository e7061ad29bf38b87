#pragma once
/// `phasecheck fuzz`: the registry's property (claims_check.hpp) on random machines from the
/// generators of generators.hpp, or an external generator program gated the same way. Driven by
/// rapidcheck: deterministic for a seed, and a failure is shrunk to the smallest machine that
/// still fails, then written out as files a person can replay.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::properties {

struct FuzzOptions {
  std::vector<std::string> algorithms;  ///< registered names; empty: all
  std::uint64_t cases = 200;            ///< per algorithm, when seconds == 0
  double seconds = 0;  ///< > 0: batches of `cases` until the time is spent, shared evenly
  std::uint64_t seed = 1;
  int max_size = 40;                 ///< rapidcheck's size: how large machines get
  std::string out = "fuzz-failure";  ///< where a failure's files go
  std::string generator;             ///< external: CMD < topology.json > schedule.json
  bool contention_free = false;      ///< external: also require contention-freedom
  bool progress = false;             ///< a progress line (for a terminal)
};

/// Runs the campaign; progress lines go to `progress`, the summary and any failure to `out`.
/// Returns 0 when every case passed, 1 on a failure (files written to options.out).
int fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& progress);

/// The schedule an external generator (a shell command: topology JSON on stdin, schedule JSON on
/// stdout) prints for `t`, using `dir` for the two files; nothing when it exits with 2 (the
/// machine does not apply) or fails, and then `problem` says why (empty for exit 2).
std::optional<Schedule> run_generator(const std::string& command, const Topology& t,
                                      const std::string& dir, std::string& problem);

}  // namespace phasecheck::properties
