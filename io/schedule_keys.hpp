#pragma once
// Internal to io/: the keys of a phase, a transfer and an op of a schedule file (docs/formats.md),
// and the set of them an object has given so far. Shared by the SAX reader (io/schedule_sax.cpp)
// and its fast path (io/phase_scanner.cpp), so that both name a key the same way.

#include <array>
#include <cstddef>

namespace phasecheck::io::detail {

/// A phase: "label", and "transfers" (versions 1 and 2) or "ops" (version 3).
enum class PhaseKey { label, transfers, ops };
/// A transfer (versions 1 and 2).
enum class TransferKey { src, dst, blocks };
/// An op (version 3): a send has "src" and "dst", a local copy "rank"; both "from", "to", "count".
enum class OpKey { src, dst, rank, count, from, to };

/// An op's keys as written, in the order of OpKey.
inline constexpr std::array<const char*, 6> kOpKeyNames = {"src",   "dst",  "rank",
                                                           "count", "from", "to"};
inline constexpr const char* name(OpKey k) { return kOpKeyNames[static_cast<std::size_t>(k)]; }

/// The keys of one object read so far (each at most once). A bit set over `Key`'s enumerators:
/// a copy costs what an unsigned does, which matters on the scanner's hot path.
template <class Key>
class KeySet {
 public:
  constexpr bool has(Key k) const { return (bits_ & bit(k)) != 0; }
  /// Adds `k`; false when it was there already (a key given twice).
  constexpr bool add(Key k) {
    if (has(k)) return false;
    bits_ |= bit(k);
    return true;
  }
  constexpr bool empty() const { return bits_ == 0; }

 private:
  static constexpr unsigned bit(Key k) { return 1u << static_cast<unsigned>(k); }
  unsigned bits_ = 0;
};

}  // namespace phasecheck::io::detail
