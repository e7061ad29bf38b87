#pragma once
// Internal to io/: nlohmann JSON helpers shared by the topology and schedule readers. Included by
// io/*.cpp only, to keep nlohmann's compile cost out of every other translation unit.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace phasecheck::io::detail {

using Json = nlohmann::json;

/// How deep a topology or header value may nest: far deeper than any valid one, far shallower
/// than what would exhaust the stack.
inline constexpr std::size_t kMaxDepth = 64;

/// Parses a whole JSON document that is at most kMaxDepth deep and has no object with the same
/// key twice (JSON allows it, but "last one wins" silently hides an edit gone wrong).
Json parse_document(std::string_view text, std::string_view source);

/// "file.json:3:14: <what>" from a nlohmann parse error (which knows line and column).
[[noreturn]] void throw_syntax_error(std::string_view source, const nlohmann::json::exception& e);
/// The same for any error the parser reports at `at`: a syntax error, or a number beyond double
/// ("file.json:2:16: number out of range: 1e400"). nlohmann passes the position to a SAX
/// consumer's parse_error; a consumer that declares this overload receives it whole.
/// `token` is the text the parser stopped on; `text`, when the whole document is at hand, lets
/// the position be that of the token's start (nlohmann's is after it).
[[noreturn]] void throw_json_error(std::string_view source, const nlohmann::detail::position_t& at,
                                  const std::string& token, const nlohmann::json::exception& e,
                                  std::string_view text = {});
/// "file.json: <path>: <what>".
[[noreturn]] void throw_at(std::string_view source, std::string_view path, const std::string& what);

std::string type_name(const Json& j);

/// Serializes `j`; bytes that are not UTF-8 (a file name, a label from an API caller) become
/// U+FFFD instead of an exception, so writing a report or a schedule never fails on them.
template <class J>
std::string dump(const J& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// A JSON value seen through its source and path, with typed, checked accessors.
struct Field {
  const Json& value;
  std::string_view source;
  std::string path;

  Field at(std::string_view key) const;  ///< required member
  bool has(std::string_view key) const { return value.contains(key); }
  Field at(std::size_t index) const;
  void expect_object(std::initializer_list<std::string_view> known) const;
  const Json::array_t& array() const;
  std::string string() const;
  std::uint64_t uint(std::uint64_t max) const;  ///< non-negative integer <= max
  bool boolean() const;
  [[noreturn]] void fail(const std::string& what) const { throw_at(source, path, what); }
};

}  // namespace phasecheck::io::detail

#include "core/topology.hpp"

namespace phasecheck::io::detail {

/// Validates and builds a topology from its JSON (file or a schedule's "topology" member).
Topology topology_from_json(const Field& f);
/// Keys in the documented order (ordered_json), so written files read naturally.
nlohmann::ordered_json topology_to_json_value(const Topology& t);

}  // namespace phasecheck::io::detail
