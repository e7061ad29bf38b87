#include <doctest/doctest.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <set>

#include "core/error.hpp"
#include "core/topology.hpp"
#include "helpers.hpp"

using namespace phasecheck;

namespace {

std::vector<std::string> path_names(const Topology& t, Rank s, Rank d) {
  std::vector<std::string> out;
  for (NodeId n : route_nodes(t, s, d)) out.push_back(node_name(t, n));
  return out;
}

template <class Net>
std::vector<LinkId> links_of(const Net& net, Rank s, Rank d) {
  std::vector<LinkId> out;
  net.route(s, d, [&](LinkId l) { out.push_back(l); });
  return out;
}

}  // namespace

TEST_CASE("tree: the path of Faraj-Yuan's example n0 -> n3 is n0, s0, s1, s3, n3") {
  const Topology t = testing::fig1_tree();
  CHECK(path_names(t, 0, 3) == std::vector<std::string>{"n0", "s0", "s1", "s3", "n3"});
  CHECK(path_names(t, 3, 0) == std::vector<std::string>{"n3", "s3", "s1", "s0", "n0"});
  CHECK(path_names(t, 0, 1) == std::vector<std::string>{"n0", "s0", "n1"});
  CHECK(path_names(t, 5, 4) == std::vector<std::string>{"n5", "s1", "s3", "n4"});
  CHECK(path_names(t, 2, 2) == std::vector<std::string>{"n2"});
}

TEST_CASE("tree: routes agree with breadth-first search paths computed by Boost.Graph") {
  // A second, independent method: BFS predecessor chains on the undirected graph.
  const Tree tree = testing::fig1_tree();
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  G g(tree.node_count());
  std::map<std::string, NodeId> id;
  for (NodeId n = 0; n < tree.node_count(); ++n) id[tree.node_name(n)] = n;
  for (const auto& [a, b] : tree.links()) boost::add_edge(id[a], id[b], g);
  for (Rank s = 0; s < tree.ranks(); ++s) {
    std::vector<NodeId> pred(tree.node_count());
    pred[s] = s;
    boost::breadth_first_search(g, s,
                                boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(
                                    pred.data(), boost::on_tree_edge()))));
    for (Rank d = 0; d < tree.ranks(); ++d) {
      std::set<std::pair<NodeId, NodeId>> expected, actual;
      for (NodeId v = d; v != s; v = pred[v]) expected.insert({pred[v], v});
      tree.route(s, d, [&](LinkId l) { actual.insert(tree.link_ends(l)); });
      CHECK_MESSAGE(actual == expected, "route " << s << " -> " << d);
    }
  }
}

TEST_CASE("tree: invalid graphs are rejected with the reason") {
  using L = std::vector<Tree::NamedLink>;
  CHECK_THROWS_WITH_AS(Tree({}, {}, {}), "tree: needs at least one machine", InputError);
  CHECK_THROWS_WITH_AS(Tree({"a", "a"}, {"s"}, L{{"a", "s"}}), "tree: the name 'a' is used twice",
                       InputError);
  CHECK_THROWS_WITH_AS(Tree({"a", "b"}, {"s"}, L{{"a", "s"}, {"b", "x"}}),
                       "tree: link [b, x] names the unknown node 'x'", InputError);
  CHECK_THROWS_WITH_AS(Tree({"a", "b"}, {"s"}, L{{"a", "s"}, {"s", "s"}}),
                       "tree: link [s, s] is a loop", InputError);
  CHECK_THROWS_WITH_AS(Tree({"a", "b"}, {"s"}, L{{"a", "s"}, {"s", "a"}, {"b", "s"}}),
                       "tree: link [s, a] is listed twice", InputError);
  CHECK_THROWS_WITH_AS(Tree({"a", "b"}, {"s", "t"}, L{{"a", "s"}, {"b", "t"}}),
                       "tree: not connected ('b' cannot reach 'a')", InputError);
  CHECK_THROWS_WITH_AS(Tree({"a", "b", "c"}, {"s", "t"},
                            L{{"a", "s"}, {"b", "t"}, {"c", "s"}, {"s", "t"}, {"t", "c"}}),
                       "tree: has a cycle (5 links for 5 nodes; a tree has 4)", InputError);
  CHECK_THROWS_WITH_AS(Tree({"a", "b", "c"}, {}, L{{"a", "b"}, {"b", "c"}}),
                       "tree: machine 'b' has 2 links; machines must be leaves", InputError);
}

TEST_CASE("tree: a chain deeper than kMaxTreeDepth is refused, one at the limit is accepted") {
  const auto chain = [](std::uint32_t switches) {
    std::vector<std::string> names;
    std::vector<Tree::NamedLink> links{{"a", "s0"}, {"b", "s" + std::to_string(switches - 1)}};
    for (std::uint32_t i = 0; i < switches; ++i) {
      names.push_back("s" + std::to_string(i));
      if (i > 0) links.push_back({names[i - 1], names[i]});
    }
    return Tree({"a", "b"}, names, links);
  };
  // Rooted at s0: s_i is i levels down and b one more, so kMaxTreeDepth switches reach the limit.
  CHECK(chain(kMaxTreeDepth).ranks() == 2);
  CHECK_THROWS_WITH_AS(chain(kMaxTreeDepth + 1),
                       "tree: 1025 levels below 's0'; at most 1024 are supported", InputError);
}

TEST_CASE("tree: awkward but valid shapes") {
  SUBCASE("one machine, nothing else") { CHECK(Tree({"m"}, {}, {}).ranks() == 1); }
  SUBCASE("two machines on one cable") {
    const Topology t = Tree({"a", "b"}, {}, {{"a", "b"}});
    CHECK(path_names(t, 0, 1) == std::vector<std::string>{"a", "b"});
  }
  SUBCASE("a chain of switches with an empty one at the end") {
    const Topology t =
        Tree({"a", "b"}, {"s", "t", "u"}, {{"a", "s"}, {"s", "t"}, {"t", "u"}, {"b", "t"}});
    CHECK(path_names(t, 0, 1) == std::vector<std::string>{"a", "s", "t", "b"});
  }
}

TEST_CASE("tree: cuts count the machines on each side of every link") {
  const Tree tree = testing::fig1_tree();
  std::map<std::string, std::pair<std::uint32_t, std::uint32_t>> cut;
  for (const auto& c : tree.cuts())
    cut[tree.node_name(c.a) + "-" + tree.node_name(c.b)] = {c.machines_a, c.machines_b};
  CHECK(cut.size() == 9);
  CHECK(cut["s1-s0"] == std::pair<std::uint32_t, std::uint32_t>{3, 3});
  // The tree is rooted at its first switch, s0; each cut names the child side first.
  CHECK(cut["s3-s1"] == std::pair<std::uint32_t, std::uint32_t>{2, 4});
  CHECK(cut["s2-s1"] == std::pair<std::uint32_t, std::uint32_t>{0, 6});
  CHECK(cut["n5-s1"] == std::pair<std::uint32_t, std::uint32_t>{1, 5});
}

TEST_CASE("hypercube: e-cube routing corrects bits from the least significant up") {
  const Hypercube cube(3);
  const auto links = links_of(cube, 0b000, 0b101);
  REQUIRE(links.size() == 2);
  CHECK(cube.link_ends(links[0]) == std::pair<NodeId, NodeId>{0b000, 0b001});
  CHECK(cube.link_ends(links[1]) == std::pair<NodeId, NodeId>{0b001, 0b101});
  CHECK(path_names(Topology(cube), 6, 1) == std::vector<std::string>{"6", "7", "5", "1"});
  CHECK_THROWS_AS(Hypercube(21), InputError);
}

TEST_CASE("mesh: XY routing goes along the row first, then the column") {
  const Topology mesh = Mesh(3, 3, false);
  // rank = row * 3 + col: (0,0) -> (2,2) via (0,1), (0,2), (1,2).
  CHECK(path_names(mesh, 0, 8) == std::vector<std::string>{"0", "1", "2", "5", "8"});
  CHECK(path_names(mesh, 8, 0) == std::vector<std::string>{"8", "7", "6", "3", "0"});
  SUBCASE("a torus goes the short way round, a tie in the + direction") {
    const Topology torus = Mesh(1, 5, true);
    CHECK(path_names(torus, 0, 4) == std::vector<std::string>{"0", "4"});
    CHECK(path_names(torus, 4, 1) == std::vector<std::string>{"4", "0", "1"});
    const Topology even = Mesh(4, 1, true);
    CHECK(path_names(even, 1, 3) == std::vector<std::string>{"1", "2", "3"});
    CHECK(path_names(even, 3, 1) == std::vector<std::string>{"3", "0", "1"});
  }
  SUBCASE("wraparound does nothing on a dimension of two") {
    CHECK(path_names(Mesh(1, 2, true), 1, 0) == std::vector<std::string>{"1", "0"});
  }
  CHECK_THROWS_AS(Mesh(0, 3, false), InputError);
  CHECK_THROWS_AS(Mesh(1000, 1100, false), InputError);
}

TEST_CASE("ring: the shorter way round, a tie in the + direction") {
  const Topology ring = Ring(6);
  CHECK(path_names(ring, 0, 2) == std::vector<std::string>{"0", "1", "2"});
  CHECK(path_names(ring, 0, 4) == std::vector<std::string>{"0", "5", "4"});
  CHECK(path_names(ring, 1, 4) == std::vector<std::string>{"1", "2", "3", "4"});
  CHECK(path_names(Ring(2), 1, 0) == std::vector<std::string>{"1", "0"});
}

TEST_CASE("cluster: ranks are numbered node by node") {
  const Cluster c({1, 2, 3});
  CHECK(c.ranks() == 6);
  CHECK(c.node_of(0) == 0);
  CHECK(c.node_of(2) == 1);
  CHECK(c.node_of(3) == 2);
  CHECK(c.first_rank(2) == 3);
  CHECK_THROWS_WITH_AS(Cluster({2, 0}), "cluster: node 1 has size 0", InputError);
  CHECK_THROWS_AS(Cluster({}), InputError);
}

TEST_CASE("describe names the model with its parameters") {
  CHECK(describe(testing::fig1_tree()) == "tree(machines=6, switches=4)");
  CHECK(describe(Cluster({1, 2, 3})) == "cluster(sizes=1,2,3)");
  CHECK(describe(FullyConnected(5, 2)) == "fully-connected(p=5, k=2)");
  CHECK(describe(Hypercube(3)) == "hypercube(d=3)");
  CHECK(describe(Mesh(3, 4, true)) == "torus(3x4)");
  CHECK(describe(Ring(6)) == "ring(p=6)");
}

TEST_CASE("cluster: a transfer's route names the SMP nodes it joins") {
  const Topology c = Cluster({1, 2, 3});
  CHECK(path_names(c, 0, 4) == std::vector<std::string>{"node 0", "node 2"});
  CHECK(path_names(c, 3, 5) == std::vector<std::string>{"node 2"});
}

TEST_CASE("describe summarises a long list of node sizes") {
  std::vector<Rank> sizes;
  for (Rank s = 1; s <= 16; ++s) sizes.push_back(s);
  CHECK(describe(Cluster(sizes)) == "cluster(nodes=16, ranks=136, sizes 1-16)");
}

TEST_CASE("kind: each model kind's name, as topology files write it, comes from its alternative") {
  CHECK(kind(testing::fig1_tree()) == "tree");
  CHECK(kind(Cluster({1, 2})) == "cluster");
  CHECK(kind(FullyConnected(2, 1)) == "fully-connected");
  CHECK(kind(Hypercube(1)) == "hypercube");
  CHECK(kind(Mesh(2, 2, false)) == "mesh");
  CHECK(kind(Ring(3)) == "ring");
  CHECK(kind(Graph({"r0"}, {}, {2})) == "graph");
  CHECK(kind(Ring(3)) == Ring::kind_name);
}
