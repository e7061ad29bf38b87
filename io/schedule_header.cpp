// A schedule file's header: its keys, when it is complete, and its validation (docs/formats.md).

#include "io/schedule_header.hpp"

#include <algorithm>
#include <iterator>
#include <string>

#include "core/buffers.hpp"
#include "core/error.hpp"
#include "io/json.hpp"
#include "io/traffic_json.hpp"

namespace phasecheck::io::detail {
namespace {

constexpr const char* kRequiredKeys[] = {"format", "algorithm", "collective", "ranks"};
constexpr const char* kHeaderKeys[] = {"format",   "algorithm",  "collective", "ranks",
                                       "topology", "parameters", "parts",      "chunks",
                                       "inplace",  "buffers",    "traffic",    "piece_elements"};

/// Versions 3 and 4: "chunks", "inplace" and "buffers" into header.buffers (and header.parts).
void read_buffers(const Field& top, ScheduleHeader& header, bool v4) {
  const Json& h = top.value;
  const auto chunks =
      h.contains("chunks") ? static_cast<std::uint32_t>(top.at("chunks").uint(kMaxParts)) : 1u;
  if (chunks == 0) top.at("chunks").fail("must be at least 1");
  const bool inplace = h.contains("inplace") && top.at("inplace").boolean();
  if (inplace && header.collective == Collective::alltoall && !v4)
    top.at("inplace").fail("an alltoall in place needs " + std::string(kScheduleFormatV4));
  BufferLayout layout = natural_layout(header.collective, header.ranks(), chunks, inplace);
  if (h.contains("buffers")) {
    const Field buffers = top.at("buffers");
    buffers.expect_object({"input", "output", "scratch"});
    for (Buffer b : kBuffers)
      if (buffers.has(to_string(b))) {
        const auto size = static_cast<std::uint32_t>(buffers.at(to_string(b)).uint(kMaxSlots));
        (b == Buffer::input    ? layout.input
         : b == Buffer::output ? layout.output
                               : layout.scratch) = size;
      }
    if (const auto problem = layout_problem(layout, header.collective, header.ranks()))
      buffers.fail(*problem);
  } else if (const auto problem = layout_problem(layout, header.collective, header.ranks())) {
    top.fail(*problem);
  }
  header.buffers = layout;
  header.parts = chunks;
}

/// "parts" (versions 2 and 4, phase tables) and "inplace" (version 4) of a phase table.
void read_table_shape(const Field& top, ScheduleHeader& header, std::string_view format) {
  const Json& h = top.value;
  const bool v4 = format == kScheduleFormatV4;
  if (h.contains("parts")) {
    if (format != kScheduleFormatV2 && !v4)
      top.at("parts").fail("\"parts\" needs " + std::string(kScheduleFormatV2));
    header.parts = static_cast<std::uint32_t>(top.at("parts").uint(kMaxParts));
    if (header.parts == 0) top.at("parts").fail("must be at least 1");
    if (header.parts > 1 && header.collective == Collective::allgather && !v4)
      top.at("parts").fail("\"parts\" for an allgather needs " + std::string(kScheduleFormatV4));
  }
  if (h.contains("inplace")) {
    if (!v4) top.at("inplace").fail("\"inplace\" needs " + std::string(kScheduleFormatV4));
    header.inplace = top.at("inplace").boolean();
  }
}

/// An alltoallv's "traffic" (its matrix) and, in a version-2 table, "piece_elements" (its
/// messages cut into pieces: the parts are the most pieces of any message).
void read_traffic(const Field& top, ScheduleHeader& header, bool alltoallv,
                  std::string_view format) {
  const Json& h = top.value;
  for (const char* k : {"traffic", "piece_elements"})
    if (!alltoallv && h.contains(k))
      top.at(k).fail("\"" + std::string(k) + "\" belongs to an alltoallv's header");
  if (!alltoallv) return;
  if (!h.contains("traffic")) top.fail("missing \"traffic\" (an alltoallv's matrix)");
  if (header.buffers) top.at("collective").fail("an alltoallv buffer program is not supported yet");
  if (header.inplace) top.at("inplace").fail("an alltoallv in place is not supported yet");
  Traffic traffic = traffic_from_json(top.at("traffic"));
  if (traffic.ranks != header.ranks())
    top.at("traffic").at("ranks").fail(std::to_string(traffic.ranks) +
                                       " does not match the schedule's " +
                                       std::to_string(header.ranks()) + " ranks");
  if (h.contains("parts")) top.at("parts").fail("an alltoallv is cut by \"piece_elements\"");
  if (h.contains("piece_elements")) {
    if (format != kScheduleFormatV2)
      top.at("piece_elements").fail("\"piece_elements\" needs " + std::string(kScheduleFormatV2));
    header.piece_elements = top.at("piece_elements").uint(kMaxTrafficCount);
    if (header.piece_elements == 0) top.at("piece_elements").fail("must be at least 1");
    const std::uint64_t parts = max_pieces(traffic, header.pieces());
    if (parts > kMaxParts)
      top.at("piece_elements")
          .fail(std::to_string(header.piece_elements) + " elements cut some message into " +
                std::to_string(parts) + " pieces, more than " + std::to_string(kMaxParts));
    header.parts = static_cast<std::uint32_t>(std::max<std::uint64_t>(parts, 1));
  } else if (format == kScheduleFormatV2) {
    top.fail("an alltoallv in " + std::string(kScheduleFormatV2) + " needs \"piece_elements\"");
  }
  header.traffic = SharedTraffic(std::move(traffic));
}

}  // namespace

bool is_header_key(std::string_view key) {
  return std::find(std::begin(kHeaderKeys), std::end(kHeaderKeys), key) != std::end(kHeaderKeys);
}

bool header_complete(const Json& values) {
  const Json& h = values;
  if (!std::all_of(std::begin(kRequiredKeys), std::end(kRequiredKeys),
                   [&](const char* r) { return h.contains(r); }))
    return false;
  const std::string format = h["format"].is_string() ? h["format"].get<std::string>() : "";
  if (h["collective"] == "alltoallv" && !h.contains("traffic")) return false;
  if (format == kScheduleFormatV4) return h.contains("buffers") || h.contains("topology");
  return h.contains(format == kScheduleFormatV3 ? "buffers" : "topology");
}

ScheduleHeader header_from_json(const Json& values, std::string_view source,
                                const std::function<void(const ScheduleHeader&)>& on_shape) {
  const Json& h = values;
  const Field top{h, source, ""};
  ScheduleHeader header;
  for (const char* k : kRequiredKeys)
    if (!h.contains(k)) top.fail(std::string("missing \"") + k + "\"");
  const std::string format = top.at("format").string();
  if (format != kScheduleFormat && format != kScheduleFormatV2 && format != kScheduleFormatV3 &&
      format != kScheduleFormatV4)
    top.at("format").fail("unsupported format \"" + format + "\" (this phasecheck reads " +
                          std::string(kScheduleFormat) + ", " + std::string(kScheduleFormatV2) +
                          ", " + std::string(kScheduleFormatV3) + " and " +
                          std::string(kScheduleFormatV4) + ")");
  const bool v4 = format == kScheduleFormatV4;
  // Version 3 is a buffer program; version 4 one when its header has "buffers".
  const bool program = format == kScheduleFormatV3 || (v4 && h.contains("buffers"));
  for (const char* k : {"chunks", "buffers"})
    if (!program && h.contains(k))
      top.at(k).fail("\"" + std::string(k) + "\" needs " + std::string(kScheduleFormatV3) +
                     (v4 ? " or a version-4 header with \"buffers\" (a buffer program)" : ""));
  if (!program && !h.contains("topology")) top.fail("missing \"topology\"");
  if (program && h.contains("parts"))
    top.at("parts").fail(
        "\"parts\" needs " + std::string(kScheduleFormatV2) +
        (v4 ? " (a buffer program has \"chunks\")" : " (version 3 has \"chunks\")"));
  header.algorithm = top.at("algorithm").string();
  const std::string collective = top.at("collective").string();
  try {
    header.collective = parse_collective(collective == "alltoallv" ? "alltoall" : collective);
  } catch (const InputError& e) {  // the message gets the key's path, not only the source
    top.at("collective").fail(e.what());
  }
  const auto ranks = top.at("ranks").uint(kMaxRanks);
  if (ranks == 0) top.at("ranks").fail("must be at least 1");
  if (h.contains("topology")) {
    header.topology = topology_from_json(top.at("topology"));
    if (ranks != phasecheck::ranks(header.topology))
      top.at("ranks").fail(std::to_string(ranks) + " does not match the topology, which has " +
                           std::to_string(phasecheck::ranks(header.topology)) + " ranks");
  } else {  // version 3 without a machine: every rank reaches every other at once
    header.topology =
        FullyConnected(static_cast<Rank>(ranks), std::max<Rank>(1, static_cast<Rank>(ranks) - 1));
  }
  if (program)
    read_buffers(top, header, v4);
  else
    read_table_shape(top, header, format);
  read_traffic(top, header, collective == "alltoallv", format);
  on_shape(header);
  if (h.contains("parameters")) {
    const Field params = top.at("parameters");
    if (!params.value.is_object())
      params.fail("expected an object, got " + type_name(params.value));
    for (const auto& [key, value] : params.value.items()) {
      if (value.is_string())
        header.parameters.set(key, value.get<std::string>());
      else if (value.is_number() || value.is_boolean())
        header.parameters.set(key, dump(value));
      else
        params.at(key).fail("expected a string, number or boolean");
    }
  }
  return header;
}

}  // namespace phasecheck::io::detail
