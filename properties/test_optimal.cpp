// The solver's optimum against the two independent ends it must lie between, on random small
// machines of every kind: never below the model's lower bound (docs/bounds.md), never above the
// best registered algorithm that schedules the machine directly. The solver proves every UNSAT
// answer itself here (no lower bound is given to it), so a wrong bound or a wrong encoding shows
// up as an optimum below the bound. A timeout is classified as unknown, never counted as a proof.

#include "doctest_rapidcheck.hpp"
#include "experiments/optimum.hpp"
#include "generators.hpp"
#include "verify/bounds.hpp"
#include "verify/optimal.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

TEST_CASE("optimal: the proven optimum lies between the lower bound and the best algorithm") {
  // Cases where the solver answered (proved an optimum); a run where every call timed out would
  // otherwise pass without checking anything.
  std::uint64_t answered = 0;
  properties::check("bound <= optimum <= best algorithm", [&answered] {
    // Trees and graphs grow with the size parameter, so they are kept to a few machines; at most
    // 6 ranks keeps every UNSAT answer within the timeout in practice.
    using namespace properties;
    const Topology model =
        *rc::gen::oneOf(fully_connected(), cluster(), ring(), hypercube(), mesh(),
                        rc::gen::resize(8, tree()), rc::gen::resize(8, graph()));
    RC_PRE(ranks(model) >= 2 && ranks(model) <= 6);
    RC_TAG(kind(model));

    const auto bound = verify::best_bounds(verify::lower_bounds(model, Collective::alltoall), true);
    const auto [best, algorithm] = experiments::best_direct_algorithm(model, Collective::alltoall);

    verify::OptimalOptions o;
    o.upper = best;  // 0 when no algorithm applies: the solver searches up to p (p - 1)
    o.timeout = 5;
    o.confirm_bound = false;
    const verify::OptimalResult r = verify::optimal_phases(model, o);
    RC_LOG() << describe(model) << ": bound " << bound.first << ", " << algorithm << " " << best
             << ", solver: " << r.why << "\n";
    RC_ASSERT(r.lower <= r.upper);
    if (!r.proven) {
      RC_CLASSIFY(true, "unknown (timeout)");
      RC_ASSERT(r.why.find("gave up") != std::string::npos);
      return;
    }
    ++answered;
    RC_ASSERT(r.upper >= bound.first);
    if (best) RC_ASSERT(r.upper <= best);
    RC_ASSERT(r.witness.has_value());
    const verify::Report check = verify::verify(*r.witness, model);
    RC_ASSERT(check.passed(CheckId::delivery));
    RC_ASSERT(check.passed(CheckId::contention));
    RC_ASSERT(check.counts.direct);
    RC_ASSERT(check.counts.phases == r.upper);
    RC_CLASSIFY(r.upper == bound.first, "optimum = bound");
    RC_CLASSIFY(best && r.upper == best, "optimum = best algorithm");
  });
  CHECK(answered > 0);
}
