#pragma once
/// Which registered algorithm a recorded run followed, found by comparing tables rather than
/// trusting what was asked for: Open MPI falls back without a word (recursive doubling to Bruck
/// off powers of two, neighbor exchange to ring at odd p, every alltoall to basic in-place under
/// MPI_IN_PLACE).

#include <optional>
#include <cstdint>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::record {

/// The registered algorithm (schedules/registry.hpp, its default parameters, generated for the
/// one-port fully connected machine of the run's p) whose phase table the recorded one is: the
/// same phases, each with the same transfers between the same ranks carrying the same blocks
/// (an element counts as its block; local copies and empty phases aside). Empty when none is.
/// O(algorithms x table size).
struct Identified {
  std::string name;
  /// The recorded table with the registered one's phase numbering: an empty phase wherever
  /// the registered table has only local copies (a self copy sends no message), so that the
  /// algorithm's claims and invariants are judged at its own phase boundaries.
  Schedule aligned;
  /// Phase t of the recorded table is phase moved_to[t] of `aligned`.
  std::vector<std::uint32_t> moved_to;
};
/// `prefer`: registered names tried first, comma-separated (what the run was asked to do).
std::optional<Identified> identify(const Schedule& recorded, std::string_view prefer = {});

}  // namespace phasecheck::record
