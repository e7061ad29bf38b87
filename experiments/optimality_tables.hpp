#pragma once
/// `whatif optimality`: Z3's proven optimum next to an algorithm's phase count on every machine
/// of a family (docs/optimality.md). Every optimum has a witness the verifier checked; an
/// instance the solver cannot decide within `timeout` seconds is unknown, and so is the table.

#include <cstdint>
#include <iosfwd>
#include <string>

#include "core/topology.hpp"
#include "report/table.hpp"

namespace phasecheck::experiments {

/// "9" when lo == hi, "7..9" otherwise: what is known of a value.
std::string known_range(std::uint64_t lo, std::uint64_t hi);

/// hierarchical-factor (plain and compact) on every cluster of 2..max_ranks ranks (at most 12).
reports::TableReport cluster_optimality(Rank max_ranks, double timeout, std::ostream* progress);

/// faraj-yuan on every tree of 2..max_machines machines (at most 10), up to isomorphism.
reports::TableReport tree_optimality(Rank max_machines, double timeout, std::ostream* progress);

/// The (C1, C2) frontier of forwarding schedules on every k-port machine of 2..max_ranks ranks
/// (at most 8), for alltoall and allgather, against Bruck et al.'s family. `text` is one table per
/// collective; `report`'s table has the collective as its first column (JSON, CSV).
struct KportOptimality {
  reports::TableReport report;
  std::string text;
};
KportOptimality kport_optimality(Rank max_ranks, double timeout, std::ostream* progress);

}  // namespace phasecheck::experiments
