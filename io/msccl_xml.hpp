#pragma once
/// MSCCL XML (docs/msccl.md): the `<algo>` files that msccl-tools writes and RCCL and NCCL's
/// MSCCL runtime load, read into core/msccl.hpp's Program and written back. Both dialects are
/// read (`<step s ...>` and `<op step ... buf off>`); the writer writes the `<step>` dialect, the
/// one every runtime loads.
///
/// Malformed files are InputError naming the file and the line:column of the element: XML
/// syntax, what XML 1.0 refuses and pugixml lets through (an attribute twice on an element, content
/// after the root element or text before it, bytes that are not UTF-8, characters outside XML's
/// Char, also as references), a missing or non-integer attribute, ids out of range (a gpu, a threadblock, a peer, a
/// dependency on a step that does not exist), a send in a threadblock without a send peer, step
/// types that reduce (not an alltoall or allgather program). What the program does wrong when it
/// runs is not an error here: core/msccl.hpp lowers it and reports it as data.

#include <string>
#include <string_view>

#include "core/msccl.hpp"

namespace phasecheck::io {

/// Whether `text` is XML rather than JSON: its first character that is not white space (after a
/// UTF-8 byte order mark) is '<'.
bool looks_like_xml(std::string_view text);

msccl::Program parse_msccl(std::string_view text, std::string_view source);
/// Reads `path` ("-": standard input) with the input limits of core/files.hpp.
msccl::Program read_msccl_file(const std::string& path);

/// The program in the `<step>` dialect, two spaces per level, attributes in msccl-tools' order.
/// Deterministic: same program, same bytes.
std::string msccl_to_xml(const msccl::Program& p);

}  // namespace phasecheck::io
