#pragma once
/// Resource limits of one phasecheck run, checked before work: the size of an input file and the
/// memory a command may ask for. Both defaults are documented in docs/limits.md; the command
/// line raises them (--max-input-size, --max-memory). Also the validation of numeric options
/// that every command shares, and checked arithmetic for sizes that multiply.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace phasecheck {

struct Limits {
  /// Largest input file read, in bytes (default 1 GiB).
  std::uint64_t max_input_bytes = std::uint64_t(1) << 30;
  /// Largest memory one data structure sized from an input may take, in bytes (default a
  /// quarter of the machine's physical memory).
  std::uint64_t max_memory_bytes = default_max_memory();

  static std::uint64_t default_max_memory();
};

/// The limits in force for this process: the defaults until set_limits is called (by the command
/// line, once, before any command runs).
const Limits& limits();
void set_limits(const Limits& l);

/// Throws InputError when `bytes` exceeds the memory limit: "`what` needs 4.2 GiB, more than the
/// memory limit of 2 GiB (raise it with --max-memory)". `bytes` empty means the product
/// overflowed 64 bits.
void check_memory(std::optional<std::uint64_t> bytes, std::string_view what);

/// a * b, or empty on overflow; chains through empties.
std::optional<std::uint64_t> checked_mul(std::optional<std::uint64_t> a,
                                         std::optional<std::uint64_t> b);
std::optional<std::uint64_t> checked_add(std::optional<std::uint64_t> a,
                                         std::optional<std::uint64_t> b);

/// "1.5 GiB", "512 MiB", "300 bytes".
std::string format_bytes(std::uint64_t bytes);

/// A --timeout value: positive, finite, at most a day. Throws InputError naming `option`.
void check_timeout(double seconds, std::string_view option = "--timeout");

/// A command that works on at most `max` ranks refuses a larger machine before any work:
/// "`command` works on at most 12 ranks; this machine has 8192 (use `instead` for ...)".
void check_ranks(std::uint64_t ranks, std::uint64_t max, std::string_view command,
                 std::string_view instead);

}  // namespace phasecheck
