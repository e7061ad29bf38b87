#pragma once
/// The fuzzing machines, built from raw values: the constructions behind the rapidcheck generators
/// of generators.hpp (which draw the raw values and shrink them) and behind the in-process
/// function fuzz of function_fuzz.hpp (which draws and shrinks them itself: it runs inside the
/// Python module, where rapidcheck cannot be linked). Every construction takes any raw values,
/// and smaller values and shorter vectors make smaller, simpler machines: a removed element is one
/// machine, switch or router less, and a value of 0 attaches a node to the first switch (a star).

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/topology.hpp"

namespace phasecheck::properties {

/// Any tree: switch j >= 1 hangs below switch switch_parent[j-1] % j; machine i below switch
/// machine_switch[i] % switches (at least one machine: an empty list gives one on the root).
Topology tree_machine(std::span<const std::uint8_t> switch_parent,
                      std::span<const std::uint8_t> machine_switch);

/// SMP nodes of the given sizes (at least one node of at least one rank).
Topology cluster_machine(std::vector<Rank> sizes);
/// The organ pipe 1, 2, .., m, .., 2, 1.
Topology organ_pipe_cluster(Rank m);
/// One node of `big` ranks among `small` nodes of one rank.
Topology big_among_small_cluster(Rank big, Rank small);

/// A connected graph of routers: router j >= 1 links to router tree_raw[j] % j (a spanning tree),
/// plus `extra` links between distinct routers; 0 to 3 hosts per router, at least one on router
/// 0 (at most 12 routers). Capacities (GPU machines): value i of `caps` makes the multiplicity of
/// link i (i < L links), or the host ports of router i - L, 1 + value % 3; beyond `caps` every
/// capacity is 1.
Topology graph_machine(std::span<const std::uint8_t> tree_raw,
                       std::span<const std::pair<std::uint8_t, std::uint8_t>> extra,
                       std::span<const std::uint8_t> caps);

}  // namespace phasecheck::properties
