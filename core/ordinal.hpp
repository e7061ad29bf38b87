#pragma once
/// English ordinals for messages: "1st", "2nd", "3rd", "4th", "11th", "22nd".

#include <cstdint>
#include <string>

namespace phasecheck {

inline std::string ordinal(std::uint64_t n) {
  const std::uint64_t tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : n % 10 == 1              ? "st"
                       : n % 10 == 2              ? "nd"
                       : n % 10 == 3              ? "rd"
                                                  : "th";
  return std::to_string(n) + suffix;
}

}  // namespace phasecheck
