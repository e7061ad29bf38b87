#pragma once
/// Traffic matrices in and out (docs/formats.md, "phasecheck.traffic/1"): the JSON object
/// {"format": "phasecheck.traffic/1", "ranks": p, "element_bytes": b, "counts": [[...], ...]},
/// as a file of its own or as an alltoallv schedule's "traffic" member, and the same matrix as
/// CSV: p lines of p comma-separated counts.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "core/traffic.hpp"

namespace phasecheck::io {

inline constexpr std::string_view kTrafficFormat = "phasecheck.traffic/1";

/// Writes `traffic` as its JSON object, one row of counts per line, each line after the first
/// indented by `indent` spaces (a schedule's member sits two deep). Same matrix, same bytes.
void write_traffic_json(std::ostream& out, const Traffic& traffic, int indent = 0);

/// Writes the counts as CSV: one line per sending rank, "\n" line ends. The element size is not
/// written (a CSV's reader is told it). Same matrix, same bytes.
void write_traffic_csv(std::ostream& out, const Traffic& traffic);

/// Reads a traffic file ("-": standard input), with the input-size limit of core/files.hpp. The
/// format is told by content: JSON when the first byte that is not white space (or a UTF-8 byte
/// order mark) is '{' or '[', CSV otherwise. `element_bytes`, when given, is the element size of a
/// CSV (default 1), and must agree with a JSON file's "element_bytes" (a file without one takes
/// it). Throws InputError naming the file and the place: "t.json: counts[3][7]: ...", "t.json:2:16:
/// invalid JSON: ...", "t.csv:4:9: counts[3][2]: expected a non-negative integer, got \"-1\"", a
/// wrong number of rows or of counts in a row, a rank sending or receiving beyond the limits
/// (traffic_problem), an empty file. The matrix's memory is checked before it is allocated. Linear
/// in the file's size; holds the file's text and the matrix, never a JSON document.
Traffic read_traffic_file(const std::string& path, std::optional<std::uint64_t> element_bytes = {});
/// The same over text already read; `source` names it in messages.
Traffic parse_traffic(std::string_view text, std::string_view source,
                      std::optional<std::uint64_t> element_bytes = {});

}  // namespace phasecheck::io
