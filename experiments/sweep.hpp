#pragma once
/// `phasecheck sweep`: one algorithm generated and verified at every p of a range (and every value
/// of each parameter given as a range), on the machine of a family at each p, in parallel across
/// cores, each row handed over in order as soon as it and the rows before it are done. The
/// algorithm is a registered one, an external generator (a command reading a topology, printing
/// a schedule: how a fault at one p is planted in the tests), or a user's C routine recorded at
/// each p through `record function` (record/sweep.hpp).

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/topology.hpp"
#include "core/verdict.hpp"
#include "verify/gap.hpp"
#include "verify/report.hpp"

namespace phasecheck::experiments {

/// The largest p a sweep takes, and the most instances (p's times parameter values) it runs.
inline constexpr Rank kMaxSweepRanks = 16384;
inline constexpr std::uint64_t kMaxSweepInstances = 1'000'000;

struct SweepSpec {
  std::string algorithm;  ///< a registered algorithm; empty with `generator` or `function`
  std::string generator;  ///< an external generator: CMD < topology.json > schedule.json
  double generator_timeout = 60;
  std::string function;          ///< "LIB.so:SYMBOL": recorded at every p (record function)
  double timeout = 60;           ///< with `function`: seconds for one recorded call
  std::string ranks;             ///< "A..B" or "A"
  std::vector<std::string> set;  ///< "key=value" or "key=A..B" (a range of a number parameter)
  std::string family = "fully-connected";  ///< the machine at each p (machine_family)
  bool buffers = false;  ///< verify the buffer programs (format 3), not the phase tables
  unsigned jobs = 0;     ///< worker threads; 0: the machine's cores
  std::ostream* progress = nullptr;  ///< a terminal for the progress line, or null
};

/// One instance: p, and the values of the ranged parameters.
struct SweepRow {
  Rank ranks = 0;
  std::vector<std::pair<std::string, std::uint64_t>> values;  ///< ranged parameters, in order
  /// pass, fail, unknown (a check could not decide), or not_evaluated: refused.
  Verdict verdict = Verdict::not_evaluated;
  std::string refused;  ///< why the algorithm or the family does not take this instance
  std::string broken;   ///< fail/unknown: the broken claims ("delivery: ...; ") or what failed
  /// The report of a row that did not pass (its counterexamples); figures only otherwise.
  std::optional<verify::Report> report;
  bool verified = false;  ///< a schedule was verified: the figures below are its
  std::uint64_t phases = 0, c1 = 0, c2 = 0, bound_c1 = 0, bound_c2 = 0;
  verify::Gap gap;
  std::string replay;  ///< the commands that check this one instance again
};

struct Sweep {
  std::string subject;  ///< "mpich-k-brucks", "generator 'CMD'", "lib.so:fn"
  std::string family;   ///< the family as given
  Rank first = 0, last = 0;
  std::vector<std::string> fixed;  ///< "key=value" given
  std::vector<std::pair<std::string, std::pair<std::uint64_t, std::uint64_t>>> ranged;
  bool buffers = false;
  /// Ordered by the ranged values (the first key slowest), then p. A row that did not pass keeps
  /// its whole report (its counterexamples); the others their figures.
  std::vector<SweepRow> rows;
  /// overall() of the rows: fail if one failed, else unknown, else pass if one passed, else not
  /// evaluated (every instance refused).
  Verdict verdict() const;
};

/// The machine of `family` with p ranks: "fully-connected" (one port), "fully-connected:K" (K
/// ports), "cluster:G" (nodes of G ranks, the last one holding the rest), "tree:F" (a root switch
/// over p / F leaf switches of F ranks), "hypercube" and "ring". InputError for a family that is
/// not one of these (checked once, with p = 0: no machine), or a p the family cannot have.
Topology machine_family(const std::string& family, Rank p);
/// The `phasecheck topology` arguments that build machine_family(family, p) ("fully-connected
/// --ranks 8 --ports 1").
std::string family_command(const std::string& family, Rank p);

/// Checks the whole spec first (InputError naming the option: an empty or reversed range, p
/// beyond kMaxSweepRanks, a parameter the algorithm does not declare or not a number given as a
/// range, too many instances, an unknown family), then runs it. `on_row` receives every row in
/// order (setting-major, then p) as soon as it is done; the returned sweep holds them all.
Sweep sweep(const SweepSpec& spec,
            const std::function<void(const Sweep&, const SweepRow&)>& on_row);

}  // namespace phasecheck::experiments
