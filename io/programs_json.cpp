#include "io/programs_json.hpp"

#include "io/json_common.hpp"

namespace phasecheck::io {

std::string programs_to_json(const std::vector<programs::RankProgram>& programs,
                             const ScheduleHeader& header, std::string_view source,
                             programs::Separation separation) {
  using OJson = nlohmann::ordered_json;
  OJson j;
  j["format"] = kProgramsFormat;
  j["schedule"] = std::string(source);
  j["algorithm"] = header.algorithm;
  j["ranks"] = header.ranks();
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
      }
      ops.push_back(std::move(o));
    }
    all.push_back({{"rank", prog.rank}, {"ops", std::move(ops)}});
  }
  j["programs"] = std::move(all);
  return detail::dump(j, 1) + "\n";
}

}  // namespace phasecheck::io
