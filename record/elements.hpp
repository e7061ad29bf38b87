#pragma once
/// The identity every recorded element carries: 8 bytes that say whose data it is and where it
/// must end up, so that a payload or a buffer decodes into exactly the elements it holds
/// (docs/record.md, "Elements"). The driver (record/driver.c) writes them; these are the one
/// decoder and the one statement of what each buffer holds before and after the collective.

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "core/schedule.hpp"

namespace phasecheck::record {

/// Element k of the block origin -> dest (allgather: dest is kAnyDest, the block is origin's
/// contribution).
struct Element {
  Rank origin = 0;
  Rank dest = 0;
  std::uint32_t index = 0;
  friend bool operator==(const Element&, const Element&) = default;
};

inline constexpr Rank kAnyDest = 0xFFFF;
inline constexpr std::uint64_t kTagMark = 0xE7;
/// A byte that no described data holds: around every buffer and in the holes of its type.
inline constexpr std::uint8_t kGuardByte = 0xCD;
/// The bytes of a receive element nobody has written yet.
inline constexpr std::uint8_t kUnwrittenByte = 0xDB;

constexpr std::uint64_t tag(const Element& e) {
  return kTagMark << 56 | std::uint64_t{e.origin} << 40 | std::uint64_t{e.dest} << 24 | e.index;
}

/// The element `word` is, or empty when it is not one (guard bytes, unwritten bytes, garbage).
std::optional<Element> decode(std::uint64_t word);

/// The 8-byte word at `bytes[at]` (native byte order, as the driver wrote it).
std::uint64_t word_at(std::span<const std::uint8_t> bytes, std::size_t at);

/// "(2,5,3)" for element 3 of the block 2 -> 5, "(2,*,3)" for allgather; the raw word in hex
/// when it is not an element ("0xcdcdcdcdcdcdcdcd (guard bytes)").
std::string describe_word(std::uint64_t word);
std::string describe(const Element& e);

/// Element i of rank `rank`'s send buffer (MPI order: d*count + k; allgather: k).
Element sent_element(Collective c, Rank rank, std::uint32_t count, std::uint64_t i);
/// What element i of rank `rank`'s receive buffer must hold when the collective has returned
/// (s*count + k: (s, rank, k); allgather: (s, *, k)).
Element expected_element(Collective c, Rank rank, std::uint32_t count, std::uint64_t i);

}  // namespace phasecheck::record
