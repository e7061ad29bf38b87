#include "core/parameters.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace phasecheck {

Parameters Parameters::parse(std::span<const std::string> assignments) {
  Parameters p;
  for (const std::string& a : assignments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("parameter '" + a + "' is not of the form key=value");
    p.set(a.substr(0, eq), a.substr(eq + 1));
  }
  return p;
}

void Parameters::set(const std::string& key, std::string value) {
  if (key.empty()) throw InputError("parameter with an empty name");
  if (!values_.emplace(key, std::move(value)).second)
    throw InputError("parameter '" + key + "' is given twice");
}

void Parameters::expect_only(std::initializer_list<std::string_view> known,
                             std::string_view owner) const {
  for (const auto& [key, value] : values_) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    throw InputError(std::string(owner) + " has no parameter '" + key + "'" +
                     (list.empty() ? " (it takes none)" : " (it takes: " + list + ")"));
  }
}

std::uint64_t Parameters::get_uint(std::string_view key, std::uint64_t fallback, std::uint64_t min,
                                   std::uint64_t max) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  const std::string& text = it->second;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
    throw InputError("parameter " + std::string(key) + "=" + text + ": expected an integer in [" +
                     std::to_string(min) + ", " + std::to_string(max) + "]");
  return value;
}

bool Parameters::get_bool(std::string_view key, bool fallback) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  if (it->second == "true") return true;
  if (it->second == "false") return false;
  throw InputError("parameter " + std::string(key) + "=" + it->second + ": expected true or false");
}

std::string Parameters::get_choice(std::string_view key, std::string_view fallback,
                                   std::initializer_list<std::string_view> allowed) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return std::string(fallback);
  if (std::find(allowed.begin(), allowed.end(), it->second) != allowed.end()) return it->second;
  std::string list;
  for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  throw InputError("parameter " + std::string(key) + "=" + it->second + ": expected one of " +
                   list);
}

}  // namespace phasecheck
