#pragma once
/// The checker for pair-wise synchronization (Faraj & Yuan, Section 5): given a phase table on a
/// routed model and the synchronization messages kept for it, proves that every pair of messages
/// in different phases that share a directed link is ordered, either by a rank's own program
/// order (it finishes one phase before it starts the next) or by a chain of synchronizations
/// and program order. Independent of programs/synchronization.cpp: it enumerates the contending
/// pairs and the program order itself and decides reachability with one bitset per message.

#include <cstdint>
#include <utility>
#include <vector>

#include "core/schedule.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

/// A transfer of the table: phase and position in it.
struct TransferRef {
  std::uint32_t phase = 0, transfer = 0;
  friend auto operator<=>(const TransferRef&, const TransferRef&) = default;
};

/// "synchronization": pass when every contending pair is ordered. Throws InputError for a model
/// that does not route or a synchronization that names no transfer or points backwards in time.
CheckResult check_synchronization(const Schedule& schedule, const Topology& model,
                                  const std::vector<std::pair<TransferRef, TransferRef>>& syncs);

}  // namespace phasecheck::verify
