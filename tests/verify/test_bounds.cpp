#include <doctest/doctest.h>

#include <ostream>

#include "core/networks.hpp"
#include "helpers.hpp"
#include "verify/bounds.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;

namespace {

/// The best bound on phases for a direct schedule (C1 == C2) and the best C1, C2 with forwarding.
struct Best {
  std::uint64_t direct, c1, c2;
  friend bool operator==(const Best&, const Best&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Best& b) {
    return os << "{direct " << b.direct << ", C1 " << b.c1 << ", C2 " << b.c2 << "}";
  }
};

Best best(const Topology& t, Collective c = Collective::alltoall) {
  const auto all = lower_bounds(t, c);
  const auto d = best_bounds(all, true);
  const auto f = best_bounds(all, false);
  return {d.first, f.first, f.second};
}

Tree star_of_switches(unsigned switches, unsigned per_switch, bool chain) {
  std::vector<std::string> m, s;
  std::vector<Tree::NamedLink> links;
  for (unsigned i = 0; i < switches; ++i) s.push_back("s" + std::to_string(i));
  for (unsigned i = 0; i < switches * per_switch; ++i) {
    m.push_back("n" + std::to_string(i));
    links.push_back({m.back(), s[i / per_switch]});
  }
  for (unsigned i = 1; i < switches; ++i) links.push_back({chain ? s[i - 1] : s[0], s[i]});
  return Tree(m, s, links);
}

}  // namespace

TEST_CASE("bounds on trees: the bottleneck load |Mu| x |Mv| (Faraj-Yuan)") {
  CHECK(best(testing::fig1_tree()) == Best{9, 3, 9});
  CHECK(best(star_of_switches(1, 24, false)) == Best{23, 5, 23});
  CHECK(best(star_of_switches(4, 8, false)) == Best{192, 5, 192});
  CHECK(best(star_of_switches(4, 8, true)) == Best{256, 5, 256});
  CHECK(best(Tree({"a"}, {}, {})) == Best{0, 0, 0});
  SUBCASE("allgather: every pair crosses without forwarding; one side's blocks with it") {
    CHECK(best(testing::fig1_tree(), Collective::allgather) == Best{9, 3, 5});
  }
}

TEST_CASE("bounds on clusters (Sanders-Traeff single-port)") {
  CHECK(best(Cluster({1, 2, 3})) == Best{15, 3, 15});
  CHECK(best(Cluster({4, 4, 4, 4})) == Best{60, 4, 60});
  SUBCASE("an odd number of single-processor nodes needs p phases, not p - 1") {
    CHECK(best(Cluster({1, 1, 1})) == Best{3, 2, 2});
    CHECK(best(Cluster({1, 1, 1, 1, 1, 1, 1})) == Best{7, 3, 6});
    CHECK(best(Cluster({1, 1, 1, 1})) == Best{3, 2, 3});
  }
  CHECK(best(Cluster({5})) == Best{20, 3, 20});
}

TEST_CASE("bounds in the k-port model (Bruck et al., Propositions 2.1-2.4)") {
  CHECK(best(FullyConnected(5, 1)) == Best{4, 3, 4});
  CHECK(best(FullyConnected(9, 2)) == Best{4, 2, 4});
  CHECK(best(FullyConnected(64, 1)) == Best{63, 6, 63});
  CHECK(best(FullyConnected(5, 10)) == Best{1, 1, 1});
  CHECK(best(FullyConnected(1, 1)) == Best{0, 0, 0});
}

TEST_CASE("bounds on routed networks: link traffic and receive ports") {
  // 3-cube: 8 x 12 link-hops over 24 directed links = 4; receive bound ceil(7/3) = 3.
  CHECK(best(Hypercube(3)) == Best{4, 2, 4});
  // 3x3 mesh: 144 link-hops over 24 links = 6; a corner has 2 in-links: ceil(8/2) = 4.
  CHECK(best(Mesh(3, 3, false)) == Best{6, 2, 6});
  // ring of 6: 6 x 9 link-hops over 12 links = 5 (4.5 rounded up).
  CHECK(best(Ring(6)) == Best{5, 2, 5});
  CHECK(best(Ring(2)) == Best{1, 1, 1});
}

TEST_CASE("bounds check: optimal, gap, or below the bound") {
  Counts c;
  c.phases = c.c1 = 9;
  c.c2 = 9;
  CHECK(check_bounds(c, 9, 9).summary == "phases with communication = 9 (lower bound 9, optimal)");
  c.c1 = c.c2 = 12;
  CHECK(check_bounds(c, 9, 9).summary == "phases with communication = 12 (lower bound 9, gap 3)");
  c.c1 = c.c2 = 1;
  const auto below = check_bounds(c, 9, 9);
  CHECK(below.verdict == Verdict::fail);
  CHECK(below.counterexample->explanation ==
        "C1 = 1 is below the lower bound 9, which every valid schedule on this model meets: some "
        "phase overloads a link or port, or some block is never delivered");
  c.direct = false;
  c.c1 = 3;
  c.c2 = 10;
  CHECK(check_bounds(c, 3, 9).summary ==
        "C1 = 3 (lower bound 3, optimal), C2 = 10 (lower bound 9, gap 1)");
}

TEST_CASE("graph bounds count a link of capacity c as c links and a host's ports") {
  // xgmi-8: every gpu 7 ports and a link to every other: one phase may suffice.
  CHECK(best(xgmi(8)) == Best{1, 1, 1});
  // The same graph with one port per gpu: 7 receives need 7 phases.
  const Graph g = xgmi(8);
  const Graph one_port(g.routers(), g.links(), g.hosts());
  CHECK(best(one_port).direct == 7);
  // dgx1: 6 ports per gpu, 7 peers.
  CHECK(best(dgx1()).direct == 2);
}
