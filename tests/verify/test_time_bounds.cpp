// Lower bounds in seconds from a graph's bandwidths (verify/time_bounds.hpp), hand-computed on
// small graphs: a two-node machine whose nodes meet at one network link (a bridge), an xGMI mesh,
// and links of unknown bandwidth.
#include <doctest/doctest.h>

#include <algorithm>

#include "tests/verify/two_nodes.hpp"
#include "verify/time_bounds.hpp"

using namespace phasecheck;
using namespace phasecheck::verify;

namespace {

/// p GPUs, every pair joined by one xGMI link of 48e9 bytes/s; host links `host` (0: unknown).
Graph xgmi(Rank p, double host) {
  std::vector<std::string> gpus;
  for (Rank i = 0; i < p; ++i) gpus.push_back("gpu" + std::to_string(i));
  std::vector<Graph::NamedLink> links;
  for (Rank i = 0; i < p; ++i)
    for (Rank j = i + 1; j < p; ++j) links.push_back({gpus[i], gpus[j]});
  LinkFacts facts{std::vector<double>(links.size(), 48e9),
                  {},
                  host > 0 ? std::vector<double>(p, host) : std::vector<double>{}};
  return Graph(gpus, std::move(links), std::vector<Rank>(p, 1), {},
               std::vector<std::uint32_t>(p, p - 1), std::move(facts));
}

TimeBound bound(const Graph& g, Collective c, double m, const Traffic* traffic = nullptr) {
  return time_lower_bound(g, directed_bandwidths(g), c, m, traffic);
}

}  // namespace

TEST_CASE("time bound: the network link between two nodes is a bridge, and it sets the bound") {
  const Graph g = testing::two_nodes(12.5e9);
  const double m = 1e6;
  // Alltoall: the bridge splits the hosts 2 | 2, so 4 blocks cross it each way at 12.5e9. The
  // other cuts are weaker: a host's link 3 m / 200e9, gpu0's router links 3 m / 125e9.
  const TimeBound a = bound(g, Collective::alltoall, m);
  CHECK(a.seconds == doctest::Approx(4 * m / 12.5e9).scale(0));
  CHECK(a.argument.find("link nic0 - nic1 (hosts 2 | 2): 4 blocks of 1e+06 bytes") == 0);
  // 4 host links, 4 routers with hosts, 1 bridge, and the two sides of each NIC (an articulation
  // router: removing it leaves its node's GPUs and the other node apart); each both ways.
  CHECK(a.cuts == 26);
  CHECK(a.unusable == 0);
  CHECK(a.peak_throughput() == doctest::Approx(4 * 3 * m / a.seconds).scale(0));
  // Allgather: each side's 2 blocks must reach the other side at least once.
  CHECK(bound(g, Collective::allgather, m).seconds == doctest::Approx(2 * m / 12.5e9).scale(0));
  // Linear in m.
  CHECK(bound(g, Collective::alltoall, 1).seconds == doctest::Approx(a.seconds / m).scale(0));
}

TEST_CASE("time bound: a link of unknown bandwidth makes its cuts unusable, never assumed") {
  const Graph g = testing::two_nodes(0);
  CHECK(has_bandwidths(g));
  const TimeBound a = bound(g, Collective::alltoall, 1);
  // Without the bridge: the PCIe links of gpu0 and gpu1 into nic0 (2 x 25e9) carry the 4 blocks
  // that leave their node (stronger than gpu0's router links: 3 blocks over 100e9 + 25e9).
  CHECK(a.seconds == doctest::Approx(4 / 50e9).scale(0));
  CHECK(a.argument.find("the links from gpu0's side to nic0 (hosts 2 | 2)") == 0);
  CHECK(a.cuts == 26);
  CHECK(a.unusable == 6);  // the bridge, and the sides beyond it of nic0 and nic1; both ways
}

TEST_CASE("time bound: an xGMI mesh, by the host links or by the routers' links") {
  // Host links of 7 x 48e9: 7 blocks over 336e9; a GPU's 7 xGMI links carry the same 7 blocks
  // over 7 x 48e9. Either way m / 48e9.
  const TimeBound with_hosts = bound(xgmi(8, 7 * 48e9), Collective::alltoall, 48e6);
  CHECK(with_hosts.seconds == doctest::Approx(1e-3).scale(0));
  CHECK(with_hosts.argument.find("host 0's link into gpu0 (hosts 1 | 7)") == 0);
  CHECK(with_hosts.peak_throughput() == doctest::Approx(56 * 48e9).scale(0));
  // Host links unknown: the routers' cuts alone give the same bound; the 8 host cuts are unusable.
  const TimeBound routers = bound(xgmi(8, 0), Collective::alltoall, 48e6);
  CHECK(routers.seconds == doctest::Approx(1e-3).scale(0));
  CHECK(routers.argument.find("gpu0's router links (hosts 1 | 7)") == 0);
  CHECK(routers.unusable == 16);
  CHECK(routers.cuts == 32);
  // A mesh has no bridge; a graph of 2 GPUs is one (its router cuts say the same).
  CHECK(bound(xgmi(2, 0), Collective::alltoall, 1).seconds == doctest::Approx(1 / 48e9).scale(0));
}

TEST_CASE("time bound: no bandwidths, one rank: no bound") {
  const Graph plain({"a", "b"}, {{"a", "b"}}, {2, 2});
  CHECK_FALSE(has_bandwidths(plain));
  const TimeBound none = bound(plain, Collective::alltoall, 1);
  CHECK(none.seconds == 0);
  CHECK(none.peak_throughput() == 0);
  CHECK(none.cuts > 0);
  CHECK(none.unusable == none.cuts);
  // --bandwidth B: every link, host links too. Host links: 3 blocks each way at 1e9; the link
  // a - b (a bridge, and a's router links): 4 blocks at 1e9.
  const std::vector<double> every = directed_bandwidths(plain, 1e9);
  CHECK(std::count(every.begin(), every.end(), 1e9) == std::ptrdiff_t(every.size()));
  CHECK(time_lower_bound(plain, every, Collective::alltoall, 1).seconds ==
        doctest::Approx(4 / 1e9).scale(0));
  const Graph one({"a"}, {}, {1}, {}, {}, LinkFacts{{}, {}, {1e9}});
  CHECK(bound(one, Collective::alltoall, 1).seconds == 0);
}

TEST_CASE("time bound: bridges by side, a router without hosts splits nothing, an alltoallv") {
  // a - b - c - d, hosts 1, 1, 1, 0 (d is a switch with nothing below it); links 10, 20, 5.
  const Graph chain({"a", "b", "c", "d"}, {{"a", "b"}, {"b", "c"}, {"c", "d"}}, {1, 1, 1, 0}, {},
                    {}, LinkFacts{{10, 20, 5}, {}, {}});
  // a - b: 1 | 2, 2 blocks each way at 10; b - c: 2 | 1, 2 at 20; c - d splits no hosts. Router
  // a's links are the bridge a - b again; b's (10 + 20) carry 2; c's (20 + 5) carry 2.
  const TimeBound a = bound(chain, Collective::alltoall, 1);
  CHECK(a.seconds == doctest::Approx(0.2).scale(0));
  Traffic t = zero_traffic(3);
  t.counts[0 * 3 + 2] = 100;  // 100 bytes from host 0 to host 2 and nothing else
  const TimeBound v =
      time_lower_bound(chain, directed_bandwidths(chain), Collective::alltoall, 0, &t);
  CHECK(v.seconds == doctest::Approx(100.0 / 10).scale(0));  // across a - b
  CHECK(v.bytes == 100);
  CHECK(v.argument.find("100 bytes must cross it") != std::string::npos);
  // From host 1 to host 2 only: b's links carry it at 30, c's at 25, the bridge b - c at 20.
  Traffic u = zero_traffic(3);
  u.counts[1 * 3 + 2] = 100;
  const TimeBound w =
      time_lower_bound(chain, directed_bandwidths(chain), Collective::alltoall, 0, &u);
  CHECK(w.seconds == doctest::Approx(100.0 / 20).scale(0));
  CHECK(w.argument.find("link b - c (hosts 2 | 1): 100 bytes must cross it from the side of b") ==
        0);
}

TEST_CASE(
    "time bound: an alltoallv's cut around an articulation router counts the matrix, not the "
    "routes") {
  // Routers x - z - w - y in a line, x and y also joined through r, and q behind r. Hosts: x 0,
  // z 1, y 2, q 3. The links through r are slow (1e6), the others fast (1e9). The only message,
  // 0 -> 2 of 4000 bytes, is routed x > r > y (2 hops, not 3), yet it need not leave the piece
  // {x, z, w, y} of the graph without r: the relay 0 -> 1 -> 2 never touches r. So the cut
  // around r bounds nothing here, and the bound is x's router links: 4000 bytes over 1e9 + 1e6.
  const Graph g({"x", "z", "w", "y", "r", "q"},
                {{"x", "z"}, {"z", "w"}, {"w", "y"}, {"x", "r"}, {"y", "r"}, {"r", "q"}},
                {1, 1, 0, 1, 0, 1}, {}, {}, LinkFacts{{1e9, 1e9, 1e9, 1e6, 1e6, 1e9}, {}, {}});
  Traffic t = zero_traffic(4, 1);
  t.counts[0 * 4 + 2] = 4000;
  const TimeBound b = bound(g, Collective::alltoall, 0, &t);
  CHECK(b.seconds == doctest::Approx(4000 / (1e9 + 1e6)).scale(0));
  CHECK(b.argument.find("x's router links") == 0);
  // The routes' bytes over x -> r would have claimed 4000 / 2e6 = 2 ms: more than the relay takes.
  CHECK(b.seconds < 4000 / 2e6);
}
