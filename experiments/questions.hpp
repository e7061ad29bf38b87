#pragma once
/// The what-if questions answered from generated schedules, every figure from a schedule that
/// went through all the checks: hierarchical-factor's steps on SMP clusters (Sanders & Traeff),
/// the best radix of bruck-index (Bruck et al., Section 3.5), and whether randomized orders lower
/// the per-phase link load (the Slim Fly paper). Each returns its table with its verdict: pass
/// when every row verified.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/table.hpp"
#include "core/topology.hpp"

namespace phasecheck::experiments {

/// The largest machine of each question: every row is generated and verified, at least p^2
/// transfers each, so the work grows faster than the machine (measured on this machine).
/// hierarchical-factor, per cluster: plain and compact (one node of 2,048 among 2,048 of size 1
/// takes 20 s).
inline constexpr Rank kMaxHierarchicalRanks = 4096;
/// bruck-index: every radix 2..n, work that grows with n^3 (512 ranks take 15 s).
inline constexpr Rank kMaxBruckRadixRanks = 512;
/// congestion: each algorithm, and each seed of the randomized ones (1,024 ranks with the default
/// 20 seeds take 12 s).
inline constexpr Rank kMaxCongestionRanks = 2048;
/// congestion: the messages of all runs together (runs x p (p - 1)); at the 1.8 M a second
/// measured above, about two minutes.
inline constexpr std::uint64_t kMaxCongestionMessages = 200'000'000;

struct NamedCluster {
  std::string name;  ///< as the user wrote it: "8,8,4,1"
  std::vector<Rank> sizes;
};
/// Throws InputError, naming the first cluster of more than `max_ranks` ranks (its name cut at 40
/// characters), before any cluster runs: "`command` (cluster 4000,97) works on at most ...",
/// suggesting `instead`.
void check_cluster_ranks(const std::vector<NamedCluster>& clusters, Rank max_ranks,
                         std::string_view command, std::string_view instead);
/// Plain and compact hierarchical-factor on each cluster: steps, the bound, the gaps, and the
/// inefficient steps of Theorem 1. Throws InputError, before the first cluster runs, for a
/// cluster of more than kMaxHierarchicalRanks ranks.
TableReport hierarchical_factor_steps(const std::vector<NamedCluster>& clusters,
                                      std::ostream* progress);

struct BruckRadixQuestion {
  Rank ranks = 0, ports = 1;  ///< fully-connected(ranks, ports); ranks in [2, kMaxBruckRadixRanks]
  double ts = 0, tw = 0;      ///< seconds per message, seconds per byte
  double bytes = 1;           ///< the block
  bool bytes_default = true;  ///< the block was not given: the output says so
};
/// Every radix 2..n: C1, C2, the paper's bounds, T = C1 ts + C2 bytes tw, the best radix (none
/// when ts = tw = 0) and where r = 2 and r = n break even.
TableReport bruck_radix(const BruckRadixQuestion& question, std::ostream* progress);

struct CongestionQuestion {
  Topology model = FullyConnected(1, 1);
  std::string source;                   ///< the topology's name in the report
  std::vector<std::string> algorithms;  ///< registered names
  std::vector<std::uint64_t> seeds;     ///< for the seeded (randomized) ones
  std::string seeds_text;               ///< as given: "1..20"
  std::optional<std::uint64_t> bytes;   ///< the paper's selection for this message size
};
/// Per algorithm (per seed of the randomized ones): the sum over phases of the busiest link's
/// load, its spread over seeds, and whether every run delivered. Throws InputError for a machine
/// of more than kMaxCongestionRanks ranks, or runs of more than kMaxCongestionMessages messages in
/// all, before the first run.
TableReport randomized_congestion(const CongestionQuestion& question, std::ostream* progress);

}  // namespace phasecheck::experiments
