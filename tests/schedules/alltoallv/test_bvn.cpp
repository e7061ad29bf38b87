// bvn (schedules/alltoallv/bvn.cpp): at most max_phases weighted permutations, verified with its
// claims on the matrix families, its cost near the load bound, its mutants caught.

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "schedules/alltoallv/v_fixtures.hpp"

using namespace phasecheck;
using namespace phasecheck::testing;

namespace {

Schedule bvn(const Traffic& traffic, Parameters params = {}) {
  return schedules::generate(schedules::require_algorithm("bvn"), FullyConnected(traffic.ranks, 1),
                             std::move(params), SharedTraffic(traffic));
}

std::uint64_t most_messages(const Traffic& t) {
  std::uint64_t most = 0;
  for (Rank r = 0; r < t.ranks; ++r) {
    std::uint64_t out = 0, in = 0;
    for (Rank x = 0; x < t.ranks; ++x) {
      out += x != r && t.count(r, x) > 0;
      in += x != r && t.count(x, r) > 0;
    }
    most = std::max({most, out, in});
  }
  return most;
}

}  // namespace

TEST_CASE("bvn: verifies with its claims on every family - p = 1..64 - within 3p phases") {
  int runs = 0;
  for (VFamily family : kVFamilies)
    for (Rank p = 1; p <= 64; p += (p < 12 ? 1 : 13)) {
      CAPTURE(p);
      CAPTURE(static_cast<int>(family));
      const Schedule s = bvn(v_matrix(family, p, p));
      const verify::Report r = v_verified(s);
      CHECK(v_verdict(r, CheckId::delivery) == Verdict::pass);
      CHECK(v_verdict(r, CheckId::contention) == Verdict::pass);
      CHECK(v_verdict(r, CheckId::claims) == Verdict::pass);
      CHECK(v_verdict(r, CheckId::bounds) == Verdict::pass);
      CHECK(s.phases.size() <= 3 * std::size_t{p});
      CHECK(s.header.parts <= kMaxParts);
      ++runs;
    }
  CHECK(runs == 5 * 16);
}

TEST_CASE("bvn: max_phases down to the most messages of a rank - and below it refused") {
  const Traffic t = v_matrix(VFamily::random, 13, 7);
  const std::uint64_t least = most_messages(t);
  REQUIRE(least > 1);
  int runs = 0;
  for (std::uint64_t k : {least, least + 1, least + 5, 2 * least}) {
    CAPTURE(k);
    Parameters params;
    params.set("max_phases", std::to_string(k));
    const Schedule s = bvn(t, params);
    CHECK(s.phases.size() <= k);
    CHECK(s.phases.size() >= least);
    const verify::Report r = v_verified(s);
    CHECK(v_verdict(r, CheckId::delivery) == Verdict::pass);
    CHECK(v_verdict(r, CheckId::claims) == Verdict::pass);
    ++runs;
  }
  CHECK(runs == 4);
  Parameters below;
  below.set("max_phases", std::to_string(least - 1));
  CHECK_THROWS_WITH_AS(
      bvn(t, below),
      ("bvn: max_phases = " + std::to_string(least - 1) + " is below " + std::to_string(least) +
       ", the most messages one rank sends or receives (one per phase)")
          .c_str(),
      InputError);
}

TEST_CASE("bvn: pieces keep every message within kMaxParts - and one huge message is cut") {
  const Schedule s = bvn(v_matrix(VFamily::one, 5, 1));
  CHECK(s.header.piece_elements >= 1);
  CHECK(s.header.parts == (3000 + s.header.piece_elements - 1) / s.header.piece_elements);
  REQUIRE(s.phases.size() == 1);  // one message: one phase, all its pieces
  CHECK(s.phases[0].size() == 1);
  CHECK(s.phases[0].blocks(s.phases[0][0]).size() == s.header.parts);
}

TEST_CASE("bvn: its cost stays within 5% of the load bound on MoE-like matrices - Zipf 0 to 1.5") {
  int runs = 0;
  for (double zipf : {0.0, 1.0, 1.5}) {
    const Traffic t = moe_like({.ranks = 32,
                                .experts = 64,
                                .top_k = 4,
                                .tokens = 512,
                                .zipf = zipf,
                                .element_bytes = 2,
                                .seed = 5});
    const verify::Report r = v_verified(bvn(t));
    REQUIRE(r.bytes.has_value());
    CAPTURE(zipf);
    CAPTURE(r.bytes->cost);
    CAPTURE(r.bytes->load_bound);
    CHECK(r.bytes->cost <= r.bytes->load_bound + r.bytes->load_bound / 20);
    ++runs;
  }
  CHECK(runs == 3);
}

TEST_CASE("bvn: a piece dropped or sent twice is caught") {
  const Schedule s = bvn(v_matrix(VFamily::random, 9, 3));
  REQUIRE(s.phases.size() >= 2);
  const Phase& first = s.phases[0];
  REQUIRE(!first.empty());
  const Transfer victim = first[0];
  const auto blocks = first.blocks(victim);
  REQUIRE(!blocks.empty());
  // Dropped: the first transfer without its last piece.
  Schedule dropped = s;
  Phase fewer(first.label());
  for (const Transfer& x : first.transfers()) {
    auto b = first.blocks(x);
    fewer.add(x.src, x.dst, x == victim ? b.first(b.size() - 1) : b);
  }
  if (blocks.size() == 1) {
    // A transfer of one piece becomes no transfer at all.
    fewer = Phase(first.label());
    for (const Transfer& x : first.transfers())
      if (!(x == victim)) fewer.add(x.src, x.dst, first.blocks(x));
  }
  dropped.phases[0] = fewer;
  const verify::Report lost = v_verified(dropped);
  CHECK(v_verdict(lost, CheckId::delivery) == Verdict::fail);
  CHECK(v_explanation(lost, CheckId::delivery)
            .find("never reaches rank " + std::to_string(victim.dst)) != std::string::npos);
  // Twice: the same piece again in the next phase.
  Schedule doubled = s;
  doubled.phases[1].add(victim.src, victim.dst, blocks.back());
  CHECK(v_verdict(v_verified(doubled), CheckId::delivery) == Verdict::fail);
}
