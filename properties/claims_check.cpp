#include "properties/claims_check.hpp"

#include <ostream>

#include "core/error.hpp"
#include "io/json.hpp"
#include "verify/verifier.hpp"

namespace phasecheck {
// Declared in generators.hpp: rapidcheck prints a counterexample machine as its topology JSON.
void showValue(const Topology& t, std::ostream& os) { os << io::topology_to_json(t); }
}  // namespace phasecheck

namespace phasecheck::properties {

std::string broken_claims(const schedules::Algorithm& a, const Schedule& s, const Topology& model,
                          const verify::LinearCost& cost, verify::Report* report) {
  const Claims claims = a.claims(s.header);
  verify::Report r = verify::verify(s, model, claims);
  std::string broken = r.broken_claims(a.contention_free_on(s.header, model));
  // The bounds (a formula per model) and the checkers (a simulation) must agree: judged on the
  // two simulations alone, not on the verdict, which already includes the bounds check.
  if (r.passed(CheckId::delivery) && r.passed(CheckId::contention)) {
    if (r.counts.c1 < r.bound_c1)
      broken += "C1 = " + std::to_string(r.counts.c1) + " beats the lower bound " +
                std::to_string(r.bound_c1) + "; ";
    if (r.counts.c2 < r.bound_c2)
      broken += "C2 = " + std::to_string(r.counts.c2) + " beats the lower bound " +
                std::to_string(r.bound_c2) + "; ";
  }
  for (const verify::CostRow& row : verify::cost(r, claims, cost).rows)
    if (!row.holds()) broken += "cost: " + row.name + "; ";
  if (report) *report = std::move(r);
  return broken;
}

}  // namespace phasecheck::properties
