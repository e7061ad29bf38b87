#pragma once
/// An algorithm's parameters, declared once: name, type, default and help. Validation
/// (check_parameters), typed reading (read_uint, read_bool, read_choice, read_text), help text
/// (describe) and the property generators all read the same declaration, so a range or a default
/// is stated in one place.
///
///   constexpr ParameterSpec kRadix{"radix", UInt{2, RankCount{}}, Fixed{"2"}, "r: digits ..."};
///   check_parameters(header.parameters, kSpecs, p, "bruck-index");  // every key, every value
///   const auto r = read_uint(header.parameters, kRadix, p);          // 2 when absent

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "core/parameters.hpp"
#include "core/topology.hpp"

namespace phasecheck {

/// p, the machine's rank count, as a bound of a range.
struct RankCount {};
/// An end of an unsigned range: a number, or p. Implicit, so that ranges read UInt{2, RankCount{}}.
struct RangeBound {
  constexpr RangeBound(std::uint64_t n) : number(n) {}
  constexpr RangeBound(RankCount) : is_rank_count(true) {}
  std::uint64_t number = 0;
  bool is_rank_count = false;  ///< p, not `number`
  friend bool operator==(const RangeBound&, const RangeBound&) = default;
};

/// An unsigned integer in [min, max]. A bound that depends on p never falls below `min`: radix in
/// [2, p] is [2, 2] on one rank.
struct UInt {
  RangeBound min = 0;
  RangeBound max = 0;
  friend bool operator==(const UInt&, const UInt&) = default;
};
/// true or false.
struct Boolean {
  friend bool operator==(Boolean, Boolean) = default;
};
/// One of a few names, in the order help lists them.
struct Choice {
  std::span<const std::string_view> values;
  friend bool operator==(const Choice& a, const Choice& b);
};
/// Text the algorithm parses itself (a switch's name, a permutation); `form` names it in help.
struct Text {
  std::string_view form;  ///< "SWITCH", "PERMUTATION"
  friend bool operator==(const Text&, const Text&) = default;
};
using ParameterType = std::variant<UInt, Boolean, Choice, Text>;

/// A default in the parameter's own syntax: "2", "false", "alltoall".
struct Fixed {
  std::string_view value;
  friend bool operator==(const Fixed&, const Fixed&) = default;
};
/// A default the algorithm works out itself, from the machine or from other parameters, described
/// in words for help: "the machine's ports".
struct InWords {
  std::string_view description;
  friend bool operator==(const InWords&, const InWords&) = default;
};
using ParameterDefault = std::variant<Fixed, InWords>;

struct ParameterSpec {
  std::string_view name;
  ParameterType type;
  ParameterDefault fallback;  ///< the value when the parameter is not given
  std::string_view help;      ///< one line: what it means, in the paper's terms
  friend bool operator==(const ParameterSpec&, const ParameterSpec&) = default;
};
/// Prints describe(spec).
std::ostream& operator<<(std::ostream& os, const ParameterSpec& spec);

/// The spec called `name` in `specs`, or nullptr.
const ParameterSpec* find_spec(std::span<const ParameterSpec> specs, std::string_view name);

/// [min, max] of `type` on a machine of `ranks` ranks.
std::pair<std::uint64_t, std::uint64_t> range_on(const UInt& type, Rank ranks);

/// Throws InputError unless every key of `given` is declared in `specs` ("ring has no parameter
/// 'bidirectonal'; did you mean 'bidirectional'? (it takes: collective, bidirectional)") and every
/// value fits its declaration on a machine of `ranks` ranks (the message names key, value and
/// range). `owner` names the algorithm. Text values are the algorithm's to check.
void check_parameters(const Parameters& given, std::span<const ParameterSpec> specs, Rank ranks,
                      std::string_view owner);

/// The value of an unsigned `spec` in `given`, or its Fixed default when absent. Throws InputError
/// when the value is not an integer in the spec's range on `ranks` ranks; std::logic_error when
/// `spec` is not an unsigned integer with a Fixed default (a mistake in the declaration's use).
std::uint64_t read_uint(const Parameters& given, const ParameterSpec& spec, Rank ranks);
/// The same for a default InWords: `worked_out` (the algorithm's value for it) when absent.
std::uint64_t read_uint(const Parameters& given, const ParameterSpec& spec, Rank ranks,
                        std::uint64_t worked_out);
/// The value of a Boolean `spec`, or its Fixed default.
bool read_bool(const Parameters& given, const ParameterSpec& spec);
/// The value of a Choice `spec`, or its Fixed default.
std::string read_choice(const Parameters& given, const ParameterSpec& spec);
/// The text of a Text `spec`; nullopt when absent (its default is InWords: the algorithm's).
std::optional<std::string> read_text(const Parameters& given, const ParameterSpec& spec);

/// One line of help: "radix=2..p (default 2)", "collective=alltoall|allgather (default alltoall)",
/// "ports=1..8192 (default: the machine's ports)", "root=SWITCH (default: ...)". A choice of one
/// value shows no default.
std::string describe(const ParameterSpec& spec);

}  // namespace phasecheck
