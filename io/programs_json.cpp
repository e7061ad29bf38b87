#include "io/programs_json.hpp"

#include <map>
#include <ostream>
#include <sstream>

#include "io/json_common.hpp"

namespace phasecheck::io {
namespace {

using OJson = nlohmann::ordered_json;

OJson segment(Slot s, std::uint32_t count) {
  return OJson::array({std::string(to_string(s.buffer)), s.index, count});
}

/// Per phase, the positions of its ops by (src, dst), in op order: a send's and its receive's
/// slot lists, built once so that writing stays linear in the ops.
std::vector<std::map<std::pair<Rank, Rank>, std::vector<std::uint32_t>>> ops_by_pair(
    const Schedule& schedule) {
  std::vector<std::map<std::pair<Rank, Rank>, std::vector<std::uint32_t>>> out(
      schedule.phases.size());
  for (std::size_t ph = 0; ph < schedule.phases.size(); ++ph) {
    const auto ops = schedule.phases[ph].ops();
    for (std::uint32_t i = 0; i < ops.size(); ++i)
      if (!ops[i].local()) out[ph][{ops[i].src, ops[i].dst}].push_back(i);
  }
  return out;
}

}  // namespace

namespace {

/// One rank's program as a JSON object; `by_pair` as ops_by_pair gives it (format 3).
OJson program_json(
    const RankProgram& prog, const Schedule& schedule,
    const std::vector<std::map<std::pair<Rank, Rank>, std::vector<std::uint32_t>>>& by_pair) {
  using Kind = ProgramOp::Kind;
  const bool buffers = schedule.header.buffers.has_value();
  OJson ops = OJson::array();
  for (const ProgramOp& op : prog.ops) {
    OJson o;
    o["op"] = to_string(op.kind);
    o["phase"] = op.phase;
    if (op.kind != Kind::wait && op.kind != Kind::barrier && op.kind != Kind::copy)
      o["peer"] = op.peer;
    const Phase& phase = schedule.phases.at(op.phase);
    if (op.kind == Kind::send || op.kind == Kind::recv) {
      o["transfer"] = op.transfer;
      o["blocks"] = op.blocks;
      if (buffers) {
        const bool send = op.kind == Kind::send;
        const auto at = by_pair[op.phase].find(send ? std::pair{prog.rank, op.peer}
                                                    : std::pair{op.peer, prog.rank});
        OJson slots = OJson::array();
        if (at != by_pair[op.phase].end())
          for (const std::uint32_t i : at->second) {
            const BufferOp& b = phase.ops()[i];
            slots.push_back(segment(send ? b.from : b.to, b.count));
          }
        o[send ? "from" : "to"] = std::move(slots);
      } else {
        OJson contents = OJson::array();
        for (const Block& b : phase.blocks(phase.transfers()[op.transfer]))
          contents.push_back(
              {b.origin, b.dest == kEveryRank ? std::int64_t{-1} : std::int64_t{b.dest}, b.part});
        o["contents"] = std::move(contents);
      }
    }
    if (op.kind == Kind::copy) {
      const BufferOp& b = phase.ops()[op.transfer];
      o["index"] = op.transfer;
      o["from"] = OJson::array({segment(b.from, b.count)});
      o["to"] = OJson::array({segment(b.to, b.count)});
    }
    ops.push_back(std::move(o));
  }
  return {{"rank", prog.rank}, {"ops", std::move(ops)}};
}

}  // namespace

void write_programs_json(std::ostream& os, const std::vector<RankProgram>& programs,
                         const Schedule& schedule, std::string_view source, Separation separation) {
  const ScheduleHeader& header = schedule.header;
  const bool buffers = header.buffers.has_value();
  OJson j;
  j["format"] = buffers ? kBufferProgramsFormat : kProgramsFormat;
  j["schedule"] = std::string(source);
  j["algorithm"] = header.algorithm;
  j["collective"] = std::string(to_string(header.collective));
  j["ranks"] = header.ranks();
  if (buffers) {
    const BufferLayout& b = *header.buffers;
    j["chunks"] = b.chunks;
    j["inplace"] = b.inplace;
    j["buffers"] = {{"input", b.input}, {"output", b.output}, {"scratch", b.scratch}};
  } else {
    j["parts"] = header.parts;
  }
  j["separation"] = to_string(separation);
  j["programs"] = OJson::array();
  // The document as one dump with an indent of 1 would write, one program at a time: the header,
  // then each program at the depth of the "programs" array's elements.
  std::string head = detail::dump(j, 1);
  if (programs.empty()) {
    os << head << "\n";
    return;
  }
  head.resize(head.size() - std::string_view("]\n}").size());
  os << head << "\n";
  const auto by_pair =
      buffers ? ops_by_pair(schedule)
              : std::vector<std::map<std::pair<Rank, Rank>, std::vector<std::uint32_t>>>{};
  for (std::size_t r = 0; r < programs.size(); ++r) {
    const std::string text = detail::dump(program_json(programs[r], schedule, by_pair), 1);
    os << "  ";
    for (const char c : text) {
      os << c;
      if (c == '\n') os << "  ";
    }
    os << (r + 1 < programs.size() ? ",\n" : "\n");
  }
  os << " ]\n}\n";
}

std::string programs_to_json(const std::vector<RankProgram>& programs, const Schedule& schedule,
                             std::string_view source, Separation separation) {
  std::ostringstream os;
  write_programs_json(os, programs, schedule, source, separation);
  return os.str();
}

}  // namespace phasecheck::io
