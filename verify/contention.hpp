#pragma once
/// The contention checker, one rule per machine model (docs/models.md):
///  - routed models (tree, hypercube, mesh, ring, graph): every transfer is routed along its path
///    and a phase is contention-free iff no directed link carries more transfers than its
///    capacity (1, except a graph's parallel links and multi-port hosts);
///  - cluster: every SMP node takes part in at most one operation per phase: an exchange u <-> v
///    with one other node (one transfer each way at most) or one intra-node send;
///  - fully-connected k-port: every rank sends at most k and receives at most k transfers.
/// Local copies (src == dst) are free everywhere. The counterexample is the first conflict: its
/// phase, the two (or k+1, or capacity+1) transfers, and the shared link, node or port.
///
/// Cost: O(transfers x hops) with one 4-byte stamp per directed link (the last phase that used
/// it; a tree's two beside each node's parent and depth, 16 bytes a node; 12 bytes per node or
/// rank for the cluster and k-port rules), so memory is O(links + ranks)
/// whatever the number of phases. The transfer that took a conflicting link first is found again,
/// by routing the phase's earlier transfers, only for the conflict that is drawn.

#include <cstdint>
#include <memory>
#include <optional>

#include "core/schedule.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

class ContentionChecker {
 public:
  /// `model` must outlive the checker.
  explicit ContentionChecker(const Topology& model);
  ~ContentionChecker();
  ContentionChecker(ContentionChecker&&) noexcept;
  ContentionChecker& operator=(ContentionChecker&&) noexcept;

  /// Checks phase number `index` (0-based, increasing; a checker may see only some phases when
  /// the work is spread, see Tally). Transfers must be well-formed.
  void consume(std::size_t index, const Phase& phase);
  /// The same for a direct phase: judged from its pairs, the Phase built only to draw a conflict.
  void consume(std::size_t index, const DirectPhase& phase);
  CheckResult finish() const;

  /// What the checker found, in a form that adds up: checkers given disjoint sets of phases
  /// (threads, MPI processes) merge their tallies and judge once, as one checker would have.
  struct Tally {
    std::uint64_t phases = 0, bad_phases = 0, conflicts = 0, work = 0;
    std::optional<Counterexample> first;  // the conflict of the earliest bad phase
    /// Adds `other`'s phases; the earlier first conflict wins.
    void merge(const Tally& other);
    friend bool operator==(const Tally&, const Tally&) = default;
  };
  Tally tally() const;
  /// The verdict on `model` from a (merged) tally.
  static CheckResult judge(const Topology& model, const Tally& tally);

  /// Transfer-hops routed so far (routed models) or transfers examined (port models).
  std::uint64_t work() const;

 private:
  /// consume(): `phase_of()` gives the Phase the transfers belong to, for the counterexample.
  template <class T, class PhaseOf>
  void judge_phase(std::size_t index, std::span<const T> transfers, const PhaseOf& phase_of);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace phasecheck::verify
