#include <doctest/doctest.h>

#include <map>
#include <random>

#include "core/networks.hpp"
#include "helpers.hpp"
#include "verify/contention.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;
using testing::phase;

namespace {

CheckResult run(const Topology& model, std::initializer_list<Phase> phases) {
  ContentionChecker c(model);
  std::size_t i = 0;
  for (const Phase& p : phases) c.consume(i++, p);
  return c.finish();
}

}  // namespace

TEST_CASE("contention on a tree: two messages up the same link") {
  const Topology t = testing::fig1_tree();
  // n0 -> n3 and n1 -> n4 share s0 -> s1 and s1 -> s3; 3 -> 0 runs the other way and is fine.
  const auto r = run(t, {phase("p", {{0, 3}, {1, 4}, {3, 0}})});
  CHECK(r.verdict == Verdict::fail);
  CHECK(r.summary == "contention in 1 of 1 phases on tree(machines=6, switches=4) (2 conflicts)");
  REQUIRE(r.counterexample);
  const Counterexample& x = *r.counterexample;
  CHECK(x.phase == 0);
  CHECK(x.phase_size == 3);
  // Either shared link is a witness; the checker reports the first it meets.
  CHECK(x.resource == "link s1 -> s3");
  CHECK(x.explanation ==
        "transfers 0 -> 3 and 1 -> 4 both use the directed link s1 -> s3 in phase 0");
  CHECK(x.transfers ==
        std::vector<OffendingTransfer>{{0, 3, {{0, 3}}, {"n0", "s0", "s1", "s3", "n3"}},
                                       {1, 4, {{1, 4}}, {"n1", "s0", "s1", "s3", "n4"}}});
}

TEST_CASE("contention on a tree: the first user of the link is named, however far back") {
  // The stamps keep only the phase; the drawing routes the earlier transfers again to find who
  // took s1 -> s3 first: transfer 2 (0 -> 3), after one going the other way and a local copy.
  const auto r = run(testing::fig1_tree(), {phase("p", {{3, 0}, {2, 2}, {0, 3}, {1, 4}})});
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->resource == "link s1 -> s3");
  CHECK(r.counterexample->transfers ==
        std::vector<OffendingTransfer>{{0, 3, {{0, 3}}, {"n0", "s0", "s1", "s3", "n3"}},
                                       {1, 4, {{1, 4}}, {"n1", "s0", "s1", "s3", "n4"}}});
}

TEST_CASE("contention on a tree: opposite directions of a link do not conflict") {
  const auto r = run(testing::fig1_tree(), {phase("p", {{0, 3}, {3, 0}, {1, 2}, {2, 1}})});
  CHECK(r.verdict == Verdict::pass);
}

TEST_CASE("contention on a tree: the first conflicting phase is the counterexample") {
  const auto r = run(testing::fig1_tree(), {phase("ok", {{0, 3}}), phase("bad", {{5, 3}, {4, 3}}),
                                            phase("bad too", {{0, 1}, {0, 2}})});
  CHECK(r.summary == "contention in 2 of 3 phases on tree(machines=6, switches=4) (2 conflicts)");
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->phase == 1);
  CHECK(r.counterexample->label == "bad");
  CHECK(r.counterexample->resource == "link s3 -> n3");
}

TEST_CASE("contention on a cluster: one operation per node and phase") {
  const Topology c = Cluster({1, 2, 3});  // node 0: rank 0; node 1: ranks 1-2; node 2: ranks 3-5
  SUBCASE("an exchange between two nodes plus an intra-node send elsewhere is fine") {
    CHECK(run(c, {phase("p", {{0, 3}, {3, 0}, {1, 2}, {4, 4}})}).verdict == Verdict::pass);
  }
  SUBCASE("a node exchanging with two partners is not") {
    const auto r = run(c, {phase("p", {{1, 3}, {3, 1}, {2, 0}})});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->resource == "node 1 (ranks 1-2)");
    CHECK(r.counterexample->explanation ==
          "node 1 takes part in two operations in phase 0; a single-ported node does one exchange "
          "or one intra-node send");
    CHECK(r.counterexample->transfers ==
          std::vector<OffendingTransfer>{{1, 3, {{1, 3}}, {"node 1", "node 2"}},
                                         {2, 0, {{2, 0}}, {"node 1", "node 0"}}});
  }
  SUBCASE("an intra-node exchange is two operations") {
    const auto r = run(c, {phase("p", {{1, 2}, {2, 1}})});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->resource == "node 1 (ranks 1-2)");
  }
  SUBCASE("an exchange half from another processor of the node is not the reverse") {
    CHECK(run(c, {phase("p", {{3, 1}, {1, 4}})}).verdict == Verdict::fail);
  }
}

TEST_CASE("contention in the k-port model: at most k sends and k receives per rank") {
  SUBCASE("k = 1: a rank may send to one rank and receive from another") {
    CHECK(run(FullyConnected(3, 1), {phase("p", {{0, 1}, {1, 2}, {2, 0}})}).verdict ==
          Verdict::pass);
  }
  SUBCASE("k = 1: two sends from rank 0") {
    const auto r = run(FullyConnected(3, 1), {phase("p", {{0, 1}, {1, 2}, {0, 2}})});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->resource == "send ports of rank 0 (k = 1)");
    CHECK(r.counterexample->explanation ==
          "rank 0 must send 2 transfers in phase 0 but has 1 send port");
    CHECK(r.counterexample->transfers.size() == 2);
  }
  SUBCASE("k = 2: three receives at rank 3") {
    const auto r = run(FullyConnected(4, 2), {phase("p", {{0, 3}, {1, 3}, {2, 3}})});
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->resource == "receive ports of rank 3 (k = 2)");
    CHECK(r.counterexample->transfers.size() == 3);
  }
}

TEST_CASE("contention on a hypercube: pairwise exchange is free, a shift by 3 is not") {
  const Topology cube = Hypercube(3);
  for (Rank j = 0; j < 8; ++j) {
    Phase p;
    for (Rank i = 0; i < 8; ++i) p.add(i, i ^ j, Block{i, i ^ j});
    CHECK(run(cube, {p}).verdict == Verdict::pass);
  }
  // e-cube takes 1 -> 4 through 0, so it meets 0 -> 4 on the link 0 -> 4.
  const auto r = run(cube, {phase("p", {{1, 4}, {0, 4}})});
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->resource == "link 0 -> 4");
}

TEST_CASE("contention on a mesh and a ring") {
  const auto mesh = run(Mesh(3, 3, false), {phase("p", {{0, 2}, {1, 5}})});
  REQUIRE(mesh.counterexample);
  CHECK(mesh.counterexample->resource == "link 1 -> 2");
  const auto ring = run(Ring(6), {phase("p", {{0, 2}, {1, 3}})});
  REQUIRE(ring.counterexample);
  CHECK(ring.counterexample->resource == "link 1 -> 2");
  CHECK(run(Ring(6), {phase("p", {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}, {5, 0}})}).verdict ==
        Verdict::pass);
}

TEST_CASE("contention agrees with a naive count of link uses on random phases") {
  // A second method: route_nodes gives each path as a node list; count directed node pairs
  // against the capacity of the link joining them (1, except on the GPU graphs).
  std::mt19937 rng(7);
  // Two hosts of 2 ports on a; a = b with 3 links, b = c with 2; three one-port hosts on c.
  const Graph chain({"a", "b", "c"}, {{"a", "b"}, {"b", "c"}}, {2, 0, 3}, {3, 2}, {2, 1, 1});
  const std::vector<Topology> models = {testing::fig1_tree(), Hypercube(3), Mesh(3, 4, true),
                                        Mesh(2, 3, false),    Ring(7),      dgx1(),
                                        gpu_cluster(3, 2, 2), chain};
  for (const Topology& model : models) {
    const Rank p = ranks(model);
    std::map<std::pair<NodeId, NodeId>, std::uint32_t> capacity;
    if (const auto* g = std::get_if<Graph>(&model))
      for (LinkId l = 0; l < g->link_id_count(); ++l) capacity[g->link_ends(l)] = g->capacity(l);
    const auto capacity_of = [&](NodeId a, NodeId b) {
      const auto it = capacity.find({a, b});
      return it == capacity.end() ? 1 : static_cast<int>(it->second);
    };
    for (int trial = 0; trial < 400; ++trial) {
      Phase ph;
      const int n = 1 + static_cast<int>(rng() % 6);
      for (int i = 0; i < n; ++i) {
        const auto s = static_cast<Rank>(rng() % p), d = static_cast<Rank>(rng() % p);
        ph.add(s, d, Block{s, d});
      }
      std::map<std::pair<NodeId, NodeId>, int> uses;
      bool conflict = false;
      for (const Transfer& t : ph.transfers()) {
        const auto nodes = route_nodes(model, t.src, t.dst);
        for (std::size_t k = 0; k + 1 < nodes.size(); ++k)
          conflict |= ++uses[{nodes[k], nodes[k + 1]}] > capacity_of(nodes[k], nodes[k + 1]);
      }
      CHECK_MESSAGE((run(model, {ph}).verdict == Verdict::fail) == conflict, describe(model)
                                                                                 << ": " << ph);
    }
  }
}

TEST_CASE("contention on links with capacity: c transfers pass, c + 1 fail naming all of them") {
  // Two routers joined by 2 parallel links, 3 hosts each on 1 port: hosts 0,1,2 on a; 3,4,5 on b.
  const Topology t = Graph({"a", "b"}, {{"a", "b"}}, {3, 3}, {2});
  CHECK(run(t, {phase("two", {{0, 3}, {1, 4}})}).verdict == Verdict::pass);
  const auto r =
      run(t, {phase("ok", {{0, 3}, {1, 4}}), phase("three", {{0, 3}, {1, 4}, {5, 2}, {2, 5}})});
  CHECK(r.verdict == Verdict::fail);
  CHECK(r.summary.find("contention in 1 of 2 phases") == 0);
  REQUIRE(r.counterexample);
  const Counterexample& x = *r.counterexample;
  CHECK(x.phase == 1);
  CHECK(x.resource == "link a -> b (capacity 2)");
  CHECK(x.explanation ==
        "3 transfers use the directed link a -> b in phase 1, which carries 2 at a time (2 "
        "parallel links or ports)");
  REQUIRE(x.transfers.size() == 3);
  CHECK(x.transfers[0].src == 0);
  CHECK(x.transfers[1].src == 1);
  CHECK(x.transfers[2].src == 2);
  // The same with a transfer the other way first: the three users from the first of them on.
  const auto later = run(t, {phase("three", {{5, 2}, {0, 3}, {1, 4}, {2, 5}})});
  REQUIRE(later.counterexample);
  REQUIRE(later.counterexample->transfers.size() == 3);
  CHECK(later.counterexample->transfers[0].src == 0);
  CHECK(later.counterexample->transfers[2].src == 2);
}

TEST_CASE("contention with host ports: a gpu drives as many transfers as it has ports") {
  const Topology t =
      Graph({"a", "b", "c"}, {{"a", "b"}, {"a", "c"}, {"b", "c"}}, {1, 1, 1}, {}, {2, 1, 1});
  // Host 0 has 2 ports: it may send to both others at once; host 1 has one port.
  CHECK(run(t, {phase("p", {{0, 1}, {0, 2}})}).verdict == Verdict::pass);
  const auto r = run(t, {phase("p", {{1, 0}, {1, 2}})});
  CHECK(r.verdict == Verdict::fail);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->resource == "link h1 -> b");
}

TEST_CASE("contention: a graph whose capacities are all 1 judges as before") {
  const Topology unit = Graph({"a", "b"}, {{"a", "b"}}, {2, 2});
  const Topology explicit_unit = Graph({"a", "b"}, {{"a", "b"}}, {2, 2}, {1}, {1, 1});
  for (const Topology& t : {unit, explicit_unit}) {
    const auto r = run(t, {phase("p", {{0, 2}, {1, 3}})});
    CHECK(r.verdict == Verdict::fail);
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->resource == "link a -> b");
    CHECK(r.counterexample->transfers.size() == 2);
  }
}

TEST_CASE("contention on dgx1: two routes over a doubled NVLink pass, over a single one fail") {
  const Graph g = dgx1();
  // 4 -> 1 has no NVLink: it goes gpu4 > gpu0 > gpu1 and meets 0 -> 1 on gpu0 -> gpu1 (2 links).
  CHECK(run(Topology(g), {phase("p", {{0, 1}, {4, 1}})}).verdict == Verdict::pass);
  const Topology single(Graph(g.routers(), g.links(), g.hosts(), {}, g.host_ports()));
  const auto r = run(single, {phase("p", {{0, 1}, {4, 1}})});
  CHECK(r.verdict == Verdict::fail);
  REQUIRE(r.counterexample);
  CHECK(r.counterexample->resource == "link gpu0 -> gpu1");
  // 3 -> 4 goes gpu3 > gpu0 > gpu4 and 7 -> 0 gpu7 > gpu3 > gpu0: gpu3 -> gpu0 has one NVLink.
  CHECK(run(Topology(g), {phase("p", {{3, 4}, {7, 0}})}).verdict == Verdict::fail);
}

TEST_CASE("contention: when the phase stamps come round again, every link is free once more") {
  // Stamps are index % (2^32 - 1) + 1: phase 2^32 - 1 gets phase 0's stamp. The rule forgets
  // every stamp then (a tree's, kept beside its nodes, and the other models' per link), so the
  // same transfer is no conflict; within that phase two transfers on one link still are.
  const std::uint64_t wrap = 4294967295u;
  const Topology tree = testing::fig1_tree();
  const Topology ring = Ring(4);
  for (const Topology* model : {&tree, &ring}) {
    ContentionChecker c(*model);
    c.consume(0, phase("first", {{0, 3}}));
    c.consume(wrap, phase("again", {{0, 3}}));
    CHECK(c.finish().verdict == Verdict::pass);
    CHECK(c.tally().phases == 2);
    c.consume(wrap + 1, phase("twice", {{0, 3}, {0, 3}}));
    const CheckResult r = c.finish();
    CHECK(r.verdict == Verdict::fail);
    REQUIRE(r.counterexample);
    CHECK(r.counterexample->phase == wrap + 1);
  }
}
