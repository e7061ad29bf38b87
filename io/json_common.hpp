#pragma once
// Internal to io/: nlohmann JSON helpers shared by the topology and schedule readers. Included by
// io/*.cpp only, to keep nlohmann's compile cost out of every other translation unit.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace phasecheck::io::detail {

using Json = nlohmann::json;

/// "file.json:3:14: <what>" from a nlohmann parse error (which knows line and column).
[[noreturn]] void throw_syntax_error(std::string_view source, const nlohmann::json::exception& e);
/// "file.json: <path>: <what>".
[[noreturn]] void throw_at(std::string_view source, std::string_view path, const std::string& what);

std::string type_name(const Json& j);

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
