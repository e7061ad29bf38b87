#pragma once
/// The gap to the lower bound: the one definition that verify, diff, gate, survey and the what-if
/// tables print. On each metric (C1, C2) separately, the gap is value - bound, and it is defined
/// only where that number means "this far from optimal":
/// - below a proven lower bound the schedule is broken (its bounds check fails, or the bound is
///   wrong): the gap is undefined, not 0;
/// - when no bound on the metric applies to the schedule, the gap is unknown, not the value;
/// - the bounds hold for schedules that deliver every block without contention: for any other
///   schedule the gap is undefined.
/// Undefined and unknown are both absent (reports write null or "-").

#include <cstdint>
#include <optional>

#include "verify/report.hpp"

namespace phasecheck::verify {

/// The best bound per metric that applies to a schedule (Report::bound_c1, bound_c2), or absent
/// when none of the model's bounds on that metric applies.
struct KnownBounds {
  std::optional<std::uint64_t> c1, c2;
  friend bool operator==(const KnownBounds&, const KnownBounds&) = default;
};

/// The gap on C1 and on C2.
struct Gap {
  std::optional<std::uint64_t> c1, c2;
  friend bool operator==(const Gap&, const Gap&) = default;
};

/// value - bound when the bound is known and the value meets it; absent otherwise.
std::optional<std::uint64_t> gap(std::uint64_t value, std::optional<std::uint64_t> bound);

/// The bounds of `report` that apply to its schedule (a direct schedule's C1 and C2 share every
/// bound, as best_bounds says).
KnownBounds known_bounds(const Report& report);

/// Figures of a schedule taken as valid (a baseline given by its figures) against `bounds`.
Gap gap(std::uint64_t c1, std::uint64_t c2, const KnownBounds& bounds);

/// The gap of a verified schedule against `bounds`: absent on both metrics unless delivery and
/// contention pass.
Gap gap(const Report& report, const KnownBounds& bounds);

/// gap(report, known_bounds(report)).
Gap gap(const Report& report);

}  // namespace phasecheck::verify
