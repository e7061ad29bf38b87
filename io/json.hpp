#pragma once
/// Schedule and topology files (docs/formats.md). Errors are InputError messages that start with
/// the file name, then "line:column" for JSON syntax or the JSON path of the offending value.
///
/// Schedules are read with a SAX parser and handed over one phase at a time: when the header
/// keys come before "phases" (as phasecheck writes them), memory stays at one phase whatever
/// the file size; in any other key order the phases are buffered until the header is complete.

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

#include "core/schedule.hpp"

namespace phasecheck::io {

inline constexpr std::string_view kScheduleFormat = "phasecheck.schedule/1";
/// Version 2 adds "parts" (segments per message) and blocks [origin, destination, part]. Every
/// version-1 file is a version-2 file with parts = 1; the writer keeps version 1 for those.
inline constexpr std::string_view kScheduleFormatV2 = "phasecheck.schedule/2";
/// Version 3: buffer programs. Phases hold "ops" that move chunks between the input, output and
/// scratch buffers of the ranks (core/buffers.hpp); the header has "chunks", "inplace",
/// "buffers", and the topology is optional.
inline constexpr std::string_view kScheduleFormatV3 = "phasecheck.schedule/3";
/// Version 4: a collective in place for both collectives ("inplace": true in a phase table, and
/// in an alltoall program: the output starts with the input's layout), and "parts" for an
/// allgather (blocks [origin, null, part]). A program when the header has "buffers" (then as
/// version 3), else a phase table (as version 2). The writer uses it only when a file needs it.
inline constexpr std::string_view kScheduleFormatV4 = "phasecheck.schedule/4";

/// Whether the reader fills in the table of a version-3 phase (its sends, as transfers) by
/// running the program. A consumer that runs the program itself (the verifier) says `ops_only`.
enum class Tables { derive, ops_only };

/// Topology files: version 1 has no "format" key (it may say this one); version 2 adds a graph's
/// link facts ("bandwidths", "labels", "host_bandwidths", core/topology.hpp LinkFacts) and says
/// so. The writer names version 2 only for a graph with facts (docs/formats.md).
inline constexpr std::string_view kTopologyFormat = "phasecheck.topology/1";
inline constexpr std::string_view kTopologyFormatV2 = "phasecheck.topology/2";

/// Reads and validates a topology file.
Topology read_topology_file(const std::string& path);
Topology parse_topology(std::string_view text, std::string_view source);
/// One line of JSON, keys in the documented order.
std::string topology_to_json(const Topology& t);
/// The same, indented one space per level (for files a person reads).
std::string topology_to_pretty_json(const Topology& t);

/// Reading a schedule file of any format is pipeline/read_schedule.hpp (an MSCCL file is judged
/// by verify/ as it is read).

/// Writes a schedule as it is generated: header keys first, one transfer per line, "blocks"
/// omitted for a direct message. Deterministic: same phases, same bytes.
class ScheduleWriter {
 public:
  /// Version 3 when header.buffers is set (the phases' ops are written, not their transfers).
  ScheduleWriter(std::ostream& out, const ScheduleHeader& header);
  void phase(const Phase& phase);
  PhaseSink sink() {
    return [this](const Phase& p) { phase(p); };
  }
  /// Closes the JSON document; call once after the last phase.
  void finish();

 private:
  void ops(const Phase& phase);
  std::ostream& out_;
  Collective collective_;
  bool program_;
  std::size_t phases_ = 0;
  std::string buffer_;
};

std::string schedule_to_json(const Schedule& s);

}  // namespace phasecheck::io
