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
/// Cost: O(transfers x hops) with one 8-byte slot per directed link, reset by a phase stamp, so
/// memory is O(links + ranks) whatever the number of phases.

#include <cstdint>
#include <memory>

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

  /// Checks phase number `index` (0-based, consecutive). Transfers must be well-formed.
  void consume(std::size_t index, const Phase& phase);
  CheckResult finish() const;

  /// Transfer-hops routed so far (routed models) or transfers examined (port models).
  std::uint64_t work() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace phasecheck::verify
