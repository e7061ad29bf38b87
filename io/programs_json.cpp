#include "io/programs_json.hpp"

#include "io/json_common.hpp"

namespace phasecheck::io {

std::string programs_to_json(const std::vector<programs::RankProgram>& programs,
                             const Schedule& schedule, std::string_view source,
                             programs::Separation separation) {
  using OJson = nlohmann::ordered_json;
  const ScheduleHeader& header = schedule.header;
  OJson j;
  j["format"] = kProgramsFormat;
  j["schedule"] = std::string(source);
  j["algorithm"] = header.algorithm;
  j["collective"] = std::string(to_string(header.collective));
  j["ranks"] = header.ranks();
  j["parts"] = header.parts;
  j["separation"] = programs::to_string(separation);
  OJson all = OJson::array();
  for (const auto& prog : programs) {
    OJson ops = OJson::array();
    for (const programs::Op& op : prog.ops) {
      OJson o;
      o["op"] = programs::to_string(op.kind);
      o["phase"] = op.phase;
      if (op.kind != programs::Op::Kind::wait && op.kind != programs::Op::Kind::barrier)
        o["peer"] = op.peer;
      if (op.kind == programs::Op::Kind::send || op.kind == programs::Op::Kind::recv) {
        o["transfer"] = op.transfer;
        o["blocks"] = op.blocks;
        const Phase& phase = schedule.phases.at(op.phase);
        OJson contents = OJson::array();
        for (const Block& b : phase.blocks(phase.transfers()[op.transfer]))
          contents.push_back(
              {b.origin, b.dest == kEveryRank ? std::int64_t{-1} : std::int64_t{b.dest}, b.part});
        o["contents"] = std::move(contents);
      }
      ops.push_back(std::move(o));
    }
    all.push_back({{"rank", prog.rank}, {"ops", std::move(ops)}});
  }
  j["programs"] = std::move(all);
  return detail::dump(j, 1) + "\n";
}

}  // namespace phasecheck::io
