#include "record/elements.hpp"

#include <cstring>
#include <sstream>

namespace phasecheck::record {

std::optional<Element> decode(std::uint64_t word) {
  if (word >> 56 != kTagMark) return std::nullopt;
  return Element{static_cast<Rank>(word >> 40 & 0xFFFF), static_cast<Rank>(word >> 24 & 0xFFFF),
                 static_cast<std::uint32_t>(word & 0xFFFFFF)};
}

std::uint64_t word_at(std::span<const std::uint8_t> bytes, std::size_t at) {
  std::uint64_t w = 0;
  std::memcpy(&w, bytes.data() + at, sizeof w);
  return w;
}

std::string describe(const Element& e) {
  return "(" + std::to_string(e.origin) + "," +
         (e.dest == kAnyDest ? std::string("*") : std::to_string(e.dest)) + "," +
         std::to_string(e.index) + ")";
}

std::string describe_word(std::uint64_t word) {
  if (const auto e = decode(word)) return describe(*e);
  std::ostringstream os;
  os << "0x" << std::hex << word;
  const auto all = [&](std::uint8_t b) {
    for (int i = 0; i < 8; ++i)
      if ((word >> (8 * i) & 0xFF) != b) return false;
    return true;
  };
  if (all(kGuardByte)) os << " (guard bytes)";
  else if (all(kUnwrittenByte)) os << " (never written)";
  else os << " (not an element)";
  return os.str();
}

Element sent_element(Collective c, Rank rank, std::uint32_t count, std::uint64_t i) {
  if (c == Collective::allgather) return {rank, kAnyDest, static_cast<std::uint32_t>(i)};
  return {rank, static_cast<Rank>(i / count), static_cast<std::uint32_t>(i % count)};
}

Element expected_element(Collective c, Rank rank, std::uint32_t count, std::uint64_t i) {
  const Rank s = static_cast<Rank>(i / count);
  const auto k = static_cast<std::uint32_t>(i % count);
  return c == Collective::allgather ? Element{s, kAnyDest, k} : Element{s, rank, k};
}

}  // namespace phasecheck::record
