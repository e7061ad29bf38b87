#include "core/limits.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace phasecheck {
namespace {

Limits g_limits;

}  // namespace

std::uint64_t Limits::default_max_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return std::uint64_t(2) << 30;  // unknown: a modest 2 GiB
  return std::uint64_t(pages) * std::uint64_t(page) / 4;
}

const Limits& limits() { return g_limits; }
void set_limits(const Limits& l) { g_limits = l; }

std::optional<std::uint64_t> checked_mul(std::optional<std::uint64_t> a,
                                         std::optional<std::uint64_t> b) {
  std::uint64_t r = 0;
  if (!a || !b || __builtin_mul_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}

std::optional<std::uint64_t> checked_add(std::optional<std::uint64_t> a,
                                         std::optional<std::uint64_t> b) {
  std::uint64_t r = 0;
  if (!a || !b || __builtin_add_overflow(*a, *b, &r)) return std::nullopt;
  return r;
}

std::string format_bytes(std::uint64_t bytes) {
  static const char* const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  double v = double(bytes);
  int u = -1;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g %s", v, units[u]);
  return text;
}

void check_memory(std::optional<std::uint64_t> bytes, std::string_view what) {
  const std::uint64_t limit = limits().max_memory_bytes;
  if (bytes && *bytes <= limit) return;
  throw InputError(std::string(what) + " needs " +
                   (bytes ? format_bytes(*bytes) : std::string("more than 2^64 bytes")) +
                   ", more than the memory limit of " + format_bytes(limit) +
                   " (raise it with --max-memory)");
}

void check_timeout(double seconds, std::string_view option) {
  if (!(seconds > 0) || !std::isfinite(seconds) || seconds > 86400)
    throw InputError(std::string(option) +
                     " must be a positive number of seconds (at most a day)");
}

void check_ranks(std::uint64_t ranks, std::uint64_t max, std::string_view command,
                 std::string_view instead) {
  if (ranks <= max) return;
  throw InputError(std::string(command) + " works on at most " + std::to_string(max) +
                   " ranks; this machine has " + std::to_string(ranks) +
                   (instead.empty() ? std::string() : " (" + std::string(instead) + ")"));
}

}  // namespace phasecheck
