#pragma once
/// `phasecheck sync`'s question: does the reduced pair-wise synchronization of Faraj & Yuan,
/// Section 5, order every pair of contending messages of a phase table? The table is verified
/// first (a plan for a table that does not verify proves nothing), then its plan is built
/// (programs/synchronization.hpp) and checked by verify/synchronization_check.hpp.

#include <string_view>

#include "core/claims.hpp"
#include "core/schedule.hpp"
#include "programs/synchronization.hpp"
#include "verify/report.hpp"

namespace phasecheck::programs {

struct CheckedPlan {
  verify::Report table;       ///< the phase table's own verification
  SyncPlan plan;              ///< counts before and after the transitive reduction
  /// The kept synchronizations order every contending pair; not evaluated until checked.
  verify::CheckResult check{verify::CheckId::synchronization, verify::Verdict::not_evaluated,
                            "not checked"};
  /// The table verifies and the plan orders every contending pair.
  bool ok() const {
    return table.verdict() == verify::Verdict::pass && check.verdict == verify::Verdict::pass;
  }
};

/// Verifies `table` on `model` with `claims`, builds its pair-wise synchronization plan and checks
/// it. Throws InputError: the verifier's prefixed by `source` ("file: ..."), and those of
/// pairwise_synchronization (a model that does not route, too many ranks) as they are.
/// O(messages^2 / 8) memory for the reduction.
CheckedPlan check_synchronization_plan(const Schedule& table, const Topology& model,
                                       const Claims& claims, std::string_view source);

}  // namespace phasecheck::programs
