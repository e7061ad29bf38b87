// Properties generated from the algorithm registry: every registered algorithm, on random
// machines of every kind, delivers every block exactly once, keeps its invariants and its claimed
// phase count, is contention-free wherever it claims to be, and survives a JSON round trip; its
// buffer program places every chunk and passes every check its table passes.
// A new row in schedules/registry.cpp is fuzzed here without touching this file.

#include <set>

#include "core/error.hpp"
#include "doctest_rapidcheck.hpp"
#include "generators.hpp"
#include "io/json.hpp"
#include "pipeline/read_schedule.hpp"
#include "programs/program.hpp"
#include "programs/replay.hpp"
#include "programs/synchronization.hpp"
#include "properties/claims_check.hpp"
#include "properties/fuzz.hpp"
#include "properties/parameters_gen.hpp"
#include "schedules/registry.hpp"
#include "verify/cost.hpp"
#include "verify/synchronization_check.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

/// The generated schedule, or a discard when the algorithm does not apply to this machine.
Schedule generate_or_discard(const schedules::Algorithm& a, const Topology& t, Collective c) {
  Parameters params;
  params.set("collective", std::string(to_string(c)));
  try {
    return schedules::generate(a, t, params);  // an alltoallv refuses: a discard
  } catch (const InputError& e) {
    RC_DISCARD(e.what());
  }
}

/// The same with every knob the algorithm declares set at random.
Schedule generate_random_or_discard(const schedules::Algorithm& a, const Topology& t) {
  const Parameters params = properties::random_parameters(a, ranks(t));
  try {
    return schedules::generate(a, t, params, properties::random_traffic(a, ranks(t)));
  } catch (const InputError& e) {
    RC_DISCARD(e.what());
  }
}

}  // namespace

TEST_CASE("every registered algorithm keeps its claims on random machines") {
  for (const schedules::Algorithm& a : schedules::algorithms()) {
    properties::check(std::string(a.name) + " keeps its claims", [&a](const Topology& random) {
      const Topology t = a.only_machine ? a.only_machine() : random;  // its one machine, if any
      const Schedule s = generate_random_or_discard(a, t);
      const bool claims_contention_free = a.contention_free_on(s.header, t);
      RC_CLASSIFY(claims_contention_free, "contention-free claimed");
      // Any t_s, t_w and m: the cost formulas must hold for all of them.
      const verify::LinearCost cost{*rc::gen::inRange(0, 1000) * 1e-7,
                                    *rc::gen::inRange(0, 1000) * 1e-10,
                                    double(*rc::gen::inRange(1, 1 << 16))};
      verify::Report r;
      const std::string broken =
          properties::broken_claims(a, s, t, cost, &r);  // RC_ASSERT prints it
      RC_CLASSIFY(r.passed(CheckId::delivery) && r.passed(CheckId::contention), "delivers without contention");
      RC_ASSERT(broken == std::string());
    });
  }
}

TEST_CASE("random parameters are values every algorithm declares") {
  // The generator reads the declarations: every knob but text is set, and none leaves its range
  // (else the properties above would discard the case instead of testing it).
  for (const schedules::Algorithm& a : schedules::algorithms()) {
    properties::check(std::string(a.name) + "'s random parameters fit its declaration", [&a] {
      const auto p = *rc::gen::inRange<Rank>(1, 65);
      const Parameters params = properties::random_parameters(a, p);
      check_parameters(params, a.parameter_specs, p, a.name);  // throws: the property fails
      for (const ParameterSpec& spec : a.parameter_specs)
        RC_ASSERT(params.has(spec.name) || std::holds_alternative<Text>(spec.type));
    });
  }
}

TEST_CASE("every registered algorithm's buffer program is placed right on random machines") {
  // Format 3: the program (its own, or its table lowered to buffers) puts every chunk in its
  // output slot, and every check that passes for the table passes for the program (fuzz.hpp).
  for (const schedules::Algorithm& a : schedules::algorithms()) {
    if (schedules::is_alltoallv(a)) continue;  // an alltoallv's buffer program is not modelled
    properties::check(std::string(a.name) + "'s program is placed right", [&a] {
      // Machines as `phasecheck fuzz` makes them by default (size 40): a program costs a
      // lowering and a second verification, with p^2 slots per buffer.
      const Topology t =
          a.only_machine ? a.only_machine() : *rc::gen::resize(40, properties::topology());
      const Schedule s = generate_random_or_discard(a, t);
      const verify::Report r = verify::verify(s, t, a.claims(s.header));
      RC_ASSERT(properties::broken_program(a, s, r, t) == std::string());
    });
  }
}

TEST_CASE("every schedule on a routed model runs as synchronized programs") {
  // Pair-wise synchronization and per-rank programs (Faraj & Yuan, Section 5) for whatever the
  // registry generates on small routed machines: the reduced synchronizations order every pair of
  // messages that share a link in different phases (graph check), and the programs replay without
  // deadlock, realize the table and keep those pairs apart in time (vector clocks), with
  // pair-wise synchronization and with barriers. (Contention inside a phase is the contention
  // check's business, so this holds for every table.)
  for (const schedules::Algorithm& a : schedules::algorithms()) {
    properties::check(std::string(a.name) + " runs as programs", [&a] {
      const Topology t = *rc::gen::resize(24, properties::routed());
      Parameters params;
      Schedule s;
      try {
        s = schedules::generate(a, t, params, properties::random_traffic(a, ranks(t)));
      } catch (const InputError&) {
        RC_TAG("not applicable");  // e.g. hierarchical-factor needs a cluster
        return;
      }
      const programs::SyncPlan plan = programs::pairwise_synchronization(s, t);
      std::vector<std::pair<verify::TransferRef, verify::TransferRef>> syncs;
      for (const auto& [x, y] : plan.kept)
        syncs.push_back({{plan.messages[x].phase, plan.messages[x].transfer},
                         {plan.messages[y].phase, plan.messages[y].transfer}});
      // The failures are strings so that RC_ASSERT prints them.
      const auto failure = [](const verify::CheckResult& r) {
        return r.verdict == verify::Verdict::pass ? std::string() : r.summary;
      };
      RC_ASSERT(failure(verify::check_synchronization(s, t, syncs)) == std::string());
      for (auto sep : {programs::Separation::pairwise, programs::Separation::barrier})
        RC_ASSERT(failure(programs::replay(s, t, programs::rank_programs(s, sep, &plan))) ==
                  std::string());
    });
  }
}

TEST_CASE("schedule JSON round-trips every generated schedule") {
  properties::check("write then read gives the same schedule", [](const Topology& t) {
    const auto& a = *rc::gen::elementOf(std::vector<const schedules::Algorithm*>{
        &schedules::algorithms()[0], &schedules::algorithms()[1], &schedules::algorithms()[3]});
    const Schedule s =
        generate_or_discard(*a, t, *rc::gen::element(Collective::alltoall, Collective::allgather));
    RC_ASSERT(pipeline::parse_schedule(io::schedule_to_json(s), "round-trip") == s);
  });
}

TEST_CASE("topology JSON round-trips every model") {
  properties::check("write then read gives the same topology", [](const Topology& t) {
    RC_ASSERT(io::parse_topology(io::topology_to_json(t), "round-trip") == t);
  });
}
