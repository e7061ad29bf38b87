#pragma once
/// Algorithm parameters as the user gives them (`--set key=value`): text, keyed by name. What an
/// algorithm accepts, and the typed reading of each value, is its declaration's
/// (core/parameter_spec.hpp).

#include <map>
#include <span>
#include <string>
#include <string_view>

namespace phasecheck {

class Parameters {
 public:
  Parameters() = default;

  /// Parses each "key=value"; throws InputError on a missing '=', an empty key or a repeated key.
  static Parameters parse(std::span<const std::string> assignments);

  void set(const std::string& key, std::string value);
  bool has(std::string_view key) const { return values_.find(key) != values_.end(); }
  /// The value given for `key`, or nullptr.
  const std::string* find(std::string_view key) const;
  const std::map<std::string, std::string, std::less<>>& entries() const { return values_; }

  friend bool operator==(const Parameters&, const Parameters&) = default;

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace phasecheck
