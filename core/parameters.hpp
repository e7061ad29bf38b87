#pragma once
/// Algorithm parameters as the user gives them (`--set key=value`), with typed accessors that
/// validate once at the boundary and name the bad key and value in the error.

#include <cstdint>
#include <initializer_list>
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
  const std::map<std::string, std::string, std::less<>>& entries() const { return values_; }

  /// Throws InputError unless every key is one of `known`: a typo must not pass silently.
  void expect_only(std::initializer_list<std::string_view> known, std::string_view owner) const;

  /// The value of `key` as an integer in [min, max], or `fallback` when absent.
  std::uint64_t get_uint(std::string_view key, std::uint64_t fallback, std::uint64_t min,
                         std::uint64_t max) const;
  bool get_bool(std::string_view key, bool fallback) const;
  /// The value of `key`, which must be one of `allowed`, or `fallback` when absent.
  std::string get_choice(std::string_view key, std::string_view fallback,
                         std::initializer_list<std::string_view> allowed) const;

  friend bool operator==(const Parameters&, const Parameters&) = default;

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

}  // namespace phasecheck
