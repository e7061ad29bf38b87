#pragma once
/// The invariant hook: an algorithm registers predicates over the data-flow state, and the
/// delivery checker evaluates them after every phase. The boundary is the phase's index: a
/// predicate finds its own loop boundaries from the algorithm's structure (a schedule cannot skip
/// a check by renaming a phase), and says not-applicable everywhere else.
///
/// Delivery is monotone (nothing is ever un-delivered), so an invariant of the form "everything
/// scheduled up to here has been delivered" may check only what this phase should have added;
/// that keeps the total cost linear in the number of messages.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

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
  /// delivered(o, dest) for every o in [first, last): one query where the checker keeps its
  /// arrivals as ranges of origins.
  virtual bool delivered_all(Rank first, Rank last, Rank dest) const {
    for (Rank o = first; o < last; ++o)
      if (!delivered(o, dest)) return false;
    return true;
  }
  /// How many other ranks' data has reached `dest` (deliveries, not counting its own).
  virtual Rank delivered_count(Rank dest) const = 0;
};

/// Where the checker stands: just after phase `phase` (0-based).
struct Boundary {
  std::size_t phase = 0;
};

/// What an invariant finds at one boundary: it holds there, it is broken (and what is wrong), or
/// the boundary is not one the invariant speaks about. The verifier counts the boundaries where an
/// invariant was evaluated: one that never applied is reported not evaluated, never "holds".
class Finding {
 public:
  enum class Kind { holds, broken, not_applicable };

  static Finding holds() { return Finding(Kind::holds, {}); }
  static Finding broken(std::string what) { return Finding(Kind::broken, std::move(what)); }
  static Finding not_applicable() { return Finding(Kind::not_applicable, {}); }
  /// Holds when `problem` is empty, else broken with it.
  static Finding unless(std::optional<std::string> problem) {
    return problem ? broken(std::move(*problem)) : holds();
  }

  Kind kind() const { return kind_; }
  /// What is wrong; empty unless broken.
  const std::string& what() const { return what_; }

 private:
  Finding(Kind kind, std::string what) : kind_(kind), what_(std::move(what)) {}
  Kind kind_;
  std::string what_;
};

/// A pure predicate of the algorithm over the data-flow state at a boundary, keyed on the
/// boundary's position (its phase index) and the algorithm's own structure, never on label text.
struct Invariant {
  std::string name;
  std::function<Finding(const Boundary&, const DataView&)> check;
};

}  // namespace phasecheck
