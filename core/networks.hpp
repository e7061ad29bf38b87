#pragma once
/// Generators for low-diameter networks and GPU machines, as Graph topologies (docs/models.md).

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

}  // namespace phasecheck
