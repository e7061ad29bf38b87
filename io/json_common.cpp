#include "io/json_common.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace phasecheck::io::detail {

void throw_syntax_error(std::string_view source, const nlohmann::json::exception& e) {
  // nlohmann's text: "[json.exception.parse_error.101] parse error at line 3, column 14: ...".
  std::string text = e.what();
  if (const auto bracket = text.find("] ");
      text.starts_with("[json.exception") && bracket != std::string::npos)
    text.erase(0, bracket + 2);
  unsigned line = 0, column = 0;
  if (const auto at = text.find(" at line ");
      at != std::string::npos &&
      std::sscanf(text.c_str() + at, " at line %u, column %u", &line, &column) == 2) {
    const auto colon = text.find(": ", at);
    const std::string rest = colon == std::string::npos ? text : text.substr(colon + 2);
    throw InputError(std::string(source) + ":" + std::to_string(line) + ":" +
                     std::to_string(column) + ": invalid JSON: " + rest);
  }
  throw InputError(std::string(source) + ": invalid JSON: " + text);
}

void throw_at(std::string_view source, std::string_view path, const std::string& what) {
  throw InputError(std::string(source) + ": " + (path.empty() ? "" : std::string(path) + ": ") +
                   what);
}

std::string type_name(const Json& j) {
  if (j.is_number_integer() && j.get<std::int64_t>() < 0) return "a negative number";
  if (j.is_number_float()) return "a non-integer or out-of-range number";
  const std::string name = j.type_name();
  return (name.find_first_of("aeiou") == 0 ? "an " : "a ") + name;
}

namespace {

std::string join(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : std::string(path) + "." + std::string(key);
}

}  // namespace

Field Field::at(std::string_view key) const {
  if (!value.is_object()) fail("expected an object, got " + type_name(value));
  const auto it = value.find(key);
  if (it == value.end()) fail("missing \"" + std::string(key) + "\"");
  return {*it, source, join(path, key)};
}

Field Field::at(std::size_t index) const {
  return {value.at(index), source, path + "[" + std::to_string(index) + "]"};
}

void Field::expect_object(std::initializer_list<std::string_view> known) const {
  if (!value.is_object()) fail("expected an object, got " + type_name(value));
  for (const auto& [key, v] : value.items())
    if (std::find(known.begin(), known.end(), key) == known.end())
      fail("unknown key \"" + key + "\"");
}

const Json::array_t& Field::array() const {
  if (!value.is_array()) fail("expected an array, got " + type_name(value));
  return value.get_ref<const Json::array_t&>();
}

std::string Field::string() const {
  if (!value.is_string()) fail("expected a string, got " + type_name(value));
  std::string s = value.get<std::string>();
  if (s.find('\0') != std::string::npos) fail("a string with a NUL character (\\u0000)");
  return s;
}

Json parse_document(std::string_view text, std::string_view source) {
  // Keys of the objects being parsed, innermost last; arrays push an empty set to keep the
  // stack aligned with the nesting.
  std::vector<std::set<std::string, std::less<>>> keys;
  const Json::parser_callback_t guard = [&](int depth, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
      case Json::parse_event_t::array_start:
        if (static_cast<std::size_t>(depth) >= kMaxDepth)
          throw InputError(std::string(source) + ": nested deeper than " +
                           std::to_string(kMaxDepth) + " levels");
        keys.emplace_back();
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        keys.pop_back();
        break;
      case Json::parse_event_t::key:
        if (!keys.back().insert(parsed.get<std::string>()).second)
          throw InputError(std::string(source) + ": the key \"" + parsed.get<std::string>() +
                           "\" appears twice in one object");
        break;
      case Json::parse_event_t::value:
        break;
    }
    return true;
  };
  try {
    return Json::parse(text, guard);
  } catch (const Json::parse_error& e) {
    throw_syntax_error(source, e);
  }
}

std::uint64_t Field::uint(std::uint64_t max) const {
  if (!value.is_number_unsigned()) fail("expected a non-negative integer, got " + type_name(value));
  const auto v = value.get<std::uint64_t>();
  if (v > max) fail(std::to_string(v) + " is too large (at most " + std::to_string(max) + ")");
  return v;
}

bool Field::boolean() const {
  if (!value.is_boolean()) fail("expected true or false, got " + type_name(value));
  return value.get<bool>();
}

}  // namespace phasecheck::io::detail
