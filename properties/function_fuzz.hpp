#pragma once
/// An in-process generator function fuzzed (the Python module's `phasecheck.fuzz`): called on
/// machines built by the constructions of machines.hpp from raw values drawn by a seeded engine,
/// its schedules judged as `phasecheck fuzz --generator` judges a program's (judge_generated), and
/// a failure shrunk greedily to the simplest raw values that still fail. rapidcheck drives
/// `phasecheck fuzz`; it cannot drive this one, because Debian's librapidcheck.a is compiled as
/// position-dependent code that no shared object (a Python extension) can link. The machines are
/// the same constructions; the draws and the shrinking are this file's (docs/python.md).

#include <cstdint>
#include <functional>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "properties/fuzz.hpp"
#include "verify/report.hpp"

namespace phasecheck::properties {

/// One machine's raw values: the construction (machine_kinds()[kind]) and its shrinkable inputs.
struct MachineSeed {
  std::uint8_t kind = 0;
  std::vector<std::uint8_t> a, b, c;
  friend bool operator==(const MachineSeed&, const MachineSeed&) = default;
};

/// The constructions in the order shrinking prefers them, simplest first (generators.hpp's
/// topology() has the same order): fully-connected, cluster, tree, ring, hypercube, mesh, graph.
const std::vector<std::string>& machine_kinds();
/// The machine `seed` makes (any raw values make one).
Topology build_machine(const MachineSeed& seed);
/// A machine drawn at `size` (vectors of up to `size` raw values).
MachineSeed draw_machine(std::mt19937_64& engine, int size);
/// Simpler seeds, the simplest first: an earlier kind, a vector halved or without one element, a
/// value set to 0, halved or lowered by one.
std::vector<MachineSeed> shrinks(const MachineSeed& seed);

/// What breaks a generated schedule `s` on the machine `t`, as `phasecheck fuzz --generator` judges
/// it: verified on `t` with the claims of the algorithm it names, every check but the bounds
/// broken when it does not pass, contention only when `contention_free`. "" when nothing; a
/// schedule that cannot be judged on `t` (another rank count, a malformed phase) is broken too.
/// `report` receives the verification (when there was one).
std::string judge_generated(const Schedule& s, const Topology& t, bool contention_free,
                            verify::Report* report);

/// Thrown by the function to fail the case with `what()` (a schedule it could not make: the
/// Python module's InputError from building one), as an external generator's invalid output fails.
class FunctionFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FunctionFuzzOptions {
  std::string name;           ///< the function's name, for the outcome ("function 'NAME'")
  std::uint64_t cases = 100;  ///< machines the function takes
  std::uint64_t seed = 1;
  int max_size = 40;  ///< the largest size drawn (grows from 1 over the cases)
  bool contention_free = false;
  std::string out;  ///< where a failure's files go; "": none are written
};

/// Throws InputError unless cases, max_size are in range (as validate(FuzzOptions) says).
void validate(const FunctionFuzzOptions& options);

/// Runs the campaign: pass when every case passed, fail with the smallest failing case (its
/// topology and schedule set), not evaluated when the function declined more than 50 machines per
/// case. `function` returns nothing or throws InputError to decline a machine, and throws
/// FunctionFailed to fail the case; anything else it throws ends the campaign (propagates).
FuzzOutcome fuzz_function(const FunctionFuzzOptions& options,
                          const std::function<std::optional<Schedule>(const Topology&)>& function,
                          const CaseReportRenderer& render_case);

}  // namespace phasecheck::properties
