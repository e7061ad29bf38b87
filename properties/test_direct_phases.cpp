// A direct phase (core/schedule.hpp) is judged from its pairs, without the Phase it stands for:
// on any machine, for random phases of own messages near and far from valid ones (duplicates,
// local copies, contention, ranks that do not exist, an invariant broken somewhere, a request
// limit, two parts a message, a phase of the other collective, a table observer), the report of
// the direct phases is the report of their Phases, to the byte of every counterexample, in one
// verifier, over threads and over shares; a refused phase is refused with the same message. (Many
// batches of direct phases over threads: tests/pipeline/test_check.cpp.)

#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "doctest_rapidcheck.hpp"
#include "generators.hpp"
#include "verify/parallel.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

struct Case {
  ScheduleHeader header;
  Claims claims;
  Collective collective;  // the direct phases': now and then not the header's
  std::vector<std::string> labels;
  std::vector<std::vector<DirectTransfer>> phases;
  DirectPhase direct(std::size_t i) const { return {labels[i], collective, phases[i]}; }
  Phase phase(std::size_t i) const {
    Phase p;
    direct(i).fill(p);
    return p;
  }
};

/// The report, or the message of the InputError that refused a phase.
struct Outcome {
  std::optional<verify::Report> report;
  std::string refused;
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

template <class Run>
Outcome outcome(Run&& run) {
  try {
    return {run(), {}};
  } catch (const InputError& e) {
    return {std::nullopt, e.what()};
  }
}

Case random_case() {
  Case c;
  c.header.algorithm = "random direct phases";
  c.header.topology = *rc::gen::arbitrary<Topology>();
  c.header.collective = *rc::gen::element(Collective::alltoall, Collective::allgather);
  // Two parts a message: the pairs carry part 0 only, and delivery takes the Phase's path. A
  // direct phase of the other collective is judged as its Phase, whole.
  c.header.parts = *rc::gen::weightedElement<std::uint32_t>({{5, 1}, {1, 2}});
  c.collective = *rc::gen::weightedElement<bool>({{8, true}, {1, false}})
                     ? c.header.collective
                     : *rc::gen::element(Collective::alltoall, Collective::allgather);
  const Rank p = ranks(c.header.topology);
  const std::size_t count = *rc::gen::inRange<std::size_t>(1, 7);
  for (std::size_t i = 0; i < count; ++i) {
    c.labels.push_back("phase " + std::to_string(i));
    std::vector<DirectTransfer> pairs;
    const std::size_t size = *rc::gen::inRange<std::size_t>(0, 2 * p + 2);
    for (std::size_t k = 0; k < size; ++k)
      pairs.push_back({*rc::gen::inRange<Rank>(0, p), *rc::gen::inRange<Rank>(0, p)});
    // Now and then a rank one past the last: the phase is refused.
    if (!pairs.empty() && *rc::gen::inRange(0, 30) == 0)
      pairs[*rc::gen::inRange<std::size_t>(0, pairs.size())].dst = p;
    c.phases.push_back(std::move(pairs));
  }
  // An invariant that reads the delivery state, broken at one boundary when 0 -> 1 has arrived.
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, count + 1);
  c.claims.invariants.push_back({"0 -> 1 not yet at boundary " + std::to_string(at),
                                 [at, p](const Boundary& b, const DataView& data) {
                                   if (b.phase != at || p < 2) return Finding::not_applicable();
                                   return data.delivered(0, 1)
                                              ? Finding::broken("0 -> 1 has arrived")
                                              : Finding::holds();
                                 }});
  if (*rc::gen::arbitrary<bool>())
    c.claims.max_requests = Claims::RequestLimit{*rc::gen::inRange(1u, 4u), "max_queue"};
  return c;
}

}  // namespace

TEST_CASE("direct phases: the report of the Phases they stand for, on any machine") {
  std::size_t judged = 0, refused = 0, failed = 0;
  properties::check("same report, same refusal", [&] {
    const Case c = random_case();
    const Topology& model = c.header.topology;
    const Outcome whole = outcome([&] {
      verify::Verifier v(c.header, model, c.claims);
      for (std::size_t i = 0; i < c.phases.size(); ++i) v.consume(c.phase(i));
      return v.finish();
    });
    const Outcome direct = outcome([&] {
      verify::Verifier v(c.header, model, c.claims);
      for (std::size_t i = 0; i < c.phases.size(); ++i) v.consume(c.direct(i));
      return v.finish();
    });
    RC_ASSERT(direct == whole);
    // A table observer sees the Phases themselves.
    std::vector<Phase> seen_whole, seen_direct;
    const Outcome observed = outcome([&] {
      verify::Verifier v(c.header, model, c.claims);
      v.observe_tables(collect_into(seen_direct));
      for (std::size_t i = 0; i < c.phases.size(); ++i) v.consume(c.direct(i));
      return v.finish();
    });
    const Outcome observed_whole = outcome([&] {
      verify::Verifier v(c.header, model, c.claims);
      v.observe_tables(collect_into(seen_whole));
      for (std::size_t i = 0; i < c.phases.size(); ++i) v.consume(c.phase(i));
      return v.finish();
    });
    RC_ASSERT(observed == whole);
    RC_ASSERT(observed_whole == whole);
    RC_ASSERT(seen_direct == seen_whole);
    for (const unsigned threads : {2u, 3u}) {
      const Outcome spread = outcome([&] {
        verify::ParallelVerifier v(c.header, model, c.claims, threads);
        for (std::size_t i = 0; i < c.phases.size(); ++i) v.consume(c.direct(i));
        return v.finish();
      });
      RC_ASSERT(spread == whole);
    }
    // Two shares, as two processes: the stateful one merges the other's findings.
    const Outcome shared = outcome([&] {
      verify::Verifier stateful(c.header, model, c.claims, {true, 0, 2});
      verify::Verifier local(c.header, model, c.claims, {false, 1, 2});
      for (std::size_t i = 0; i < c.phases.size(); ++i) {
        stateful.consume(c.direct(i));
        local.consume(c.direct(i));
      }
      const verify::Verifier::Partial other = local.partial();
      return stateful.finish({&other, 1});
    });
    RC_ASSERT(shared == whole);
    if (whole.report) {
      ++judged;
      failed += whole.report->verdict() == Verdict::fail ? 1 : 0;
    } else {
      ++refused;
    }
  });
  // The cases reached every outcome: passing and failing reports and refused phases.
  CHECK(judged > 60);
  CHECK(failed > 30);
  CHECK(judged - failed > 5);
  CHECK(refused > 3);
}
