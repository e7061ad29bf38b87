#pragma once
// rapidcheck generators for every machine model. Each draws small vectors and ranges and builds
// the machine from them (properties/machines.hpp), so that shrinking moves toward fewer machines
// and simpler shapes: a removed element is one machine or switch less, and a raw value shrunk to
// 0 attaches a node to the first switch (a star).

#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/topology.hpp"
#include "properties/machines.hpp"

namespace phasecheck::properties {

/// Any tree: switch j >= 1 hangs below switch raw % j; machine i below switch raw % switches.
/// Chains, empty switches, machines on the root and lopsided subtrees all arise.
inline rc::Gen<Topology> tree() {
  return rc::gen::map(
      rc::gen::pair(
          rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>()),
          rc::gen::nonEmpty(
              rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>()))),
      [](const std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>>& raw) {
        return tree_machine(raw.first, raw.second);
      });
}

/// Node-size vectors of the shapes that matter for SMP clusters: any sizes, all equal, organ
/// pipe (1, 2, .., m, .., 2, 1), one huge node among size-1 nodes, and many size-1 nodes.
inline rc::Gen<Topology> cluster() {
  const auto as_cluster = [](std::vector<Rank> sizes) { return cluster_machine(std::move(sizes)); };
  return rc::gen::oneOf(
      rc::gen::map(
          rc::gen::nonEmpty(rc::gen::container<std::vector<Rank>>(rc::gen::inRange<Rank>(1, 6))),
          as_cluster),
      rc::gen::map(rc::gen::pair(rc::gen::inRange<Rank>(1, 7), rc::gen::inRange<Rank>(1, 6)),
                   [=](std::pair<Rank, Rank> nm) {
                     return as_cluster(std::vector<Rank>(nm.first, nm.second));
                   }),
      rc::gen::map(rc::gen::inRange<Rank>(1, 5), organ_pipe_cluster),
      rc::gen::map(rc::gen::pair(rc::gen::inRange<Rank>(2, 13), rc::gen::inRange<Rank>(0, 8)),
                   [](std::pair<Rank, Rank> big_small) {
                     return big_among_small_cluster(big_small.first, big_small.second);
                   }),
      rc::gen::map(rc::gen::inRange<Rank>(1, 13),
                   [=](Rank n) { return as_cluster(std::vector<Rank>(n, 1)); }));
}

inline rc::Gen<Topology> fully_connected() {
  return rc::gen::mapcat(rc::gen::inRange<Rank>(1, 13), [](Rank p) {
    return rc::gen::map(rc::gen::inRange<Rank>(1, p + 2),
                        [p](Rank k) { return Topology(FullyConnected(p, k)); });
  });
}

inline rc::Gen<Topology> hypercube() {
  return rc::gen::map(rc::gen::inRange(0u, 5u), [](unsigned d) { return Topology(Hypercube(d)); });
}

inline rc::Gen<Topology> mesh() {
  return rc::gen::apply(
      [](std::uint32_t r, std::uint32_t c, bool wrap) { return Topology(Mesh(r, c, wrap)); },
      rc::gen::inRange<std::uint32_t>(1, 5), rc::gen::inRange<std::uint32_t>(1, 5),
      rc::gen::arbitrary<bool>());
}

inline rc::Gen<Topology> ring() {
  return rc::gen::map(rc::gen::inRange<Rank>(1, 13), [](Rank p) { return Topology(Ring(p)); });
}

/// A connected graph of routers: router j >= 1 links to router raw % j (a spanning tree), plus
/// extra links between distinct routers; 0 to 3 hosts per router, at least one on router 0.
/// Capacities (GPU machines): value i of `caps` makes the multiplicity of link i (i < L links),
/// or the host ports of router i - L, 1 + value % 3; beyond `caps` every capacity is 1, so cases
/// shrink toward unit capacity.
inline rc::Gen<Topology> graph() {
  return rc::gen::map(
      rc::gen::tuple(
          rc::gen::nonEmpty(
              rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>())),
          rc::gen::container<std::vector<std::pair<std::uint8_t, std::uint8_t>>>(
              rc::gen::arbitrary<std::pair<std::uint8_t, std::uint8_t>>()),
          rc::gen::container<std::vector<std::uint8_t>>(rc::gen::arbitrary<std::uint8_t>())),
      [](const std::tuple<std::vector<std::uint8_t>,
                          std::vector<std::pair<std::uint8_t, std::uint8_t>>,
                          std::vector<std::uint8_t>>& raw) {
        const auto& [tree_raw, extra, caps] = raw;
        return graph_machine(tree_raw, extra, caps);
      });
}

/// The models that route messages along links (tree, ring, hypercube, mesh, graph).
inline rc::Gen<Topology> routed() {
  return rc::gen::oneOf(tree(), ring(), hypercube(), mesh(), graph());
}

/// Any model; shrinks toward the simpler kinds listed first.
inline rc::Gen<Topology> topology() {
  return rc::gen::oneOf(fully_connected(), cluster(), tree(), ring(), hypercube(), mesh(), graph());
}

}  // namespace phasecheck::properties

namespace rc {
// Counterexamples print as the topology JSON a person can paste into a file.
template <>
struct Arbitrary<phasecheck::Topology> {
  static Gen<phasecheck::Topology> arbitrary() { return phasecheck::properties::topology(); }
};
}  // namespace rc

namespace phasecheck {
void showValue(const Topology& t, std::ostream& os);
}
