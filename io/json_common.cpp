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

void throw_json_error(std::string_view source, const nlohmann::detail::position_t& at,
                      const std::string& token, const nlohmann::json::exception& e,
                      std::string_view text) {
  if (dynamic_cast<const nlohmann::json::parse_error*>(&e)) throw_syntax_error(source, e);
  // Where the token starts: counted in the text when we have it; else from the parser's line and
  // column, which are past the token (and lose the column when a newline followed it).
  std::string where;
  if (at.chars_read_total >= token.size() && at.chars_read_total <= text.size()) {
    const std::size_t start = at.chars_read_total - token.size();
    const std::size_t line = 1 + std::count(text.begin(), text.begin() + start, '\n');
    const std::size_t line_start = text.rfind('\n', start == 0 ? 0 : start - 1);
    const std::size_t column =
        start == 0 ? 1 : start - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    where = std::to_string(line) + ":" + std::to_string(column);
  } else if (at.chars_read_current_line >= token.size() && at.chars_read_current_line > 0) {
    where = std::to_string(at.lines_read + 1) + ":" +
            std::to_string(at.chars_read_current_line - token.size() + 1);
  } else {
    where = std::to_string(at.lines_read + 1);
  }
  // out_of_range.406: "number overflow parsing '1e400'".
  std::string what = e.what();
  if (const auto bracket = what.find("] "); bracket != std::string::npos) what.erase(0, bracket + 2);
  if (const auto quote = what.find('\''); what.starts_with("number overflow") &&
                                          quote != std::string::npos)
    what = "number out of range: " + what.substr(quote + 1, what.size() - quote - 2);
  throw InputError(std::string(source) + ":" + where + ": invalid JSON: " + what);
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

namespace {

/// nlohmann's DOM builder, told where an error is (see throw_json_error).
class DomParser : public nlohmann::detail::json_sax_dom_callback_parser<Json> {
 public:
  DomParser(Json& result, const Json::parser_callback_t& on_value, std::string_view source,
            std::string_view text)
      : json_sax_dom_callback_parser(result, on_value, true), source_(source), text_(text) {}
  // The SAX interface's own signature, required by sax_parse's static checks; the parser calls
  // the overload below, which takes its position_t without conversion.
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) {
    throw_syntax_error(source_, e);
  }
  bool parse_error(const nlohmann::detail::position_t& at, const std::string& token,
                   const nlohmann::json::exception& e) {
    throw_json_error(source_, at, token, e, text_);
  }

 private:
  std::string_view source_, text_;
};

}  // namespace

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
  Json result;
  DomParser parser(result, guard, source, text);
  Json::sax_parse(text, &parser, nlohmann::json::input_format_t::json, /*strict=*/true);
  return result;
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
