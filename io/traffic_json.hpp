#pragma once
// Internal to io/: a traffic matrix from its JSON object (a file's or a schedule's "traffic"),
// and from a CSV's text (io/traffic.hpp tells the two apart).

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/traffic.hpp"
#include "io/json_common.hpp"

namespace phasecheck::io::detail {

/// Validates and builds the matrix: "format", "ranks", "element_bytes" (default 1) and "counts"
/// (ranks rows of ranks non-negative integers). Throws InputError naming the source and the
/// place ("counts[3][7]: expected a non-negative integer, got a negative number"). The matrix's
/// memory is checked against the limit before it is allocated.
Traffic traffic_from_json(const Field& field);

/// The same checks and messages over a whole traffic file's JSON text, read by a SAX consumer
/// straight into the matrix (no document is built: at 4,096 ranks one takes 256 MB more).
/// Checks are made in the order the file gives its values; the matrix is allocated, its memory
/// checked, when its side is known (from "ranks", or else from the first row's length).
/// `element_bytes`, when given, must agree with the file's.
Traffic traffic_from_json_text(std::string_view text, std::string_view source,
                               std::optional<std::uint64_t> element_bytes);

/// A CSV's p lines of p comma-separated counts (Boost.Tokenizer's escaped_list_separator splits
/// a line), "\n" or "\r\n" line ends, one optional trailing line end, white space around a count
/// ignored. Messages name the line and column: "t.csv:4:9: counts[3][2]: ...". The rows are
/// counted, and the first row's counts, before the matrix is allocated.
Traffic traffic_from_csv(std::string_view text, std::string_view source,
                         std::optional<std::uint64_t> element_bytes);

}  // namespace phasecheck::io::detail
