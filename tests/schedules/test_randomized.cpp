// The randomized Alltoall of the Slim Fly paper: the shuffle, the anti-circulant indexing (Fig. 1),
// the request queue (and its overshoot for odd max_queue), and the low-diameter networks it runs on
// (Slim Fly by MMS, Dragonfly) with the congestion meter.

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "core/error.hpp"
#include "core/networks.hpp"
#include "schedules/randomized.hpp"
#include "schedules/registry.hpp"
#include "verify/congestion.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::schedules;
using namespace phasecheck::verify;

namespace {

Report run(const char* algorithm, const Topology& t, Parameters p = {}) {
  const auto& a = *find_algorithm(algorithm);
  const Schedule s = generate(a, t, p);
  return verify::verify(s, t, a.claims(s.header));
}

const CheckResult& check(const Report& r, CheckId id) {
  const auto it = std::find_if(r.checks.begin(), r.checks.end(),
                               [&](const CheckResult& c) { return c.id == id; });
  REQUIRE(it != r.checks.end());
  return *it;
}

/// Router diameter and degrees of a graph.
std::pair<std::uint32_t, std::set<std::uint32_t>> shape(const Graph& g) {
  std::uint32_t diameter = 0;
  std::set<std::uint32_t> degrees;
  for (std::uint32_t a = 0; a < g.router_count(); ++a) {
    degrees.insert(g.degree(a));
    for (std::uint32_t b = 0; b < g.router_count(); ++b)
      diameter = std::max(diameter, g.distance(a, b));
  }
  return {diameter, degrees};
}

}  // namespace

TEST_CASE("shuffle: same seed, same permutation, different seeds differ") {
  CHECK(shuffled_ranks(64, 7) == shuffled_ranks(64, 7));
  CHECK(shuffled_ranks(64, 7) != shuffled_ranks(64, 8));
  std::vector<Rank> sorted = shuffled_ranks(1000, 3);
  std::sort(sorted.begin(), sorted.end());
  for (Rank r = 0; r < 1000; ++r) CHECK(sorted[r] == r);
  // Pinned: the permutation is part of the schedule a seed names, on every platform.
  CHECK(shuffled_ranks(8, 1) == std::vector<Rank>{4, 6, 3, 5, 1, 7, 2, 0});
  CHECK(shuffled_ranks(1, 5) == std::vector<Rank>{0});
}

TEST_CASE("Fig. 1: ranks {1, 3, 2, 0}, rank r sends to ranks[(i + r) % 4] at iteration i") {
  const std::vector<Rank> ranks = {1, 3, 2, 0};
  const std::vector<std::vector<Rank>> matrix = {
      {1, 3, 2, 0}, {3, 2, 0, 1}, {2, 0, 1, 3}, {0, 1, 3, 2}};
  std::vector<Rank> index_of(4);
  for (Rank x = 0; x < 4; ++x) index_of[ranks[x]] = x;
  for (Rank r = 0; r < 4; ++r)
    for (Rank i = 0; i < 4; ++i) {
      CHECK(send_to(ranks, r, i) == matrix[r][i]);
      // receive-from is the inverse of send-to: the row that holds r at this iteration.
      CHECK(send_to(ranks, receive_from(ranks, index_of, r, i), i) == r);
    }
  Parameters p;
  p.set("ranks", "1,3,2,0");
  const Report r = run("randomized-sendrecv", FullyConnected(4, 1), p);
  CHECK(r.verdict() == Verdict::pass);  // one iteration per phase: a permutation, 1 port
  CHECK(r.counts.phases == 4);
}

TEST_CASE("every iteration is a permutation and every message goes once, for many seeds") {
  for (Rank p : {2u, 3u, 7u, 16u, 33u})
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      const std::vector<Rank> ranks = shuffled_ranks(p, seed);
      for (Rank i = 0; i < p; ++i) {
        std::set<Rank> to;
        for (Rank r = 0; r < p; ++r) to.insert(send_to(ranks, r, i));
        CHECK(to.size() == p);
      }
      Parameters params;
      params.set("seed", std::to_string(seed));
      const Report r = run("randomized-sendrecv", FullyConnected(p, 1), params);
      INFO("p = " << p << ", seed = " << seed);
      CHECK(r.verdict() == Verdict::pass);
      CHECK(run("randomized-scatter", FullyConnected(p, p), params).verdict() == Verdict::pass);
    }
}

TEST_CASE("the request queue: Waitall every ceil(max_queue / 2) iterations") {
  CHECK(iterations_per_batch(0) == 1);
  CHECK(iterations_per_batch(2) == 1);
  CHECK(iterations_per_batch(8) == 4);
  CHECK(iterations_per_batch(5) == 3);
  Parameters even;
  even.set("max_queue", "8");
  const Report r = run("randomized-sendrecv", FullyConnected(10, 4), even);
  CHECK(r.verdict() == Verdict::pass);
  CHECK(r.counts.phases == 3);  // iterations 0-3, 4-7, 8-9
  CHECK(
      check(r, CheckId::requests).summary ==
      "at most 8 requests outstanding per rank and phase; the algorithm allows 8 (max_queue = 8)");
}

TEST_CASE("Algorithm 2 overshoots an odd max_queue by one request, and the check says so") {
  // It waits only when it already holds max_queue or more, and posts two at a time: with
  // max_queue = 5 it holds 6 before its first Waitall.
  Parameters odd;
  odd.set("max_queue", "5");
  const Report r = run("randomized-sendrecv", FullyConnected(8, 3), odd);
  const CheckResult& q = check(r, CheckId::requests);
  CHECK(q.verdict == Verdict::fail);
  REQUIRE(q.counterexample);
  CHECK(q.counterexample->explanation ==
        "rank 0 has 6 requests outstanding in phase 0, more than 5 (max_queue = 5)");
}

TEST_CASE("Algorithm 3: segments of every message, and the trailing scatter for the rest") {
  // 10 bytes in blocks of 4: two full blocks and a trailing 2 bytes, so 3 parts per message.
  Parameters p;
  p.set("bytes", "10");
  p.set("block_size", "4");
  p.set("seed", "3");
  const auto& a = *find_algorithm("randomized-segmented");
  const Schedule s = generate(a, FullyConnected(6, 6), p);
  CHECK(s.header.parts == 3);
  REQUIRE(s.phases.size() == 2 * 6 + 1);  // 6 iterations per block, then the trailing phase
  for (std::size_t ph = 0; ph < s.phases.size(); ++ph)
    for (const Transfer& t : s.phases[ph].transfers())
      CHECK(s.phases[ph].blocks(t)[0].part == (ph < 6 ? 0u : ph < 12 ? 1u : 2u));
  const Report r = verify::verify(s, FullyConnected(6, 6), a.claims(s.header));
  CHECK(r.verdict() == Verdict::pass);
  CHECK(r.counts.c2 == 13);
  SUBCASE("a multiple of the block size has no trailing phase") {
    Parameters even;
    even.set("bytes", "8");
    even.set("block_size", "4");
    CHECK(generate(a, FullyConnected(6, 6), even).phases.size() == 12);
  }
  SUBCASE("a segment dropped is a segment never delivered") {
    std::vector<Phase> phases = s.phases;
    phases[12] = Phase("nothing");
    const Report broken =
        verify::verify(Schedule{s.header, phases}, FullyConnected(6, 6), a.claims(s.header));
    const CheckResult& delivery = check(broken, CheckId::delivery);
    CHECK(delivery.verdict == Verdict::fail);
    CHECK(delivery.summary == "30 of 90 deliveries never happen");
    REQUIRE(delivery.counterexample);
    CHECK(delivery.counterexample->explanation == "block [0,1,2] never reaches rank 1");
  }
}

TEST_CASE("Slim Fly (MMS): 2q^2 routers, degree (3q - delta)/2, diameter 2") {
  for (unsigned q : {5u, 7u, 11u, 13u}) {
    const Graph g = slim_fly(q);
    const int delta = q % 4 == 1 ? 1 : -1;
    INFO("q = " << q);
    CHECK(g.router_count() == 2 * q * q);
    const auto [diameter, degrees] = shape(g);
    CHECK(diameter == 2);
    CHECK(degrees == std::set<std::uint32_t>{(3 * q - static_cast<unsigned>(delta)) / 2});
  }
  CHECK(slim_fly(5).ranks() == 200);  // concentration ceil(7 / 2) = 4: the CSCS cluster's 200 nodes
  CHECK_THROWS_AS(slim_fly(9), InputError);
  CHECK_THROWS_AS(slim_fly(3), InputError);
}

TEST_CASE("Dragonfly: a h + 1 groups, one global link between every two, diameter 3") {
  const Graph g = dragonfly(4, 2, 2);
  CHECK(g.router_count() == 36);
  CHECK(g.ranks() == 72);
  const auto [diameter, degrees] = shape(g);
  CHECK(diameter == 3);
  CHECK(degrees == std::set<std::uint32_t>{3 + 2});  // a - 1 local, h global
}

TEST_CASE("graph: minimal routes with the smallest next router, and the congestion meter") {
  // A square a - b - c - d - a, one host each: h0 -> h2 has two shortest paths; via b wins.
  const Graph g({"a", "b", "c", "d"}, {{"a", "b"}, {"b", "c"}, {"c", "d"}, {"d", "a"}},
                {1, 1, 1, 1});
  const Topology t = g;  // the meter keeps a reference: the model must outlive it
  CHECK(route_nodes(t, 0, 2) == std::vector<NodeId>{0, 4, 5, 6, 2});
  verify::CongestionMeter meter(t, true);
  Phase p;
  p.add(0, 2, Block{0, 2});  // a -> b -> c
  p.add(1, 2, Block{1, 2});  // b -> c
  meter.consume(p);
  REQUIRE(meter.loads().size() == 1);
  CHECK(meter.loads()[0].max == 2);  // b -> c and c -> h2 carry both
  CHECK(meter.sum_of_max() == 2);
  CHECK_THROWS_WITH_AS(Graph({"a", "b"}, {{"a", "a"}}, {1, 1}), "graph: link [a, a] is a loop",
                       InputError);
  CHECK_THROWS_WITH_AS(Graph({"a", "b"}, {}, {1, 1}),
                       "graph: not connected (router 'a' cannot reach 'b')", InputError);
  CHECK_THROWS_AS(verify::CongestionMeter(Topology(FullyConnected(4, 1))), InputError);
}
