#include "programs/checked_programs.hpp"

#include "core/error.hpp"
#include "programs/replay.hpp"
#include "programs/synchronization.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::programs {

CheckedPrograms check_programs(const Schedule& table, Separation separation, const Claims& claims,
                               const std::vector<Rank>& listed) {
  const Topology& model = table.header.topology;
  // Pair-wise synchronization adds operations only its plan knows; it is for at most
  // kMaxSyncRanks ranks.
  if (separation != Separation::pairwise) check_programs_memory(table, separation);
  CheckedPrograms c;
  c.table = verify::verify(table, model, claims);
  c.separation = separation;
  c.separation_name = to_string(separation);
  std::optional<SyncPlan> plan;
  if (separation == Separation::pairwise) plan = pairwise_synchronization(table, model);
  c.programs = rank_programs(table, separation, plan ? &*plan : nullptr);
  for (Rank r : listed)
    if (r >= table.header.ranks())
      throw InputError("--rank " + std::to_string(r) + ": the schedule has " +
                       std::to_string(table.header.ranks()) + " ranks");
  c.replay = replay(table, model, c.programs);
  if (plan) c.synchronizations = plan->kept.size();
  for (const RankProgram& p : c.programs) c.operations += p.ops.size();
  for (Rank r : listed) c.listings.emplace_back(r, listing(c.programs[r]));
  return c;
}

}  // namespace phasecheck::programs
