#pragma once
// What the fuzz targets share: the input as text, and how a finding that is not a crash (a broken
// round trip, an exception other than InputError) is reported. libFuzzer turns the abort into a
// crash report and writes the input to crash-<sha1>.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace phasecheck::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Reports a finding and aborts; `detail` may be long (a whole document).
[[noreturn]] inline void finding(std::string_view what, std::string_view detail = {}) {
  std::fprintf(stderr, "\nFINDING: %.*s\n", static_cast<int>(what.size()), what.data());
  if (!detail.empty())
    std::fprintf(stderr, "%.*s\n", static_cast<int>(detail.size()), detail.data());
  std::abort();
}

}  // namespace phasecheck::fuzz
