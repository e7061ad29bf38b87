#pragma once
/// Faraj and Yuan, "Message Scheduling for All-to-all Personalized Communication on Ethernet
/// Switched Clusters" (IPDPS 2005), Section 4: all |M|(|M| - 1) messages of AAPC on any tree of
/// switches in exactly |M0| (|M| - |M0|) contention-free phases, the load of the bottleneck link.
///
/// The plan (Sections 4.1 and 4.2) is small: the root, its subtrees t_0..t_{k-1} (|M0| >= |M1|
/// >= ...) with their machines t_i,0, t_i,1, ..., and the extended ring's start phases. The
/// message assignment of Fig. 4 (Section 4.3) is computed per phase from it, so phases stream:
/// memory O(|M| + k), time O(messages + k(k-1) log k).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/claims.hpp"
#include "core/parameter_spec.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

struct FarajYuanPlan {
  /// The root switch (Section 4.1), or none when |M| <= 2 (each machine is then a subtree).
  std::optional<NodeId> root;
  /// t[i][x] is the rank of machine t_i,x: subtrees by size, largest first (ties: the one holding
  /// the smaller rank first); machines in rank order within a subtree.
  std::vector<std::vector<Rank>> t;
  Rank machines = 0;  ///< |M|

  std::uint64_t size(std::size_t i) const { return t[i].size(); }
  /// |M0| (|M| - |M0|): the number of phases, the bottleneck load (Lemma 2).
  std::uint64_t phases() const;
  /// The extended ring scheduling of Section 4.2: the first of the |Mi| |Mj| consecutive phases
  /// of t_i -> t_j.
  std::uint64_t start(std::size_t i, std::size_t j) const;
};

/// Section 4.1: the switches the root-finding walk can end at, one per bottleneck link and
/// orientation (|Mu| >= |Mv|), without repeats, in node order. Empty when |M| <= 2.
std::vector<NodeId> root_candidates(const Tree& tree);

/// The plan for `tree`. The root is `root_name` when given (it must be a switch on a bottleneck
/// link whose every subtree has at most |M|/2 machines, the two conditions of Section 4; else
/// InputError), otherwise the candidate with the fewest subtrees, then the first in node order.
/// On Fig. 1 that is s1, the paper's choice.
FarajYuanPlan faraj_yuan_plan(const Tree& tree, const std::optional<std::string>& root_name = {});

/// Fig. 4, Steps 1 to 6, one phase per table row (labelled "phase p").
void faraj_yuan(const FarajYuanPlan& plan, Collective collective, const PhaseSink& out);
/// The same phases as direct phases (every message is its sender's own): what faraj_yuan fills
/// its Phases from.
void faraj_yuan(const FarajYuanPlan& plan, Collective collective, const DirectSink& out,
                PhaseRange range = {});

struct FarajYuanOptions {
  Collective collective = Collective::alltoall;
  std::optional<std::string> root;
  /// collective and root (default: the plan's choice).
  static std::span<const ParameterSpec> parameters();
  /// Needs a tree topology.
  static FarajYuanOptions from(const ScheduleHeader& header);
};

Claims faraj_yuan_claims(const ScheduleHeader& header);

}  // namespace phasecheck::schedules
