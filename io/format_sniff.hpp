#pragma once
/// Which format a schedule stream holds, from its first bytes (docs/formats.md): the binary
/// stream (io/schedule_binary.hpp), MSCCL XML (io/msccl_xml.hpp) or JSON (io/json.hpp).

#include <iosfwd>
#include <string>
#include <string_view>

namespace phasecheck::io {

enum class ScheduleFormat { binary, msccl_xml, json };

/// Tells the format without consuming what its reader needs. Before XML or JSON it consumes a
/// UTF-8 byte order mark and white space (JSON ignores both) into `skipped`, which the XML reader
/// gets back so that its lines and columns count them. Throws InputError (naming `source`) for a
/// stray byte where a byte order mark begins.
ScheduleFormat sniff_schedule_format(std::istream& in, std::string_view source,
                                     std::string& skipped);

}  // namespace phasecheck::io
