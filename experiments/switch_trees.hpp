#pragma once
/// The machines `whatif optimality` enumerates: every cluster of up to n ranks, and every tree of
/// switches with n machines up to isomorphism.

#include <cstdint>
#include <string>
#include <vector>

#include "core/topology.hpp"

namespace phasecheck::experiments {

/// Node-size vectors (largest first) of every cluster of 2..max_ranks ranks, by rank count.
std::vector<std::vector<Rank>> cluster_shapes(Rank max_ranks);

/// A tree of switches with machines on them: every switch-to-switch link and each switch's
/// machine count. Machines are leaves, as in the tree model.
struct SwitchTree {
  std::vector<Rank> machines;                     ///< per switch
  std::vector<std::vector<std::uint32_t>> links;  ///< switch adjacency

  Rank machine_count() const;
  /// The shape seen from switch `s`: "[m,S1,S2]" with m its machines (left out when 0) and S its
  /// neighbours' shapes, sorted. Equal for isomorphic rooted trees.
  std::string rooted(std::uint32_t s, std::uint32_t parent) const;
  /// The least rooted shape over all switches: equal for isomorphic trees.
  std::string canonical() const;
  /// No switch of degree 2 or less (one alone excepted): such a switch only lengthens a cable
  /// and leaves every path's set of links, and so contention, as it is.
  bool reduced() const;
  /// The tree model: machines m0.., switches s0...
  Topology topology() const;
};

/// Every tree of switches with n machines, up to isomorphism and without degree-2 switches, in
/// the order of their canonical shapes.
std::vector<SwitchTree> tree_shapes(Rank n);

}  // namespace phasecheck::experiments
