// Reading a schedule of any format (io/format_sniff.hpp tells which), MSCCL XML lowered to its
// format-3 program and judged as it is (verify/msccl_execution.hpp), and the conveniences on top
// (a file, a whole table, a text).

#include "pipeline/read_schedule.hpp"

#include <istream>
#include <iterator>
#include <optional>
#include <sstream>

#include "core/buffer_state.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "io/format_sniff.hpp"
#include "io/msccl_xml.hpp"
#include "io/schedule_binary.hpp"
#include "io/schedule_json_stream.hpp"
#include "verify/msccl_execution.hpp"

namespace phasecheck::pipeline {
namespace {

/// An MSCCL XML file (io/msccl_xml.hpp) lowered to its format-3 program (core/msccl.hpp).
void read_msccl_schedule(std::string_view text, std::string_view source,
                         const std::function<void(const ScheduleHeader&)>& on_header,
                         const PhaseSink& on_phase, io::Tables tables) {
  Schedule s = msccl::lower(io::parse_msccl(text, source), source);
  on_header(s.header);
  std::optional<BufferState> state;
  if (tables == io::Tables::derive)
    state.emplace(s.header.collective, s.header.ranks(), *s.header.buffers);
  for (std::size_t i = 0; i < s.phases.size(); ++i) {
    Phase& phase = s.phases[i];
    if (state) state->apply(i, phase.ops(), phase, [](const OpFault&) {});
    on_phase(phase);
  }
}

}  // namespace

void read_schedule(std::istream& in, std::string_view source,
                   const std::function<void(const ScheduleHeader&)>& on_header,
                   const PhaseSink& on_phase, io::Tables tables) {
  std::string text;
  switch (io::sniff_schedule_format(in, source, text)) {
    case io::ScheduleFormat::binary:  // phase tables only
      io::read_binary_schedule(in, source, on_header, on_phase);
      return;
    case io::ScheduleFormat::msccl_xml:
      text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (in.bad()) throw InputError(std::string(source) + ": read error");
      read_msccl_schedule(text, source, on_header, on_phase, tables);
      return;
    case io::ScheduleFormat::json:
      io::detail::read_json_schedule(in, source, on_header, on_phase, tables, {});
      return;
  }
}

void read_schedule_file(const std::string& path,
                        const std::function<void(const ScheduleHeader&)>& on_header,
                        const PhaseSink& on_phase, io::Tables tables) {
  InputFile in(path);
  read_schedule(in.stream(), in.name(), on_header, on_phase, tables);
}

namespace {

Schedule read_whole(const std::function<void(const std::function<void(const ScheduleHeader&)>&,
                                             const PhaseSink&)>& read) {
  Schedule s;
  read([&](const ScheduleHeader& h) { s.header = h; }, collect_into(s.phases));
  return s;
}

}  // namespace

Schedule read_schedule_file(const std::string& path,
                            const std::function<void(const ScheduleHeader&)>& check_header) {
  return read_whole([&](const auto& on_header, const auto& on_phase) {
    read_schedule_file(
        path,
        [&](const ScheduleHeader& h) {
          if (check_header) with_source(path, [&] { check_header(h); });
          on_header(h);
        },
        on_phase);
  });
}

Schedule parse_schedule(std::string_view text, std::string_view source) {
  std::istringstream in{std::string(text)};
  return read_whole([&](const auto& on_header, const auto& on_phase) {
    read_schedule(in, source, on_header, on_phase);
  });
}

}  // namespace phasecheck::pipeline
