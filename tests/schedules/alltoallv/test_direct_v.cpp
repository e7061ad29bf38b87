// linear-v, pairwise-v and scattered-v (schedules/alltoallv/): every message whole and direct, in
// the library's order, zero counts skipped; verified with their claims on uniform, random, sparse
// and empty matrices, and their mutants caught.

#include <doctest/doctest.h>

#include <random>

#include "core/error.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

constexpr const char* kDirect[] = {"linear-v", "pairwise-v", "scattered-v"};

/// The matrices the issue names: uniform, random with zeros, all zero but one cell, all zero.
enum class Family { uniform, random, one, empty };
constexpr Family kFamilies[] = {Family::uniform, Family::random, Family::one, Family::empty};

Traffic matrix(Family family, Rank p, std::uint32_t seed) {
  Traffic t = zero_traffic(p, 4);
  std::mt19937 rng(seed);
  for (Rank s = 0; s < p; ++s)
    for (Rank d = 0; d < p; ++d) {
      auto& c = t.counts[std::size_t{s} * p + d];
      switch (family) {
        case Family::uniform: c = 3; break;
        case Family::random: c = rng() % 2 ? 0 : 1 + rng() % 50; break;
        case Family::one: c = (s == p - 1 && d == 0) ? 7 : 0; break;
        case Family::empty: c = 0; break;
      }
    }
  return t;
}

/// The machine each pattern is contention-free on: linear-v posts every message at once,
/// scattered-v bblock (32) of them, pairwise-v one.
Topology machine(std::string_view name, Rank p) {
  const Rank most = std::max<Rank>(1, p - 1);
  return FullyConnected(p, name == "linear-v"      ? most
                           : name == "scattered-v" ? std::min<Rank>(32, most)
                                                   : 1);
}

Schedule generated(std::string_view name, const Traffic& traffic, Parameters params = {}) {
  return schedules::generate(schedules::require_algorithm(name), machine(name, traffic.ranks),
                             std::move(params), SharedTraffic(traffic));
}

verify::Report verified(const Schedule& s) {
  return verify::verify(s, s.header.topology, schedules::claims_for(s.header));
}

const CheckResult& check(const verify::Report& r, CheckId id) {
  for (const CheckResult& c : r.checks)
    if (c.id == id) return c;
  FAIL("no check " << to_string(id));
  return r.checks.front();
}

}  // namespace

TEST_CASE("direct alltoallv: every algorithm verifies with its claims on every family - p = 1..64") {
  int runs = 0;
  for (const char* name : kDirect)
    for (Family family : kFamilies)
      for (Rank p = 1; p <= 64; p += (p < 12 ? 1 : 13)) {
        CAPTURE(name);
        CAPTURE(p);
        CAPTURE(static_cast<int>(family));
        const Schedule s = generated(name, matrix(family, p, p));
        const verify::Report r = verified(s);
        CHECK(check(r, CheckId::delivery).verdict == Verdict::pass);
        CHECK(check(r, CheckId::contention).verdict == Verdict::pass);
        CHECK(check(r, CheckId::claims).verdict == Verdict::pass);
        REQUIRE(r.bytes.has_value());
        CHECK(r.bytes->cost >= r.bytes->load_bound);
        CHECK(check(r, CheckId::bounds).verdict == Verdict::pass);
        ++runs;
      }
  CHECK(runs == 3 * 4 * 16);
}

TEST_CASE("direct alltoallv: zero counts are not sent - and the one-phase cost is the largest") {
  Traffic t = zero_traffic(3, 8);
  t.counts = {1, 0, 5, 0, 0, 2, 4, 0, 0};  // 0 -> 2 (5), 1 -> 2 (2), 2 -> 0 (4), 0's own 1
  const Schedule s = generated("linear-v", t);
  REQUIRE(s.phases.size() == 1);
  CHECK(s.phases[0].size() == 4);  // the self copy and three messages
  const verify::Report r = verified(s);
  CHECK(r.bytes->cost == 5 * 8);
  // 0 sends 5 and 2 receives 7 elements: over linear-v's two ports the bound is 4 x 8 bytes.
  CHECK(r.bytes->load_bound == 28);
  CHECK(r.bytes->argument.find("rank 2 receives 56 bytes") != std::string::npos);
  CHECK(verified(generated("pairwise-v", t)).bytes->cost == 5 * 8 + 4 * 8);
}

TEST_CASE("direct alltoallv: a dropped - a doubled and an unsent message are caught") {
  const Traffic t = matrix(Family::random, 9, 3);
  const Schedule s = generated("pairwise-v", t);
  std::size_t runs = 0;
  for (std::size_t phase = 1; phase < s.phases.size(); phase += 3) {
    if (s.phases[phase].empty()) continue;
    const Transfer victim = s.phases[phase][0];
    // Dropped: the phase without its first message.
    Schedule dropped = s;
    Phase fewer(s.phases[phase].label());
    for (const Transfer& x : s.phases[phase].transfers())
      if (!(x == victim)) fewer.add(x.src, x.dst, s.phases[phase].blocks(x));
    dropped.phases[phase] = fewer;
    const CheckResult lost = check(verified(dropped), CheckId::delivery);
    CHECK(lost.verdict == Verdict::fail);
    REQUIRE(lost.counterexample.has_value());
    CHECK(lost.counterexample->explanation.find("never reaches rank " +
                                                std::to_string(victim.dst)) != std::string::npos);
    // Doubled: the message again in the next phase.
    Schedule doubled = s;
    doubled.phases[phase + 1].add(victim.src, victim.dst, Block{victim.src, victim.dst, 0});
    CHECK(check(verified(doubled), CheckId::delivery).verdict == Verdict::fail);
    ++runs;
  }
  CHECK(runs >= 2);
  // A count changed on one side: the matrix says 0 -> 1 has elements, the schedule never sends it.
  Traffic more = t;
  more.counts[1] = 0;
  Schedule unsent = generated("pairwise-v", more);
  more.counts[1] = 6;
  unsent.header.traffic = SharedTraffic(more);
  const CheckResult missing = check(verified(unsent), CheckId::delivery);
  CHECK(missing.verdict == Verdict::fail);
  CHECK(missing.counterexample->explanation == "block [0,1] never reaches rank 1");
}

TEST_CASE("direct alltoallv: a message of no elements carried is bad input naming the cell") {
  Traffic t = matrix(Family::uniform, 4, 1);
  Schedule s = generated("linear-v", t);
  t.counts[2 * 4 + 3] = 0;
  s.header.traffic = SharedTraffic(t);
  verify::Verifier v(s.header, s.header.topology);
  const std::string message = [&] {
    try {
      v.consume(s.phases[0]);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  }();
  CHECK(message.find("block [2,3]: counts[2][3] is 0: no message, no block") != std::string::npos);
}

TEST_CASE("direct alltoallv: the traffic is required - for the machine's p - and only here") {
  const auto& linear = schedules::require_algorithm("linear-v");
  CHECK_THROWS_WITH_AS(schedules::make_header(linear, FullyConnected(4, 1), {}),
                       "linear-v is an alltoallv: it needs a traffic matrix (--traffic FILE)",
                       InputError);
  CHECK_THROWS_WITH_AS(schedules::make_header(linear, FullyConnected(4, 1), {},
                                              SharedTraffic(uniform_traffic(5, 1))),
                       "the traffic matrix has 5 ranks; the machine has 4", InputError);
  CHECK_THROWS_AS(schedules::make_header(schedules::require_algorithm("shift"),
                                         FullyConnected(4, 1), {},
                                         SharedTraffic(uniform_traffic(4, 1))),
                  InputError);
  CHECK(schedules::is_alltoallv(linear));
  CHECK_FALSE(schedules::is_alltoallv(schedules::require_algorithm("shift")));
}

TEST_CASE("scattered-v: batches of bblock - requests bounded - claims met") {
  const Traffic t = matrix(Family::random, 20, 5);
  Parameters params;
  params.set("bblock", "4");
  const Schedule s = generated("scattered-v", t, params);
  CHECK(s.phases.size() == 5);
  const verify::Report r = verified(s);
  CHECK(check(r, CheckId::requests).verdict == Verdict::pass);
  CHECK(check(r, CheckId::claims).verdict == Verdict::pass);
}
