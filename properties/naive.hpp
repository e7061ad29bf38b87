#pragma once
/// The second method the checkers are judged against: a naive simulation written from the
/// definitions alone (docs/models.md for tables, core/buffers.hpp for buffer programs), sharing no
/// code with verify/. `mutate` decides with it whether a mutant is valid; the property tests
/// compare the delivery checker with it on random schedules.

#include <set>
#include <string>
#include <utility>

#include "core/schedule.hpp"

namespace phasecheck::properties {

/// Delivery of a phase table by sets of holdings: a rank sends a block only when it holds it (a
/// send without it moves nothing), and a block arriving where it is needed must arrive once.
struct NaiveDelivery {
  std::string problem;  ///< the first thing found wrong, "" when every block arrives exactly once
  std::set<std::pair<Rank, Rank>> delivered;  ///< (origin, dest): every part reached dest
};
NaiveDelivery naive_delivery(const Schedule& table);

/// Naive validity of a schedule. For a table: delivery by sets of holdings. For a program: a
/// simulation of every slot, phase by phase (every op reads the state at the phase's start, its
/// writes land at the phase's end); `placed` fails on a read or write beyond a buffer, a read of
/// an empty slot, a write to the input buffer, two writes to one slot in a phase, or an output
/// slot without its chunk at the end; `delivered` fails when a chunk arrives by a send at a rank
/// that needs it and already has it. Contention is counted per link, port or node on the sends of
/// each phase.
struct NaiveVerdict {
  bool delivered = false;
  bool contention_free = false;
  bool placed = true;   ///< a table has no slots: always true
  std::string problem;  ///< the first thing found wrong ("" when valid; contention not named)
  bool valid(bool contention_counts) const {
    return placed && delivered && (!contention_counts || contention_free);
  }
};
NaiveVerdict naive_verdict(const Schedule& schedule, const Topology& model);

}  // namespace phasecheck::properties
