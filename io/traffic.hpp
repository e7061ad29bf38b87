#pragma once
/// Traffic matrices in and out (docs/formats.md, "phasecheck.traffic/1"): the JSON object
/// {"format": "phasecheck.traffic/1", "ranks": p, "element_bytes": b, "counts": [[...], ...]},
/// as a file of its own or as an alltoallv schedule's "traffic" member.

#include <iosfwd>
#include <string_view>

#include "core/traffic.hpp"

namespace phasecheck::io {

inline constexpr std::string_view kTrafficFormat = "phasecheck.traffic/1";

/// Writes `traffic` as its JSON object, one row of counts per line, each line after the first
/// indented by `indent` spaces (a schedule's member sits two deep). Same matrix, same bytes.
void write_traffic_json(std::ostream& out, const Traffic& traffic, int indent = 0);

}  // namespace phasecheck::io
