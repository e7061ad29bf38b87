#include "core/parameters.hpp"

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

const std::string* Parameters::find(std::string_view key) const {
  const auto it = values_.find(key);
  return it == values_.end() ? nullptr : &it->second;
}

}  // namespace phasecheck
