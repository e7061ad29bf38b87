#pragma once
/// An alltoallv's figures in bytes (core/traffic.hpp): a transfer weighs the bytes of its blocks,
/// a phase costs its largest transfer's bytes (each transfer of a contention-free phase has its
/// own port or link share, so that is the most bytes one port or link carries in the phase), and
/// a schedule costs the sum over its phases: cost_bytes, the weighted C2. With the linear model a
/// schedule takes t_s C1 + t_w cost_bytes.
///
/// The load bound is the least cost_bytes any valid schedule has on the machine; each model's
/// argument holds with forwarding (docs/bounds.md, "Alltoallv"):
/// - every model: a rank sends every byte of its messages (its own block excluded) through its
///   ports or out-links, at most one transfer on each per phase, so cost_bytes >= sent / ports;
///   the same for what it receives;
/// - cluster (single-ported nodes): a node sends and receives one transfer per phase, so its
///   processors' bytes to and from other processors (other nodes' and its own) over one;
/// - tree: every byte from one side of a link to the other crosses it, one transfer per phase
///   each way, so the heaviest cut in bytes.

#include <cstdint>
#include <string>

#include "core/schedule.hpp"
#include "core/topology.hpp"
#include "core/traffic.hpp"
#include "verify/report.hpp"

namespace phasecheck::verify {

struct LoadBound {
  std::uint64_t bytes = 0;
  std::string argument;  ///< the rank, node or link that sets it, and why
  friend bool operator==(const LoadBound&, const LoadBound&) = default;
};

/// The load bound of `traffic` on `model` (traffic.ranks == ranks(model)). O(p^2) for a tree
/// (every message routed once), O(p^2) sums otherwise.
LoadBound load_bound(const Topology& model, const Traffic& traffic);

/// The bytes transfer `t` of `phase` carries: its blocks' elements times the element size.
std::uint64_t transfer_bytes(const Phase& phase, const Transfer& t, const Traffic& traffic,
                             Pieces pieces);

/// The "bounds" check of an alltoallv: its cost against the load bound (optimal, a gap, or
/// below it, which no valid schedule can be: it fails), with C1 beside it.
CheckResult check_load_bound(const Counts& counts, const ByteFigures& bytes);

}  // namespace phasecheck::verify
