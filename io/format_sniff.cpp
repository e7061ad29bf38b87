// Reading a schedule of any format: which one a stream holds (a binary stream, MSCCL XML or
// JSON, told apart by their first bytes) and the reader for it, and the conveniences on top
// (a file, a whole table, a text).

#include <functional>
#include <istream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>

#include "core/buffer_state.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "verify/msccl_execution.hpp"
#include "io/json.hpp"
#include "io/msccl_xml.hpp"
#include "io/schedule_binary.hpp"
#include "io/schedule_json_stream.hpp"

namespace phasecheck::io {
namespace {

/// An MSCCL XML file (io/msccl_xml.hpp) lowered to its format-3 program (core/msccl.hpp).
void read_msccl_schedule(std::string_view text, std::string_view source,
                         const std::function<void(const ScheduleHeader&)>& on_header,
                         const PhaseSink& on_phase, Tables tables) {
  Schedule s = msccl::lower(parse_msccl(text, source), source);
  on_header(s.header);
  std::optional<BufferState> state;
  if (tables == Tables::derive)
    state.emplace(s.header.collective, s.header.ranks(), *s.header.buffers);
  for (std::size_t i = 0; i < s.phases.size(); ++i) {
    Phase& phase = s.phases[i];
    if (state) state->apply(i, phase.ops(), phase, [](const OpFault&) {});
    on_phase(phase);
  }
}

/// Whether the stream holds XML: its first character that is not white space, after a UTF-8 byte
/// order mark, is '<'. Consumes the mark and the white space only (JSON ignores both) into
/// `skipped`, which the XML reader gets back so that its lines and columns count them.
bool xml_ahead(std::istream& in, std::string_view source, std::string& skipped) {
  if (in.peek() == 0xEF) {
    for (const char c : std::string_view("\xEF\xBB\xBF")) {
      if (in.peek() != static_cast<unsigned char>(c))
        throw InputError(std::string(source) +
                         ":1:1: invalid JSON: a stray byte at the start (not a UTF-8 byte order "
                         "mark)");
      skipped += static_cast<char>(in.get());
    }
  }
  while (in.peek() == ' ' || in.peek() == '\t' || in.peek() == '\r' || in.peek() == '\n')
    skipped += static_cast<char>(in.get());
  return in.peek() == '<';
}

}  // namespace

void read_schedule(std::istream& in, std::string_view source,
                   const std::function<void(const ScheduleHeader&)>& on_header,
                   const PhaseSink& on_phase, Tables tables) {
  if (binary_ahead(in)) {  // the binary stream (io/schedule_binary.hpp): phase tables only
    read_binary_schedule(in, source, on_header, on_phase);
    return;
  }
  if (std::string text; xml_ahead(in, source, text)) {
    text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(std::string(source) + ": read error");
    read_msccl_schedule(text, source, on_header, on_phase, tables);
    return;
  }
  detail::read_json_schedule(in, source, on_header, on_phase, tables, {});
}

void read_schedule_file(const std::string& path,
                        const std::function<void(const ScheduleHeader&)>& on_header,
                        const PhaseSink& on_phase, Tables tables) {
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

}  // namespace phasecheck::io
