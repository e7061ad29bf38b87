// GPU machines as graph topologies (core/networks.hpp): capacities, host ports and the builders.
#include <doctest/doctest.h>

#include <numeric>

#include "core/error.hpp"
#include "core/networks.hpp"

using namespace phasecheck;

namespace {

/// Physical links between routers a and b (0: none), from the graph's link list.
std::uint32_t links_between(const Graph& g, const std::string& a, const std::string& b) {
  for (std::size_t e = 0; e < g.links().size(); ++e) {
    const auto& [x, y] = g.links()[e];
    if ((x == a && y == b) || (x == b && y == a)) return g.capacities()[e];
  }
  return 0;
}

}  // namespace

TEST_CASE("graph capacities: default 1, per link and per router's hosts") {
  const Graph plain({"a", "b"}, {{"a", "b"}}, {1, 1});
  CHECK(plain.unit_capacity());
  for (LinkId l = 0; l < plain.link_id_count(); ++l) CHECK(plain.capacity(l) == 1);

  const Graph g({"a", "b"}, {{"a", "b"}}, {2, 1}, {3}, {4, 1});
  CHECK_FALSE(g.unit_capacity());
  // Links: 2h host -> router, 2h+1 router -> host (hosts 0, 1 on a; 2 on b), then the router link.
  CHECK(g.capacity(0) == 4);
  CHECK(g.capacity(3) == 4);
  CHECK(g.capacity(4) == 1);
  CHECK(g.capacity(6) == 3);
  CHECK(g.capacity(7) == 3);
  CHECK(link_capacity(Topology(g), 6) == 3);
  CHECK(link_capacity(Topology(Ring(4)), 0) == 1);
  CHECK_FALSE(g == Graph({"a", "b"}, {{"a", "b"}}, {2, 1}));

  CHECK_THROWS_WITH_AS(Graph({"a", "b"}, {{"a", "b"}}, {1, 1}, {0}),
                       "graph: link capacities[0] = 0; expected 1 to 1024", InputError);
  CHECK_THROWS_WITH_AS(Graph({"a", "b"}, {{"a", "b"}}, {1, 1}, {1, 1}),
                       "graph: link capacities gives 2 values for 1 links", InputError);
  CHECK_THROWS_WITH_AS(Graph({"a", "b"}, {{"a", "b"}}, {1, 1}, {}, {1}),
                       "graph: host_ports gives 1 values for 2 routers", InputError);
  CHECK_THROWS_WITH_AS(Graph({"a", "b"}, {{"a", "b"}}, {1, 1}, {}, {1, 1025}),
                       "graph: host_ports[1] = 1025; expected 1 to 1024", InputError);
}

TEST_CASE("xgmi: every pair of gpus linked once, every gpu driving all its links") {
  const Graph g = xgmi(8);
  CHECK(g.ranks() == 8);
  CHECK(g.router_count() == 8);
  CHECK(g.links().size() == 28);
  for (std::uint32_t r = 0; r < 8; ++r) {
    CHECK(g.degree(r) == 7);
    CHECK(g.host_ports()[r] == 7);
  }
  CHECK(std::all_of(g.capacities().begin(), g.capacities().end(), [](auto c) { return c == 1; }));
  CHECK(g.distance(0, 7) == 1);
  CHECK_THROWS_WITH_AS(xgmi(1), "xgmi: --gpus 1; expected 2 to 64", InputError);
  CHECK_THROWS_AS(xgmi(65), InputError);
}

TEST_CASE("nvswitch: one switch, one port per gpu") {
  const Graph g = nvswitch(8);
  CHECK(g.router_count() == 1);
  CHECK(g.links().empty());
  CHECK(g.ranks() == 8);
  CHECK(g.unit_capacity());
}

TEST_CASE("dgx1: the hybrid cube-mesh with msccl-tools' NVLink counts") {
  const Graph g = dgx1();
  CHECK(g.ranks() == 8);
  CHECK(g.links().size() == 16);
  // Six NVLinks per V100, and six host ports.
  for (std::uint32_t r = 0; r < 8; ++r) {
    std::uint32_t nvlinks = 0;
    for (std::uint32_t s = 0; s < 8; ++s)
      nvlinks += links_between(g, "gpu" + std::to_string(r), "gpu" + std::to_string(s));
    CHECK(nvlinks == 6);
    CHECK(g.host_ports()[r] == 6);
  }
  // The doubled links: the chains 0 1 3 2 and 4 5 7 6, and 0-4, 2-6 between the sockets.
  for (const auto& [a, b] : std::vector<std::pair<int, int>>{
           {0, 1}, {1, 3}, {3, 2}, {4, 5}, {5, 7}, {7, 6}, {0, 4}, {2, 6}})
    CHECK(links_between(g, "gpu" + std::to_string(a), "gpu" + std::to_string(b)) == 2);
  CHECK(links_between(g, "gpu0", "gpu2") == 1);
  CHECK(links_between(g, "gpu0", "gpu5") == 0);
  CHECK(g.distance(0, 5) == 2);  // routed through a neighbour
}

TEST_CASE("gpu-cluster: nodes behind their NICs on one network switch") {
  const Graph g = gpu_cluster(4, 8, 2);
  CHECK(g.ranks() == 32);
  CHECK(g.router_count() == 5);
  CHECK(g.routers().back() == "network");
  CHECK(g.hosts() == std::vector<Rank>{8, 8, 8, 8, 0});
  CHECK(g.capacities() == std::vector<std::uint32_t>{2, 2, 2, 2});
  CHECK(g.router_of(9) == 1);
  CHECK(g.distance(0, 3) == 2);
  CHECK_THROWS_WITH_AS(gpu_cluster(1, 1, 1),
                       "gpu-cluster: 1 nodes of 1 gpus; expected 2 to 1048576 gpus in all",
                       InputError);
  CHECK_THROWS_AS(gpu_cluster(2, 8, 0), InputError);
  CHECK_THROWS_AS(gpu_cluster(1024, 2048, 1), InputError);
  CHECK_THROWS_WITH_AS(gpu_cluster(4096, 2, 1),
                       "gpu-cluster: --nodes 4096; at most 2047 (a router per node and the "
                       "network's)",
                       InputError);
  CHECK(gpu_cluster(2047, 4, 1).router_count() == 2048);
}
