#include "core/parameter_spec.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <ostream>
#include <stdexcept>
#include <vector>

#include "core/error.hpp"
#include "core/overloaded.hpp"
#include "core/suggest.hpp"

namespace phasecheck {
namespace {

std::uint64_t resolve(const RangeBound& bound, Rank ranks) {
  return bound.is_rank_count ? ranks : bound.number;
}

/// "p" or the number; large powers of two as "2^40", the largest value as "2^64-1".
std::string show(const RangeBound& bound) {
  const std::uint64_t n = bound.number;
  if (bound.is_rank_count) return "p";
  if (n == UINT64_MAX) return "2^64-1";
  if (n >= (1u << 16) && std::has_single_bit(n)) return "2^" + std::to_string(std::countr_zero(n));
  return std::to_string(n);
}

std::string joined(std::span<const std::string_view> words, std::string_view separator) {
  std::string out;
  for (std::string_view w : words)
    out += (out.empty() ? "" : std::string(separator)) + std::string(w);
  return out;
}

[[noreturn]] void misused(const ParameterSpec& spec, std::string_view reader) {
  throw std::logic_error(std::string(reader) + " on parameter '" + std::string(spec.name) +
                         "', declared as " + describe(spec));
}

std::string_view fixed_default(const ParameterSpec& spec, std::string_view reader) {
  const auto* fixed = std::get_if<Fixed>(&spec.fallback);
  if (!fixed) misused(spec, reader);
  return fixed->value;
}

std::uint64_t parse_uint(const ParameterSpec& spec, const UInt& type, std::string_view text,
                         Rank ranks) {
  const auto [min, max] = range_on(type, ranks);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size() && value >= min && value <= max)
    return value;
  std::string message = "parameter " + std::string(spec.name) + "=" + std::string(text) +
                        ": expected an integer in [" + std::to_string(min) + ", " +
                        std::to_string(max) + "]";
  if (type.min.is_rank_count || type.max.is_rank_count)
    message +=
        " (" + show(type.min) + ".." + show(type.max) + ", p = " + std::to_string(ranks) + ")";
  throw InputError(message);
}

bool parse_bool(const ParameterSpec& spec, std::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  throw InputError("parameter " + std::string(spec.name) + "=" + std::string(text) +
                   ": expected true or false");
}

std::string parse_choice(const ParameterSpec& spec, const Choice& type, std::string_view text) {
  if (std::find(type.values.begin(), type.values.end(), text) != type.values.end())
    return std::string(text);
  throw InputError("parameter " + std::string(spec.name) + "=" + std::string(text) +
                   ": expected one of " + joined(type.values, ", "));
}

/// Throws InputError unless `text` is a value of `spec` on `ranks` ranks.
void check_value(const ParameterSpec& spec, std::string_view text, Rank ranks) {
  std::visit(Overloaded{[&](const UInt& t) { parse_uint(spec, t, text, ranks); },
                        [&](Boolean) { parse_bool(spec, text); },
                        [&](const Choice& t) { parse_choice(spec, t, text); }, [](const Text&) {}},
             spec.type);
}

}  // namespace

bool operator==(const Choice& a, const Choice& b) {
  return std::equal(a.values.begin(), a.values.end(), b.values.begin(), b.values.end());
}

std::ostream& operator<<(std::ostream& os, const ParameterSpec& spec) {
  return os << describe(spec);
}

const ParameterSpec* find_spec(std::span<const ParameterSpec> specs, std::string_view name) {
  for (const ParameterSpec& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

std::pair<std::uint64_t, std::uint64_t> range_on(const UInt& type, Rank ranks) {
  const std::uint64_t min = resolve(type.min, ranks);
  return {min, std::max(min, resolve(type.max, ranks))};
}

void check_parameters(const Parameters& given, std::span<const ParameterSpec> specs, Rank ranks,
                      std::string_view owner) {
  for (const auto& [key, value] : given.entries()) {
    if (const ParameterSpec* spec = find_spec(specs, key)) {
      check_value(*spec, value, ranks);
      continue;
    }
    std::vector<std::string> names;
    for (const ParameterSpec& s : specs) names.emplace_back(s.name);
    std::string message = std::string(owner) + " has no parameter '" + key + "'";
    if (const auto guess = closest(key, names)) message += "; did you mean '" + *guess + "'?";
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InputError(message + (list.empty() ? " (it takes none)" : " (it takes: " + list + ")"));
  }
}

std::uint64_t read_uint(const Parameters& given, const ParameterSpec& spec, Rank ranks) {
  const std::string_view fallback = fixed_default(spec, "read_uint without a worked-out default");
  const auto* type = std::get_if<UInt>(&spec.type);
  if (!type) misused(spec, "read_uint");
  const std::string* text = given.find(spec.name);
  return parse_uint(spec, *type, text ? std::string_view(*text) : fallback, ranks);
}

std::uint64_t read_uint(const Parameters& given, const ParameterSpec& spec, Rank ranks,
                        std::uint64_t worked_out) {
  const auto* type = std::get_if<UInt>(&spec.type);
  if (!type || !std::holds_alternative<InWords>(spec.fallback))
    misused(spec, "read_uint with a worked-out default");
  const std::string* text = given.find(spec.name);
  return text ? parse_uint(spec, *type, *text, ranks) : worked_out;
}

bool read_bool(const Parameters& given, const ParameterSpec& spec) {
  const std::string_view fallback = fixed_default(spec, "read_bool");
  if (!std::holds_alternative<Boolean>(spec.type)) misused(spec, "read_bool");
  const std::string* text = given.find(spec.name);
  return parse_bool(spec, text ? std::string_view(*text) : fallback);
}

std::string read_choice(const Parameters& given, const ParameterSpec& spec) {
  const std::string_view fallback = fixed_default(spec, "read_choice");
  const auto* type = std::get_if<Choice>(&spec.type);
  if (!type) misused(spec, "read_choice");
  const std::string* text = given.find(spec.name);
  return parse_choice(spec, *type, text ? std::string_view(*text) : fallback);
}

std::optional<std::string> read_text(const Parameters& given, const ParameterSpec& spec) {
  if (!std::holds_alternative<Text>(spec.type)) misused(spec, "read_text");
  const std::string* text = given.find(spec.name);
  return text ? std::optional<std::string>(*text) : std::nullopt;
}

std::string describe(const ParameterSpec& spec) {
  std::string out = std::string(spec.name) + "=";
  std::visit(Overloaded{[&](const UInt& t) { out += show(t.min) + ".." + show(t.max); },
                        [&](Boolean) { out += "true|false"; },
                        [&](const Choice& t) { out += joined(t.values, "|"); },
                        [&](const Text& t) { out += t.form; }},
             spec.type);
  const auto* choice = std::get_if<Choice>(&spec.type);
  if (choice && choice->values.size() == 1) return out;  // nothing else to default to
  return out +
         std::visit(
             Overloaded{
                 [](const Fixed& f) { return " (default " + std::string(f.value) + ")"; },
                 [](const InWords& w) { return " (default: " + std::string(w.description) + ")"; }},
             spec.fallback);
}

}  // namespace phasecheck
