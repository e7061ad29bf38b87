#pragma once
/// The invariant hook: an algorithm registers predicates over the data-flow state, and the
/// delivery checker evaluates them after every phase (the boundary names the phase's index and
/// label, so a predicate can act only at the algorithm's own loop boundaries).
///
/// Delivery is monotone (nothing is ever un-delivered), so an invariant of the form "everything
/// scheduled up to here has been delivered" may check only what this phase should have added;
/// that keeps the total cost linear in the number of messages.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/schedule.hpp"

namespace phasecheck {

/// A read-only view of the data-flow state between two phases.
class DataView {
 public:
  virtual ~DataView() = default;
  /// Rank r holds block b: it is r's own, or it has arrived at r in an earlier phase.
  virtual bool holds(Rank r, Block b) const = 0;
  /// What `origin` has for `dest` has reached `dest`: block [origin,dest] for alltoall, block
  /// [origin] at dest for allgather. A rank's own data counts as delivered to itself.
  virtual bool delivered(Rank origin, Rank dest) const = 0;
  /// How many other ranks' data has reached `dest` (deliveries, not counting its own).
  virtual Rank delivered_count(Rank dest) const = 0;
};

/// Where the checker stands: just after phase `phase` (0-based), whose label is `label`.
struct Boundary {
  std::size_t phase = 0;
  std::string_view label;
};

struct Invariant {
  std::string name;
  /// Returns nothing when the invariant holds, or what is wrong ("m_2_5 not delivered").
  std::function<std::optional<std::string>(const Boundary&, const DataView&)> check;
};

}  // namespace phasecheck
