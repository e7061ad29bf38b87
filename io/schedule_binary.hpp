#pragma once
/// The binary schedule stream (docs/formats.md, "Binary stream"): for external generators at
/// scale, where JSON's text is most of the cost. A phase table (formats 1 and 2) as
///
///   magic "PCSB", u32 version (1),
///   u32 n, n bytes: the header as a JSON schedule document with "phases": [] (io/json.hpp),
///   per phase: u32 label length L (< 2^31), L bytes of label (UTF-8), u32 transfers T, then T
///     records u32 src, u32 dst, u32 B and B blocks of u32 origin, u32 dest, u32 part
///     (B = 0: the direct block [src, dst]; allgather blocks have dest 0xFFFFFFFF),
///   end: u32 0xFFFFFFFF, u64 the number of phases.
///
/// All integers little-endian. The reader streams: memory is one phase, whatever the stream's
/// length; nothing is allocated from a count before its bytes have arrived. A stream that ends
/// early, or whose end record disagrees with the phases read, is an InputError naming the byte
/// offset. Same phases, same bytes.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string_view>

#include "core/schedule.hpp"

namespace phasecheck::io {

inline constexpr std::string_view kBinaryMagic = "PCSB";
inline constexpr std::uint32_t kBinaryVersion = 1;

/// Whether the stream starts with the binary magic (nothing consumed).
bool binary_ahead(std::istream& in);

/// Streams a binary schedule: on_header once, then on_phase for each phase, in order.
void read_binary_schedule(std::istream& in, std::string_view source,
                          const std::function<void(const ScheduleHeader&)>& on_header,
                          const PhaseSink& on_phase);

/// Writes the stream as phases are generated. Phase tables only: a buffer program (format 3)
/// is InputError (it stays JSON).
class BinaryScheduleWriter {
 public:
  BinaryScheduleWriter(std::ostream& out, const ScheduleHeader& header);
  void phase(const Phase& phase);
  PhaseSink sink() {
    return [this](const Phase& p) { phase(p); };
  }
  /// The end record; call once after the last phase.
  void finish();

 private:
  std::ostream& out_;
  Collective collective_;
  std::uint64_t phases_ = 0;
  std::string buffer_;
};

}  // namespace phasecheck::io
