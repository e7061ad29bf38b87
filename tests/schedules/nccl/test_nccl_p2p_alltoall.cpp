#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "core/networks.hpp"
#include "schedules/nccl/nccl_test_support.hpp"
#include "schedules/nccl/p2p_alltoall.hpp"
#include "schedules/nccl/p2p_schedule.hpp"

using namespace phasecheck;
using namespace phasecheck::schedules::nccl;
using namespace phasecheck::testing::nccl;

namespace {

std::vector<Rank> peers_of(const P2pSchedule& s, Rank rank) {
  std::vector<Rank> peers;
  for (Rank t = 0; t < s.ranks(); ++t) peers.push_back(s.send_peer(t, rank));
  return peers;
}

Parameters set(std::initializer_list<std::pair<const char*, const char*>> values) {
  Parameters p;
  for (const auto& [k, v] : values) p.set(k, v);
  return p;
}

}  // namespace

TEST_CASE("quadratic_deltas: NCCL's example sequence for 16, and 0..n-1 once for any n") {
  // The comment above the walk in src/init.cc.
  CHECK(quadratic_deltas(16) ==
        std::vector<Rank>{0, 1, 3, 6, 10, 15, 5, 12, 4, 13, 7, 2, 14, 11, 9, 8});
  // Over 8: 0 1 3 6 2 7 5 4, keeping those below 5.
  CHECK(quadratic_deltas(5) == std::vector<Rank>{0, 1, 3, 2, 4});
  for (Rank n : {1u, 2u, 3u, 7u, 12u, 100u}) {
    std::vector<Rank> d = quadratic_deltas(n);
    std::sort(d.begin(), d.end());
    std::vector<Rank> all(n);
    std::iota(all.begin(), all.end(), Rank{0});
    CHECK(d == all);
  }
}

TEST_CASE("nccl p2p schedule, 2.28.7 groups: rank 5 of two nodes of 8, group size 4") {
  const std::vector<Rank> nodes{8, 8};
  const P2pSchedule s(P2pWalk::groups, nodes, 4);
  CHECK(s.unit() == 4);
  // Group deltas over 4 groups: 0 1 3 2; inside each, rank 5 (group 1, local 1) walks local 1 +
  // delta for delta 0..3.
  CHECK(peers_of(s, 5) == std::vector<Rank>{5, 6, 7, 4, 9, 10, 11, 8, 1, 2, 3, 0, 13, 14, 15, 12});
  for (Rank t = 0; t < 16; ++t) CHECK(s.recv_peer(t, s.send_peer(t, 5)) == 5);
}

TEST_CASE("nccl p2p schedule, 2.22.3 nodes: quadratic over nodes and inside a node") {
  const std::vector<Rank> nodes{8, 8};
  const P2pSchedule s(P2pWalk::nodes, nodes, 8);
  // Local deltas over 8: 0 1 3 6 2 7 5 4; node deltas over 2: 0 1.
  CHECK(peers_of(s, 5) == std::vector<Rank>{5, 6, 0, 3, 7, 4, 2, 1, 13, 14, 8, 11, 15, 12, 10, 9});
  // Nodes of different sizes: NCCL's "flat" schedule, one node of p ranks.
  const std::vector<Rank> uneven{4, 2};
  CHECK(P2pSchedule(P2pWalk::nodes, uneven, 8).unit() == 6);
}

TEST_CASE("nccl p2p schedule: the group size falls to the gcd with every node's ranks") {
  CHECK(P2pSchedule(P2pWalk::groups, std::vector<Rank>{6, 6}, 8).unit() == 2);
  CHECK(P2pSchedule(P2pWalk::groups, std::vector<Rank>{8, 8, 4}, 8).unit() == 4);
  // One node: the group is the node (maxLocalRanks), whatever the parameter.
  const P2pSchedule one(P2pWalk::groups, std::vector<Rank>{5}, 8);
  CHECK(one.unit() == 5);
  CHECK(peers_of(one, 3) == std::vector<Rank>{3, 4, 0, 1, 2});
}

TEST_CASE("nccl-p2p-alltoall verifies with its claims, p rounds, on awkward sizes") {
  std::size_t runs = 0;
  for (Rank p : {1u, 2u, 3u, 8u, 12u, 17u, 24u}) {
    for (const char* gpus : {"1", "3", "8"}) {
      if (std::stoul(gpus) > p) continue;
      for (const char* version : {"2.28.7", "2.22.3"}) {
        const auto params = set({{"gpus_per_node", gpus}, {"version", version}});
        const auto r = verify_row("nccl-p2p-alltoall", FullyConnected(p, 1), params);
        INFO("p = " << p << " gpus_per_node = " << gpus << " version " << version);
        CHECK_MESSAGE(r.verdict() == verify::Verdict::pass, failed_checks(r));
        CHECK(r.passed(CheckId::claims));
        CHECK(r.counts.phases == p);
        ++runs;
      }
    }
  }
  CHECK(runs == 32);
}

TEST_CASE("nccl-p2p-alltoall's buffer program places every block") {
  const auto r = verify_program("nccl-p2p-alltoall", FullyConnected(12, 1),
                                set({{"gpus_per_node", "4"}, {"group_size", "2"}}));
  CHECK_MESSAGE(r.verdict() == verify::Verdict::pass, failed_checks(r));
  CHECK(r.passed(CheckId::placement));
}

TEST_CASE("nccl-p2p-alltoall takes the nodes from a cluster") {
  const auto r = verify_row("nccl-p2p-alltoall", Cluster({4, 4, 4}));
  CHECK(r.passed(CheckId::delivery));
  CHECK(r.passed(CheckId::claims));
  CHECK_FALSE(r.passed(CheckId::contention));  // four GPUs of a node leave it at once
}

TEST_CASE("nccl-p2p-alltoall refuses allgather and gpus_per_node beyond p") {
  CHECK_THROWS_AS(
      verify_row("nccl-p2p-alltoall", FullyConnected(4, 1), set({{"collective", "allgather"}})),
      InputError);
  CHECK_THROWS_WITH_AS(
      verify_row("nccl-p2p-alltoall", FullyConnected(4, 1), set({{"gpus_per_node", "5"}})),
      doctest::Contains("gpus_per_node"), InputError);
}

TEST_CASE("nccl-p2p-alltoall mutant: one peer off by one at one round fails delivery") {
  const std::vector<Rank> nodes{8, 8};
  const P2pSchedule s(P2pWalk::groups, nodes, 8);
  ScheduleHeader h = schedules::make_header(row("nccl-p2p-alltoall"), FullyConnected(16, 1),
                                            set({{"gpus_per_node", "8"}}));
  Schedule mutant{h, {}};
  emit_p2p_alltoall(
      16,
      [&s](Rank t, Rank r) {
        const Rank peer = s.send_peer(t, r);
        return t == 9 && r == 3 ? (peer + 1) % 16 : peer;
      },
      collect_into(mutant.phases));
  REQUIRE(mutant.phases.size() == 16);
  const auto r = verify::verify(mutant, h.topology, p2p_alltoall_claims(s));
  CHECK(r.verdict() == verify::Verdict::fail);
  CHECK_FALSE(r.passed(CheckId::delivery));
  CHECK_FALSE(r.passed(CheckId::invariants));
}

TEST_CASE("nccl-p2p-alltoall's nodes by default: gpu-cluster's per router, xgmi one node") {
  const auto& a = row("nccl-p2p-alltoall");
  const auto same_as = [&a](const Topology& model, const char* gpus) {
    const Schedule by_default = schedules::generate(a, model);
    const Schedule explicit_nodes = schedules::generate(a, model, set({{"gpus_per_node", gpus}}));
    REQUIRE(by_default.phases.size() == ranks(model));
    return by_default.phases == explicit_nodes.phases;
  };
  CHECK(same_as(gpu_cluster(3, 4, 1), "4"));
  CHECK_FALSE(same_as(gpu_cluster(3, 4, 1), "12"));
  CHECK(same_as(xgmi(8), "8"));
  CHECK_FALSE(same_as(xgmi(8), "1"));
}
