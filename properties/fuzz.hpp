#pragma once
/// `phasecheck fuzz`: the registry's property (claims_check.hpp) on random machines from the
/// generators of generators.hpp, together with the property of each algorithm's buffer program
/// (broken_program), or an external generator program gated the same way. Driven by
/// rapidcheck: deterministic for a seed, and a failure is shrunk to the smallest machine that
/// still fails, then written out as files a person can replay.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "schedules/registry.hpp"
#include "verify/report.hpp"

namespace phasecheck::properties {

/// The largest rapidcheck size `fuzz` takes: machines grow with it, and beyond this they only
/// repeat the kMaxRanks refusals.
inline constexpr int kMaxFuzzSize = 1000;

struct FuzzOptions {
  std::vector<std::string> algorithms;  ///< registered names; empty: all
  std::uint64_t cases = 200;            ///< per algorithm, when seconds == 0
  double seconds = 0;  ///< > 0: batches of `cases` until the time is spent, shared evenly
  std::uint64_t seed = 1;
  int max_size = 40;                 ///< rapidcheck's size: how large machines get
  std::string out = "fuzz-failure";  ///< where a failure's files go
  std::string generator;             ///< external: CMD < topology.json > schedule.json
  double generator_timeout = 60;     ///< seconds for one run of the generator
  bool contention_free = false;      ///< external: also require contention-freedom
  bool progress = false;             ///< a progress line (for a terminal)
  std::string report = "text";       ///< text | json
};

/// Throws InputError unless every option is in its range (cases, seconds finite, size, seed).
void validate(const FuzzOptions& options);

/// Runs the campaign (after validate); progress lines go to `progress`, the summary and any failure
/// to `out`. Returns 0 when every case passed, 1 on a failure (files written to options.out).
int fuzz(const FuzzOptions& options, std::ostream& out, std::ostream& progress);

/// What the buffer program (format 3, schedules::generate_program) of `a` for the header of
/// `table`, its phase table, breaks on `model`: its placement, or any check that passes for the
/// table (judged as `table_report`); "" when nothing. The program is judged with the
/// algorithm's claims; a program that cannot be made is broken too. `program` and `report`,
/// when given, receive the program and its verification report.
std::string broken_program(const schedules::Algorithm& a, const Schedule& table,
                           const verify::Report& table_report, const Topology& model,
                           Schedule* program = nullptr, verify::Report* report = nullptr);

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

}  // namespace phasecheck::properties
