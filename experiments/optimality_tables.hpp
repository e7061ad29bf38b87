#pragma once
/// `whatif optimality`: Z3's proven optimum next to an algorithm's phase count on every machine
/// of a family (docs/optimality.md). Every optimum has a witness the verifier checked; an
/// instance the solver cannot decide within `timeout` seconds is unknown, and so is the table.

#include <cstdint>
#include <iosfwd>
#include <string>

#include "core/table.hpp"
#include "core/topology.hpp"
#include "experiments/questions.hpp"

namespace phasecheck::experiments {

/// "9" when lo == hi, "7..9" otherwise: what is known of a value.
std::string known_range(std::uint64_t lo, std::uint64_t hi);

/// hierarchical-factor (plain and compact) and cluster-coloring on every cluster of 2..max_ranks
/// ranks (at most 12).
TableReport cluster_optimality(Rank max_ranks, double timeout, std::ostream* progress);

/// `whatif cluster`: the largest cluster it generates and verifies both algorithms on; the
/// largest p of "every cluster of 2..p ranks" (2,712 clusters at 20); the clusters it asks Z3 for
/// the optimum of (a second or less each).
inline constexpr Rank kMaxClusterComparisonRanks = 1024;
inline constexpr Rank kMaxEveryClusterRanks = 20;
inline constexpr Rank kSolvedClusterRanks = 10;

/// hierarchical-factor (the better variant) and cluster-coloring on each cluster, verified, with
/// the counting bound and, for clusters of at most `solve_up_to` ranks, Z3's optimum.
TableReport cluster_comparison(const std::vector<NamedCluster>& clusters, Rank solve_up_to,
                               double timeout, std::ostream* progress);

/// Every cluster of 2..max_ranks ranks (at most kMaxEveryClusterRanks; InputError otherwise), each
/// node-size vector once, largest node first.
std::vector<NamedCluster> every_cluster(Rank max_ranks);

/// `count` clusters of 2..max_ranks ranks drawn from `seed` (the same seed, the same clusters):
/// in turn, nodes of 1 to 4 processors, of any size, and of up to p / 8.
std::vector<NamedCluster> random_clusters(std::size_t count, Rank max_ranks, std::uint64_t seed);

/// faraj-yuan on every tree of 2..max_machines machines (at most 10), up to isomorphism.
TableReport tree_optimality(Rank max_machines, double timeout, std::ostream* progress);

/// The (C1, C2) frontier of forwarding schedules on every k-port machine of 2..max_ranks ranks
/// (at most 8), for alltoall and allgather, against Bruck et al.'s family. `report`'s table has
/// the collective as its first column (JSON, CSV), its notes explain the columns; the text shows
/// one table per collective.
struct KportOptimality {
  TableReport report;
  Rank max_ranks = 0;
  std::vector<std::pair<Collective, Table>> per_collective;
};
KportOptimality kport_optimality(Rank max_ranks, double timeout, std::ostream* progress);

}  // namespace phasecheck::experiments
