#pragma once
/// `phasecheck program`'s question: do the per-rank programs of a phase table
/// (programs/program.hpp), with the chosen separation between phases, run to completion and keep
/// the table's promises when replayed together (programs/replay.hpp)? The table is verified too.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/claims.hpp"
#include "core/schedule.hpp"
#include "programs/program.hpp"
#include "verify/report.hpp"

namespace phasecheck::programs {

struct CheckedPrograms {
  verify::Report table;  ///< the phase table's own verification
  Separation separation = Separation::barrier;
  std::string separation_name;        ///< to_string(separation), for the reports
  std::vector<RankProgram> programs;  ///< one per rank
  std::uint64_t operations = 0;       ///< over all programs
  /// pairwise: the synchronization messages kept after the reduction; otherwise none.
  std::optional<std::uint64_t> synchronizations;
  /// Deadlock, missing message, contending messages overlapping; not evaluated until replayed.
  verify::CheckResult replay{verify::CheckId::replay, verify::Verdict::not_evaluated, "not replayed"};
  /// listing() of each rank asked for, in the order asked.
  std::vector<std::pair<Rank, std::string>> listings;
  /// The table verifies and the replay passes.
  bool ok() const {
    return table.verdict() == verify::Verdict::pass && replay.verdict == verify::Verdict::pass;
  }
};

/// Verifies `table` on its own model with `claims`, builds its programs (with the pair-wise plan
/// for Separation::pairwise) and replays them. Throws InputError for a rank in `listed` that the
/// table does not have ("--rank 9: the schedule has 6 ranks"), and pairwise_synchronization's.
CheckedPrograms check_programs(const Schedule& table, Separation separation, const Claims& claims,
                               const std::vector<Rank>& listed);

}  // namespace phasecheck::programs
