// Which format a schedule stream holds: a binary stream, MSCCL XML or JSON, told apart by their
// first bytes. Reading the one it holds is the pipeline's (pipeline/read_schedule.hpp), because
// an MSCCL program is judged by verify/ as it becomes a schedule, and io/ never includes verify/.

#include "io/format_sniff.hpp"

#include <istream>

#include "core/error.hpp"
#include "io/schedule_binary.hpp"

namespace phasecheck::io {

ScheduleFormat sniff_schedule_format(std::istream& in, std::string_view source,
                                     std::string& skipped) {
  if (binary_ahead(in)) return ScheduleFormat::binary;
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
  return in.peek() == '<' ? ScheduleFormat::msccl_xml : ScheduleFormat::json;
}

}  // namespace phasecheck::io
