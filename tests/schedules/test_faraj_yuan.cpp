// Faraj & Yuan, Section 4: root identification (4.1), the extended ring (4.2, Fig. 3), the rotate
// pattern (Table 2), the assignment of Fig. 4 reproduced as Table 4, and local messages moved to
// phases where they contend or come too late.

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/error.hpp"
#include "helpers.hpp"
#include "schedules/faraj_yuan.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::schedules;
using namespace phasecheck::verify;

namespace {

/// A tree from (switch, machine count) pairs and switch links; machines n0, n1, ... are numbered
/// switch by switch.
Tree tree(const std::vector<std::pair<std::string, Rank>>& switches,
          const std::vector<std::pair<std::string, std::string>>& switch_links) {
  std::vector<std::string> machines, names;
  std::vector<Tree::NamedLink> links;
  for (const auto& [s, count] : switches) {
    names.push_back(s);
    for (Rank i = 0; i < count; ++i) {
      machines.push_back("n" + std::to_string(machines.size()));
      links.push_back({machines.back(), s});
    }
  }
  for (const auto& [a, b] : switch_links) links.push_back({a, b});
  return Tree(machines, names, links);
}

std::vector<std::size_t> sizes(const FarajYuanPlan& plan) {
  std::vector<std::size_t> s;
  for (const auto& t : plan.t) s.push_back(t.size());
  return s;
}

Report verify_phases(const Tree& t, const std::vector<Phase>& phases) {
  const auto& a = *find_algorithm("faraj-yuan");
  const ScheduleHeader h = make_header(a, t, {});
  return verify::verify(Schedule{h, phases}, t, a.claims(h));
}

const CheckResult& check(const Report& r, CheckId id) {
  const auto it = std::find_if(r.checks.begin(), r.checks.end(),
                               [&](const CheckResult& c) { return c.id == id; });
  REQUIRE(it != r.checks.end());
  return *it;
}

/// (src, dst) pairs of a phase, as a set.
std::set<std::pair<Rank, Rank>> pairs(const Phase& p) {
  std::set<std::pair<Rank, Rank>> s;
  for (const Transfer& t : p.transfers()) s.insert({t.src, t.dst});
  return s;
}

/// A copy of `phases` with the message src -> dst moved to phase `to`.
std::vector<Phase> moved(const std::vector<Phase>& phases, Rank src, Rank dst, std::size_t to) {
  std::vector<Phase> out;
  for (const Phase& p : phases) {
    Phase copy{std::string(p.label())};
    for (const Transfer& t : p.transfers())
      if (!(t.src == src && t.dst == dst)) copy.add(t.src, t.dst, Block{t.src, t.dst});
    out.push_back(std::move(copy));
  }
  out[to].add(src, dst, Block{src, dst});
  return out;
}

}  // namespace

TEST_CASE("root identification: Fig. 1 has two bottleneck orientations, the paper's root is s1") {
  const Tree fig1 = testing::fig1_tree();
  // Link s0 - s1 splits 3 | 3 (load 9): walking from either end gives s0 or s1.
  std::vector<std::string> names;
  for (NodeId r : root_candidates(fig1)) names.push_back(fig1.node_name(r));
  CHECK(names == std::vector<std::string>{"s0", "s1"});
  const FarajYuanPlan plan = faraj_yuan_plan(fig1);
  REQUIRE(plan.root);
  CHECK(fig1.node_name(*plan.root) == "s1");  // 3 subtrees rather than s0's 4
  CHECK(plan.t == std::vector<std::vector<Rank>>{{0, 1, 2}, {3, 4}, {5}});
  CHECK(plan.phases() == 9);
  SUBCASE("the other root is allowed, and gives another optimal schedule") {
    const FarajYuanPlan other = faraj_yuan_plan(fig1, std::string("s0"));
    CHECK(other.t == std::vector<std::vector<Rank>>{{3, 4, 5}, {0}, {1}, {2}});
    CHECK(other.phases() == 9);
  }
  SUBCASE("a root off the bottleneck, or with a subtree over half the machines, is refused") {
    CHECK_THROWS_WITH_AS(faraj_yuan_plan(fig1, std::string("s3")),
                         "faraj-yuan: root=s3 has a subtree with 4 of the 6 machines, more than "
                         "half (Lemma 1)",
                         InputError);
    CHECK_THROWS_WITH_AS(faraj_yuan_plan(fig1, std::string("n0")),
                         "faraj-yuan: root=n0 is not a switch of the tree", InputError);
  }
}

TEST_CASE("root identification: chains, empty switches, machines on the root (Lemma 1)") {
  SUBCASE("a chain of four switches of eight: the middle link is the bottleneck, 16 | 16") {
    const Tree chain = tree({{"s0", 8}, {"s1", 8}, {"s2", 8}, {"s3", 8}},
                            {{"s0", "s1"}, {"s1", "s2"}, {"s2", "s3"}});
    const FarajYuanPlan plan = faraj_yuan_plan(chain);
    CHECK(chain.node_name(*plan.root) == "s1");
    CHECK(sizes(plan) == std::vector<std::size_t>{16, 8, 1, 1, 1, 1, 1, 1, 1, 1});
    CHECK(plan.phases() == 256);
  }
  SUBCASE("the walk passes switches with a single loaded branch and empty side branches") {
    // s0 (1 machine) - s1 (empty) - s2 (empty, with an empty leaf switch s5) - s3 (4 machines),
    // s3 - s4 (3 machines): the bottleneck s3 - s4 (3 x 5 = 15) roots at s3.
    const Tree t = tree({{"s0", 1}, {"s1", 0}, {"s2", 0}, {"s5", 0}, {"s3", 4}, {"s4", 3}},
                        {{"s0", "s1"}, {"s1", "s2"}, {"s2", "s5"}, {"s2", "s3"}, {"s3", "s4"}});
    const FarajYuanPlan plan = faraj_yuan_plan(t);
    CHECK(t.node_name(*plan.root) == "s3");
    CHECK(sizes(plan) == std::vector<std::size_t>{3, 1, 1, 1, 1, 1});
    CHECK(plan.phases() == 15);
  }
  SUBCASE("every candidate root of every shape keeps each subtree to at most |M|/2") {
    const std::vector<Tree> shapes = {
        testing::fig1_tree(), tree({{"s0", 5}, {"s1", 1}, {"s2", 1}}, {{"s0", "s1"}, {"s1", "s2"}}),
        tree({{"s0", 2}, {"s1", 2}, {"s2", 2}, {"s3", 2}},
             {{"s0", "s1"}, {"s0", "s2"}, {"s0", "s3"}}),
        tree({{"s0", 3}, {"s1", 0}, {"s2", 3}}, {{"s0", "s1"}, {"s1", "s2"}}),
        tree({{"s0", 7}}, {})};
    for (const Tree& t : shapes) {
      const auto candidates = root_candidates(t);
      REQUIRE(!candidates.empty());
      for (NodeId r : candidates) {
        const FarajYuanPlan plan = faraj_yuan_plan(t, t.node_name(r));
        for (const auto& sub : plan.t) CHECK(2 * sub.size() <= t.ranks());
      }
    }
  }
  SUBCASE("two machines: no root, one phase") {
    const Tree two = tree({{"s0", 1}, {"s1", 1}}, {{"s0", "s1"}});
    const FarajYuanPlan plan = faraj_yuan_plan(two);
    CHECK_FALSE(plan.root);
    CHECK(plan.phases() == 1);
  }
}

TEST_CASE("extended ring: the start phases of Fig. 3") {
  const FarajYuanPlan plan = faraj_yuan_plan(testing::fig1_tree());
  CHECK(plan.start(1, 2) == 0);  // t1 -> t2
  CHECK(plan.start(0, 2) == 6);  // t0 -> t2
  CHECK(plan.start(2, 0) == 0);  // t2 -> t0
  CHECK(plan.start(0, 1) == 0);
  CHECK(plan.start(1, 0) == 3);
  CHECK(plan.start(2, 1) == 7);
}

TEST_CASE("Table 4: the Fig. 1 cluster, phase by phase") {
  // t0,0..2 = n0..n2, t1,0..1 = n3, n4, t2,0 = n5: ranks 0..5.
  const std::vector<std::set<std::pair<Rank, Rank>>> table4 = {
      {{0, 4}, {3, 5}, {5, 1}, {1, 0}},  // 0: t0,0->t1,1  t1,0->t2,0  t2,0->t0,1  t0,1->t0,0
      {{1, 3}, {4, 5}, {5, 2}, {2, 1}},  // 1: t0,1->t1,0  t1,1->t2,0  t2,0->t0,2  t0,2->t0,1
      {{2, 4}, {5, 0}, {0, 2}},          // 2: t0,2->t1,1  t2,0->t0,0  t0,0->t0,2
      {{0, 3}, {3, 2}, {2, 0}},          // 3: t0,0->t1,0  t1,0->t0,2  t0,2->t0,0
      {{1, 4}, {3, 0}, {0, 1}, {4, 3}},  // 4: t0,1->t1,1  t1,0->t0,0  t0,0->t0,1  t1,1->t1,0
      {{2, 3}, {3, 1}, {1, 2}},          // 5: t0,2->t1,0  t1,0->t0,1  t0,1->t0,2
      {{0, 5}, {4, 0}},                  // 6: t0,0->t2,0  t1,1->t0,0
      {{1, 5}, {4, 1}, {5, 3}, {3, 4}},  // 7: t0,1->t2,0  t1,1->t0,1  t2,0->t1,0  t1,0->t1,1
      {{2, 5}, {4, 2}, {5, 4}},          // 8: t0,2->t2,0  t1,1->t0,2  t2,0->t1,1
  };
  const Schedule s = generate(*find_algorithm("faraj-yuan"), testing::fig1_tree());
  REQUIRE(s.phases.size() == table4.size());
  for (std::size_t p = 0; p < table4.size(); ++p) {
    INFO("phase " << p);
    CHECK(pairs(s.phases[p]) == table4[p]);
  }
  const Report r = verify_phases(testing::fig1_tree(), s.phases);
  CHECK(r.verdict() == Verdict::pass);
  CHECK(r.counts.c1 == r.bound_c1);
}

TEST_CASE("Table 2: the rotate pattern of t0 -> t1 for |M0| = 6, |M1| = 4") {
  // Subtrees of 6, 4 and 2 machines on one root switch: t0 -> t1 takes phases 0..23; its
  // receivers t1,(p - P) mod 4 = t1,p mod 4 (P = 36), and its senders rotate once at phase 12.
  const Tree t = tree({{"a", 6}, {"b", 4}, {"c", 2}, {"root", 0}},
                      {{"a", "root"}, {"b", "root"}, {"c", "root"}});
  const FarajYuanPlan plan = faraj_yuan_plan(t);
  REQUIRE(sizes(plan) == std::vector<std::size_t>{6, 4, 2});
  const Schedule s = generate(*find_algorithm("faraj-yuan"), t);
  const int table2_senders[24] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5,
                                  1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0};
  std::set<std::pair<Rank, Rank>> realized;
  for (std::size_t p = 0; p < 24; ++p) {
    const auto ts = s.phases[p].transfers();
    const auto global = std::find_if(ts.begin(), ts.end(), [](const Transfer& x) {
      return x.src < 6 && x.dst >= 6 && x.dst < 10;  // t0 -> t1
    });
    REQUIRE(global != ts.end());
    CHECK(global->src == Rank(table2_senders[p]));
    CHECK(global->dst == 6 + p % 4);
    realized.insert({global->src, global->dst});
  }
  CHECK(realized.size() == 24);  // every message of t0 -> t1 exactly once
  CHECK(verify_phases(t, s.phases).verdict() == Verdict::pass);
}

TEST_CASE("broadcast pattern: each sender of t_i -> t_0 holds |M0| consecutive phases (Lemma 5)") {
  const Tree t = tree({{"a", 6}, {"b", 4}, {"c", 2}, {"root", 0}},
                      {{"a", "root"}, {"b", "root"}, {"c", "root"}});
  const FarajYuanPlan plan = faraj_yuan_plan(t);
  const Schedule s = generate(*find_algorithm("faraj-yuan"), t);
  const std::uint64_t start = plan.start(1, 0);  // t1 -> t0: 24 phases
  for (std::uint64_t p = start; p < start + 24; ++p)
    for (const Transfer& x : s.phases[p].transfers())
      if (x.src >= 6 && x.src < 10 && x.dst < 6) CHECK(x.src == 6 + (p - start) / 6);
}

TEST_CASE("a local message moved to a phase where it contends is caught") {
  // t1,1 -> t1,0 (n4 -> n3) belongs in phase 4; in phase 1 n4 also sends t1,1 -> t2,0, and both
  // leave through n4's link.
  const auto phases = generate(*find_algorithm("faraj-yuan"), testing::fig1_tree()).phases;
  const Report r = verify_phases(testing::fig1_tree(), moved(phases, 4, 3, 1));
  const CheckResult& contention = check(r, CheckId::contention);
  CHECK(contention.verdict == Verdict::fail);
  REQUIRE(contention.counterexample);
  CHECK(contention.counterexample->phase == 1);
  CHECK(contention.counterexample->resource == "link n4 -> s3");
  CHECK(check(r, CheckId::delivery).verdict == Verdict::pass);  // still every message exactly once
}

TEST_CASE("a local message of t_0 moved past the first |M0| (|M0| - 1) phases breaks Step 3") {
  const auto phases = generate(*find_algorithm("faraj-yuan"), testing::fig1_tree()).phases;
  const Report r = verify_phases(testing::fig1_tree(), moved(phases, 1, 0, 8));  // t0,1 -> t0,0
  const CheckResult& invariants = check(r, CheckId::invariants);
  CHECK(invariants.verdict == Verdict::fail);
  REQUIRE(invariants.counterexample);
  CHECK(invariants.counterexample->phase == 5);
  CHECK(invariants.counterexample->explanation.find(
            "Step 3: the message 1 -> 0 (t_0 -> t_0) has not been delivered after phase 5") !=
        std::string::npos);
}

TEST_CASE("the Fig. 5 clusters: 23, 192 and 256 phases, each the bottleneck load") {
  const std::vector<std::pair<Tree, std::uint64_t>> cases = {
      {tree({{"s0", 24}}, {}), 23},
      {tree({{"s0", 8}, {"s1", 8}, {"s2", 8}, {"s3", 8}},
            {{"s0", "s1"}, {"s0", "s2"}, {"s0", "s3"}}),
       192},
      {tree({{"s0", 8}, {"s1", 8}, {"s2", 8}, {"s3", 8}},
            {{"s0", "s1"}, {"s1", "s2"}, {"s2", "s3"}}),
       256}};
  for (const auto& [t, phases] : cases) {
    const Schedule s = generate(*find_algorithm("faraj-yuan"), t);
    const Report r = verify_phases(t, s.phases);
    CHECK(r.verdict() == Verdict::pass);
    CHECK(r.counts.phases == phases);
    CHECK(r.bound_c1 == phases);
  }
}

TEST_CASE("faraj-yuan: only on trees, and only its own parameters") {
  CHECK_THROWS_WITH_AS(generate(*find_algorithm("faraj-yuan"), Ring(4)),
                       "faraj-yuan needs a tree topology (switches and machines), not ring(p=4)",
                       InputError);
  Parameters bad;
  bad.set("radix", "2");
  CHECK_THROWS_AS(generate(*find_algorithm("faraj-yuan"), testing::fig1_tree(), bad), InputError);
}

TEST_CASE("faraj-yuan: subtrees of consecutive ranks and listed machines give the same phases") {
  // The generator reads machine x of t_i as t_i,0 + x when every subtree is a run of consecutive
  // ranks, and from the list otherwise. The plan's lists with their ranks shuffled take the
  // second path; their phases must be the first path's, rank for rank, in the same order.
  FarajYuanPlan runs;
  runs.machines = 12;
  runs.t = {{0, 1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11}};
  const std::vector<Rank> shuffled = {5, 11, 0, 7, 2, 9, 4, 1, 10, 3, 8, 6};
  FarajYuanPlan listed = runs;
  for (auto& machines : listed.t)
    for (Rank& m : machines) m = shuffled[m];
  std::vector<Phase> a, b;
  faraj_yuan(runs, Collective::alltoall, [&](const Phase& p) { a.push_back(p); });
  faraj_yuan(listed, Collective::alltoall, [&](const Phase& p) { b.push_back(p); });
  REQUIRE(a.size() == runs.phases());
  REQUIRE(b.size() == a.size());
  std::size_t messages = 0;
  for (std::size_t p = 0; p < a.size(); ++p) {
    REQUIRE(a[p].size() == b[p].size());
    for (std::size_t i = 0; i < a[p].size(); ++i) {
      CHECK(b[p][i].src == shuffled[a[p][i].src]);
      CHECK(b[p][i].dst == shuffled[a[p][i].dst]);
      ++messages;
    }
  }
  CHECK(messages == 12 * 11);  // every message of the all-to-all, once
}
