#include "programs/checked_plan.hpp"

#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"
#include "verify/synchronization_check.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::programs {

CheckedPlan check_synchronization_plan(const Schedule& table, const Topology& model,
                                       const Claims& claims, std::string_view source) {
  CheckedPlan c;
  c.table = with_source(std::string(source), [&] { return verify::verify(table, model, claims); });
  c.plan = pairwise_synchronization(table, model);
  std::vector<std::pair<verify::TransferRef, verify::TransferRef>> syncs;
  for (const auto& [a, b] : c.plan.kept) {
    const Message &x = c.plan.messages[a], &y = c.plan.messages[b];
    syncs.push_back({{x.phase, x.transfer}, {y.phase, y.transfer}});
  }
  c.check = verify::check_synchronization(table, model, syncs);
  return c;
}

}  // namespace phasecheck::programs
