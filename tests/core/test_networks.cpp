// The builders of every model kind (core/networks.hpp): the machine they build, its routes where
// they matter, and the limits they refuse before building.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/networks.hpp"

using namespace phasecheck;

namespace {

constexpr std::uint64_t kHuge = std::numeric_limits<std::uint64_t>::max();

/// The route src -> dst as node names: "h0 > pod0.edge0 > ...".
std::string path(const Topology& t, Rank src, Rank dst) {
  std::string out;
  for (const NodeId n : route_nodes(t, src, dst))
    out += (out.empty() ? "" : " > ") + node_name(t, n);
  return out;
}

/// Hosts of router r plus its router links: every switch of a k-ary fat tree has k ports.
std::uint32_t ports_used(const Graph& g, std::uint32_t r) { return g.hosts()[r] + g.degree(r); }

}  // namespace

TEST_CASE("tree_network: fanout level by level, machines numbered left to right") {
  struct Case {
    std::vector<std::uint64_t> fanout;
    Rank machines;
    std::size_t switches;
  };
  for (const Case& c : std::vector<Case>{{{8}, 8, 1},
                                         {{8, 4}, 32, 9},
                                         {{2, 3, 4}, 24, 9},
                                         {{1}, 1, 1},
                                         {{1, 1, 1}, 1, 3},
                                         {{3, 1, 2}, 6, 7},
                                         {{7, 1}, 7, 8}}) {
    CAPTURE(c.fanout);
    const Tree t = tree_network(c.fanout);
    CHECK(t.ranks() == c.machines);
    CHECK(t.switches().size() == c.switches);
    CHECK(t.links().size() == c.machines + c.switches - 1);
    CHECK(t.switches().front() == "s0.0");
  }
  const Tree t = tree_network(std::vector<std::uint64_t>{2, 3, 4});
  CHECK(t.machines()[5] == "n5");
  // n0..n3 under s2.0, n4..n7 under s2.1 (both below s1.0), n12.. below s1.1.
  CHECK(path(t, 0, 3) == "n0 > s2.0 > n3");
  CHECK(path(t, 0, 4) == "n0 > s2.0 > s1.0 > s2.1 > n4");
  CHECK(path(t, 0, 23) == "n0 > s2.0 > s1.0 > s0.0 > s1.1 > s2.5 > n23");
  // The root's links carry the bottleneck: 12 machines on each side.
  CHECK(t.bottleneck_load() == 12 * 12);
}

TEST_CASE("tree_network: refuses bad fanouts before building") {
  const auto refuses = [](std::vector<std::uint64_t> fanout, const std::string& message) {
    CAPTURE(fanout);
    CHECK_THROWS_WITH_AS(tree_network(fanout), message.c_str(), InputError);
  };
  refuses({}, "tree: --fanout needs at least one number");
  refuses({0}, "tree: --fanout element 1 is 0; every switch has at least 1 node below it");
  refuses({8, 4, 0}, "tree: --fanout element 3 is 0; every switch has at least 1 node below it");
  refuses({1000, 1100}, "tree: --fanout gives 1100000 machines; at most 1048576 are supported");
  refuses({1048577}, "tree: --fanout gives 1048577 machines; at most 1048576 are supported");
  refuses({2, kHuge}, "tree: --fanout gives more than 1048576 machines; at most 1048576 are supported");
  refuses(std::vector<std::uint64_t>(1025, 1),
          "tree: --fanout has 1025 levels; at most 1024 are supported");
  std::vector<std::uint64_t> wide_then_deep(1000, 1);
  wide_then_deep[0] = 8192;
  refuses(wide_then_deep, "tree: --fanout gives 8183809 switches; at most 1048576 are supported");
  // The deepest tree the model accepts: 1024 levels of one switch each.
  CHECK(tree_network(std::vector<std::uint64_t>(1024, 1)).switches().size() == 1024);
}

TEST_CASE("fat_tree_network: Al-Fares' k-ary fat tree, every switch with k ports") {
  for (const std::uint64_t k : {2, 4, 6, 8}) {
    CAPTURE(k);
    const Graph g = fat_tree_network(k);
    CHECK(g.ranks() == k * k * k / 4);
    CHECK(g.router_count() == 5 * k * k / 4);
    CHECK(g.links().size() == k * k * k / 2);
    CHECK(g.unit_capacity());
    for (std::uint32_t r = 0; r < g.router_count(); ++r) {
      CAPTURE(g.routers()[r]);
      CHECK(ports_used(g, r) == k);
    }
  }
  const Graph g = fat_tree_network(4);
  CHECK(g.routers()[0] == "pod0.edge0");
  CHECK(g.routers()[2] == "pod0.agg0");
  CHECK(g.routers()[16] == "core0.0");
  CHECK(g.hosts()[0] == 2);
  CHECK(g.hosts()[2] == 0);
}

TEST_CASE("fat_tree_network: minimal routing takes the first aggregation and core switch") {
  // The graph's routing picks the smallest-numbered switch one hop closer, the same for every
  // destination: all routes between pods cross core0.0, and inside a pod they cross agg0.
  const Topology t = fat_tree_network(4);
  CHECK(path(t, 0, 1) == "h0 > pod0.edge0 > h1");
  CHECK(path(t, 0, 2) == "h0 > pod0.edge0 > pod0.agg0 > pod0.edge1 > h2");
  CHECK(path(t, 3, 15) == "h3 > pod0.edge1 > pod0.agg0 > core0.0 > pod3.agg0 > pod3.edge1 > h15");
  CHECK(path(t, 15, 4) == "h15 > pod3.edge1 > pod3.agg0 > core0.0 > pod1.agg0 > pod1.edge0 > h4");
}

TEST_CASE("fat_tree_network: refuses odd, small and too large k") {
  for (const std::uint64_t k :
       {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{3}, std::uint64_t{33}, kHuge})
    CHECK_THROWS_WITH_AS(
        fat_tree_network(k),
        ("fat-tree: --k " + std::to_string(k) + "; expected an even number, at least 2").c_str(),
        InputError);
  CHECK(fat_tree_network(32).ranks() == 8192);
  CHECK_THROWS_WITH_AS(fat_tree_network(162),
                       "fat-tree: --k 162 gives 1062882 hosts (k^3/4); at most 1048576 are supported",
                       InputError);
  CHECK_THROWS_WITH_AS(fat_tree_network(kHuge - 1),
                       "fat-tree: --k 18446744073709551614 gives more than 1048576 hosts (k^3/4); "
                       "at most 1048576 are supported",
                       InputError);
}

TEST_CASE("cluster_network: node sizes, checked as the model checks them") {
  CHECK(cluster_network(std::vector<std::uint64_t>{8, 8, 4, 1}) == Cluster({8, 8, 4, 1}));
  CHECK(cluster_network(std::vector<std::uint64_t>{1}).ranks() == 1);
  CHECK(cluster_network(std::vector<std::uint64_t>{8191, 1}).ranks() == 8192);
  CHECK_THROWS_WITH_AS(cluster_network(std::vector<std::uint64_t>{}),
                       "cluster: --sizes needs at least one node size", InputError);
  CHECK_THROWS_WITH_AS(cluster_network(std::vector<std::uint64_t>{8, 0}),
                       "cluster: --sizes element 2 is 0; a node has at least 1 rank", InputError);
  CHECK_THROWS_WITH_AS(cluster_network(std::vector<std::uint64_t>{1048576, 1}),
                       "cluster: --sizes adds up to more than 1048576 ranks", InputError);
  CHECK_THROWS_WITH_AS(cluster_network(std::vector<std::uint64_t>{1, kHuge}),
                       "cluster: --sizes adds up to more than 1048576 ranks", InputError);
}

TEST_CASE("fully_connected, hypercube, mesh and ring networks: the models, options named") {
  CHECK(fully_connected_network(5, 2) == FullyConnected(5, 2));
  CHECK(fully_connected_network(1, 8192) == FullyConnected(1, 8192));
  CHECK_THROWS_WITH_AS(fully_connected_network(0, 1),
                       "fully-connected: --ranks 0; expected 1 to 1048576", InputError);
  CHECK_THROWS_WITH_AS(fully_connected_network(4, 0),
                       "fully-connected: --ports 0; expected 1 to 1048576", InputError);
  CHECK_THROWS_WITH_AS(fully_connected_network(4, 1048577),
                       "fully-connected: --ports 1048577; expected 1 to 1048576", InputError);

  CHECK(hypercube_network(0).ranks() == 1);
  CHECK(hypercube_network(3) == Hypercube(3));
  CHECK(hypercube_network(13).ranks() == 8192);
  CHECK_THROWS_WITH_AS(hypercube_network(21), "hypercube: --dimension 21; expected 0 to 20",
                       InputError);
  CHECK_THROWS_AS(hypercube_network(kHuge), InputError);

  CHECK(mesh_network(3, 4, false) == Mesh(3, 4, false));
  CHECK(mesh_network(1, 1, true) == Mesh(1, 1, true));
  CHECK(mesh_network(1, 8192, false).ranks() == 8192);
  CHECK_THROWS_WITH_AS(mesh_network(0, 4, false), "mesh: --rows 0; expected 1 to 1048576", InputError);
  CHECK_THROWS_WITH_AS(mesh_network(4, kHuge, false),
                       "mesh: --cols 18446744073709551615; expected 1 to 1048576", InputError);
  CHECK_THROWS_WITH_AS(mesh_network(1000, 1100, true),
                       "mesh: --rows 1000 --cols 1100 gives 1100000 ranks; at most 1048576 are supported",
                       InputError);

  CHECK(ring_network(1) == Ring(1));
  CHECK(ring_network(7) == Ring(7));
  CHECK_THROWS_WITH_AS(ring_network(0), "ring: --ranks 0; expected 1 to 1048576", InputError);
  CHECK_THROWS_WITH_AS(ring_network(1048577), "ring: --ranks 1048577; expected 1 to 1048576", InputError);
}
