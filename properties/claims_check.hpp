#pragma once
/// The one property every registered algorithm must keep, as a plain function so that the test
/// suite's rapidcheck properties and `phasecheck fuzz` judge a case identically.

#include <cstdint>
#include <string>

#include "schedules/registry.hpp"
#include "verify/cost.hpp"
#include "verify/report.hpp"

namespace phasecheck::properties {

/// What the algorithm's schedule `s` on `model` breaks, "" when nothing:
///  - its claims: delivery, invariants, phase and C2 claims, the request limit, and contention
///    on the models where it claims contention-freedom;
///  - the lower bounds: a schedule that delivers without contention never beats them;
///  - its cost formulas under `cost` (equations equal, bounds not beaten).
/// `report`, when given, receives the verification report.
std::string broken_claims(const schedules::Algorithm& a, const Schedule& s, const Topology& model,
                          const verify::LinearCost& cost, verify::Report* report = nullptr);

}  // namespace phasecheck::properties
