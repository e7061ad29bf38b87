#pragma once
// Internal to io/: a traffic matrix from its JSON object (a file's or a schedule's "traffic").

#include "core/traffic.hpp"
#include "io/json_common.hpp"

namespace phasecheck::io::detail {

/// Validates and builds the matrix: "format", "ranks", "element_bytes" (default 1) and "counts"
/// (ranks rows of ranks non-negative integers). Throws InputError naming the source and the
/// place ("counts[3][7]: expected a non-negative integer, got a negative number"). The matrix's
/// memory is checked against the limit before it is allocated.
Traffic traffic_from_json(const Field& field);

}  // namespace phasecheck::io::detail
