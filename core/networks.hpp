#pragma once
/// Builders of machines: low-diameter networks and GPU machines as Graph topologies, and one
/// builder per model kind (docs/models.md, "Building machines"). Every builder checks its
/// arguments against the model's limits before it allocates anything and throws InputError naming
/// the command-line option (`--fanout`, `--k`, ...) that is out of range.

#include <cstdint>
#include <span>

#include "core/topology.hpp"

namespace phasecheck {

/// Slim Fly by the MMS construction (Besta & Hoefler, SC14, Section III): for a prime q = 4w + d,
/// d in {-1, 1}, 2q^2 routers (0, x, y) and (1, m, c) over F_q; (0, x, y) ~ (0, x, y') when
/// y - y' is in X, (1, m, c) ~ (1, m, c') when c - c' is in X', and (0, x, y) ~ (1, m, c) when
/// y = m x + c. X and X' are the generator sets built from a primitive element of F_q. Router
/// degree (3q - d)/2, diameter 2. `concentration` hosts per router; 0 picks ceil(degree / 2), the
/// paper's balanced choice. Throws InputError unless q is a prime with q mod 4 in {1, 3}, q >= 5.
Graph slim_fly(unsigned q, unsigned concentration = 0);

/// The canonical Dragonfly (Kim et al., ISCA 2008): g = a h + 1 groups of a routers, all-to-all
/// inside a group; each router has h global links and p hosts; group i's global link k (router
/// k / h) goes to group k if k < i, else k + 1, so every two groups share exactly one link.
Graph dragonfly(unsigned a, unsigned h, unsigned p);

/// The most GPUs a GPU builder makes in one node (xgmi, nvswitch, gpu-cluster's nodes).
inline constexpr unsigned kMaxGpusPerNode = 64;

/// GPUs fully connected by one link per pair (AMD xGMI, MI300X style): router "gpuI" per GPU with
/// the GPU as its one host, a link between every two routers, and gpus - 1 host ports, so that a
/// GPU drives all its links at once. Throws InputError unless 2 <= gpus <= kMaxGpusPerNode.
Graph xgmi(unsigned gpus);

/// GPUs behind one non-blocking switch (NVSwitch): router "nvswitch" with every GPU as a host on
/// one port; a GPU sends one and receives one transfer per phase. 2 <= gpus <= kMaxGpusPerNode.
Graph nvswitch(unsigned gpus);

/// The 8 V100 GPUs of a DGX-1 in the hybrid cube-mesh: each GPU has 6 NVLinks, doubled on half of
/// its neighbours (the link counts of msccl-tools' topologies/nvidia.py, dgx1()). Router "gpuI" per
/// GPU, 6 host ports. GPU pairs without an NVLink (0-5, 0-6, 0-7, ...) are routed through a
/// neighbour by the graph's minimal routing.
Graph dgx1();

/// A multi-node GPU machine: `nodes` nodes of `gpus` GPUs, each node a non-blocking switch
/// ("nodeI", its GPUs on one port each) joined to one network switch ("network") by `nics` parallel
/// links (the node's NICs). Throws InputError unless nodes >= 1, 1 <= gpus <= kMaxGpusPerNode,
/// nics in [1, kMaxLinkCapacity], nodes x gpus in [2, kMaxRanks] and nodes < kMaxRouters.
Graph gpu_cluster(unsigned nodes, unsigned gpus, unsigned nics);

/// A tree of switches, level by level: the root switch has fanout[0] nodes below it, each of
/// those fanout[1], ..., and the last level's nodes are the machines. {8} is one switch with 8
/// machines; {8, 4} a root with 8 switches of 4 machines each. Switches are "sL.I" (level L, the
/// root "s0.0"), machines "nI", numbered left to right (rank i is "ni"); links are [child,
/// parent], listed from the root down. Throws InputError unless there are 1 to kMaxTreeDepth
/// levels, every fanout is at least 1, and the tree has at most kMaxRanks machines and
/// kMaxSwitches switches.
Tree tree_network(std::span<const std::uint64_t> fanout);

/// The k-ary fat tree (Al-Fares, Loukissas & Vahdat, SIGCOMM 2008, Section 3.2): k pods, each of
/// k/2 edge switches ("podP.edgeI", k/2 hosts each) and k/2 aggregation switches ("podP.aggJ"),
/// every edge switch linked to every aggregation switch of its pod; (k/2)^2 core switches
/// ("coreJ.I"), core J.I linked to aggregation switch J of every pod. k^3/4 hosts, 5k^2/4
/// routers. A graph, so routing is the graph's minimal routing, not the paper's two-level tables:
/// every route takes the smallest-numbered switch one hop closer, which is aggregation switch 0 of
/// the pod and core switch 0.0, so all traffic runs over one spanning tree of the fat tree
/// (docs/models.md). Throws InputError unless k is even, k >= 2, and the hosts and routers are
/// within kMaxRanks and kMaxRouters (k <= 32).
Graph fat_tree_network(std::uint64_t k);

/// SMP nodes of the given sizes (Cluster). Throws InputError unless there is at least one node,
/// every size is at least 1, and they add up to at most kMaxRanks.
Cluster cluster_network(std::span<const std::uint64_t> sizes);

/// `ranks` ranks with `ports` ports each (FullyConnected). Throws InputError unless both are in
/// [1, kMaxRanks] (the limits of the topology file).
FullyConnected fully_connected_network(std::uint64_t ranks, std::uint64_t ports);

/// The hypercube of 2^dimension ranks. Throws InputError unless 2^dimension <= kMaxRanks.
Hypercube hypercube_network(std::uint64_t dimension);

/// A rows x cols mesh, a torus with wraparound. Throws InputError unless rows, cols >= 1 and
/// rows * cols <= kMaxRanks.
Mesh mesh_network(std::uint64_t rows, std::uint64_t cols, bool wraparound);

/// A bidirectional ring of `ranks` ranks. Throws InputError unless 1 <= ranks <= kMaxRanks.
Ring ring_network(std::uint64_t ranks);

}  // namespace phasecheck
