// The schedule writer: header keys first, one transfer (or op) per line, so that a file is
// written as it is generated and reads well in a diff. docs/formats.md is the specification.

#include <charconv>
#include <ostream>
#include <sstream>
#include <string>

#include "io/json.hpp"
#include "io/json_common.hpp"
#include "io/traffic.hpp"

namespace phasecheck::io {

using detail::Json;

namespace {

/// Appends `v` in decimal (to_chars: no locale, no allocation).
void append_number(std::string& text, std::uint32_t v) {
  char digits[16];
  text.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
}

/// Starts the text of a phase in `text`: `{"label": ..., "<list>": [`, after a comma unless it
/// is the first.
void open_phase(std::string& text, bool first, const Phase& phase, const char* list) {
  text.clear();
  text += first ? "\n" : ",\n";
  text += "    {\"label\": " + detail::dump(Json(phase.label())) + ", \"";
  text += list;
  text += "\": [";
}

}  // namespace

ScheduleWriter::ScheduleWriter(std::ostream& out, const ScheduleHeader& header)
    : out_(out), collective_(header.collective), program_(header.buffers.has_value()) {
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& [k, v] : header.parameters.entries()) params[k] = v;
  const bool alltoall = header.collective == Collective::alltoall;
  // The oldest version that says it all, so that files which do not need a newer one stay
  // byte for byte as they were.
  const bool v4 = program_ ? alltoall && header.buffers->inplace
                           : header.inplace || (!alltoall && header.parts > 1);
  const bool v2 = !program_ && (header.parts > 1 || header.piece_elements > 0);
  out_ << "{\n"
       << "  \"format\": \""
       << (v4         ? kScheduleFormatV4
           : program_ ? kScheduleFormatV3
           : v2       ? kScheduleFormatV2
                      : kScheduleFormat)
       << "\",\n"
       << "  \"algorithm\": " << detail::dump(Json(header.algorithm)) << ",\n"
       << "  \"collective\": \"" << header.collective_name() << "\",\n"
       << "  \"ranks\": " << header.ranks() << ",\n";
  if (header.traffic) {
    out_ << "  \"traffic\": ";
    write_traffic_json(out_, *header.traffic, 2);
    out_ << ",\n";
    if (header.piece_elements > 0)
      out_ << "  \"piece_elements\": " << header.piece_elements << ",\n";
  } else if (v2) {
    out_ << "  \"parts\": " << header.parts << ",\n";
  }
  if (!program_ && header.inplace) out_ << "  \"inplace\": true,\n";
  if (program_) {
    const BufferLayout& b = *header.buffers;
    out_ << "  \"chunks\": " << b.chunks << ",\n";
    if (!alltoall || b.inplace)
      out_ << "  \"inplace\": " << (b.inplace ? "true" : "false") << ",\n";
    out_ << "  \"buffers\": {\"input\": " << b.input << ", \"output\": " << b.output
         << ", \"scratch\": " << b.scratch << "},\n";
  }
  out_ << "  \"parameters\": " << detail::dump(params) << ",\n"
       << "  \"topology\": " << detail::dump(detail::topology_to_json_value(header.topology))
       << ",\n"
       << "  \"phases\": [";
}

void ScheduleWriter::ops(const Phase& phase) {
  open_phase(buffer_, phases_++ == 0, phase, "ops");
  const auto append = [&](std::uint32_t v) { append_number(buffer_, v); };
  const auto slot = [&](Slot s) {
    buffer_ += "[\"";
    buffer_ += to_string(s.buffer);
    buffer_ += "\", ";
    append(s.index);
    buffer_ += "]";
  };
  const auto ops = phase.ops();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const BufferOp& op = ops[i];
    buffer_ += i == 0 ? "\n      {" : ",\n      {";
    if (op.local()) {
      buffer_ += "\"rank\": ";
      append(op.src);
    } else {
      buffer_ += "\"src\": ";
      append(op.src);
      buffer_ += ", \"dst\": ";
      append(op.dst);
    }
    buffer_ += ", \"from\": ";
    slot(op.from);
    buffer_ += ", \"to\": ";
    slot(op.to);
    buffer_ += ", \"count\": ";
    append(op.count);
    buffer_ += "}";
  }
  buffer_ += ops.empty() ? "]}" : "\n    ]}";
  out_ << buffer_;
}

void ScheduleWriter::phase(const Phase& phase) {
  if (program_) return ops(phase);
  open_phase(buffer_, phases_++ == 0, phase, "transfers");
  const auto append = [&](std::uint32_t v) { append_number(buffer_, v); };
  for (std::size_t i = 0; i < phase.size(); ++i) {
    const Transfer& t = phase[i];
    buffer_ += i == 0 ? "\n      {\"src\": " : ",\n      {\"src\": ";
    append(t.src);
    buffer_ += ", \"dst\": ";
    append(t.dst);
    const auto blocks = phase.blocks(t);
    if (!(blocks.size() == 1 && blocks[0] == direct_block(collective_, t.src, t.dst))) {
      buffer_ += ", \"blocks\": [";
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        buffer_ += b == 0 ? "[" : ", [";
        append(blocks[b].origin);
        if (blocks[b].dest != kEveryRank) {
          buffer_ += ", ";
          append(blocks[b].dest);
        } else if (blocks[b].part > 0) {  // an allgather's part: [origin, null, part]
          buffer_ += ", null";
        }
        if (blocks[b].part > 0) {
          buffer_ += ", ";
          append(blocks[b].part);
        }
        buffer_ += "]";
      }
      buffer_ += "]";
    }
    buffer_ += "}";
  }
  buffer_ += phase.empty() ? "]}" : "\n    ]}";
  out_ << buffer_;
}

void ScheduleWriter::finish() { out_ << (phases_ == 0 ? "]\n}\n" : "\n  ]\n}\n"); }

std::string schedule_to_json(const Schedule& s) {
  std::ostringstream os;
  ScheduleWriter w(os, s.header);
  for (const Phase& p : s.phases) w.phase(p);
  w.finish();
  return os.str();
}

}  // namespace phasecheck::io
