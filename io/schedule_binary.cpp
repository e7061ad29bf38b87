#include "io/schedule_binary.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <istream>
#include <ostream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "io/json.hpp"
#include "io/schedule_json_stream.hpp"

namespace phasecheck::io {
namespace {

constexpr std::uint32_t kEnd = 0xFFFFFFFFu;
/// The header is a few lines of JSON (its topology at most a graph's adjacency): a length beyond
/// this is a corrupt stream, refused before the bytes are read.
constexpr std::uint32_t kMaxHeaderBytes = 64u << 20;
constexpr std::uint32_t kMaxLabelBytes = 1u << 16;

void put32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

/// Reads little-endian integers and bytes through a 64 KiB buffer, counting the offset for
/// messages. Reading ahead is harmless: the stream is the schedule's alone.
class Reader {
 public:
  Reader(std::istream& in, std::string_view source) : in_(in), source_(source), buffer_(1 << 16) {}

  std::uint32_t u32(const char* what) {
    if (end_ - pos_ < 4) {
      std::array<char, 4> b{};
      bytes(b.data(), 4, what);
      return decode(b.data());
    }
    const std::uint32_t v = decode(buffer_.data() + pos_);
    pos_ += 4;
    offset_ += 4;
    return v;
  }
  std::uint64_t u64(const char* what) {
    const std::uint64_t lo = u32(what);
    return lo | std::uint64_t{u32(what)} << 32;
  }
  void bytes(char* to, std::size_t n, const char* what) {
    while (n > 0) {
      if (pos_ == end_ && !refill())
        fail(offset_, std::string("the stream ends early, in ") + what);
      const std::size_t step = std::min(n, end_ - pos_);
      std::memcpy(to, buffer_.data() + pos_, step);
      to += step;
      n -= step;
      pos_ += step;
      offset_ += step;
    }
  }
  /// n bytes, read (and allocated) 64 KiB at a time: a corrupt length costs what arrived.
  std::string text(std::uint32_t n, const char* what) {
    std::string s;
    while (s.size() < n) {
      const std::size_t at = s.size(), step = std::min<std::size_t>(n - at, 1u << 16);
      s.resize(at + step);
      bytes(s.data() + at, step, what);
    }
    return s;
  }
  bool at_end() { return pos_ == end_ && !refill(); }
  std::uint64_t offset() const { return offset_; }
  [[noreturn]] void fail(std::uint64_t at, const std::string& what) const {
    throw InputError(std::string(source_) + ": byte " + std::to_string(at) + ": " + what);
  }

 private:
  static std::uint32_t decode(const char* p) {
    const auto* b = reinterpret_cast<const unsigned char*>(p);
    return std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 |
           std::uint32_t{b[3]} << 24;
  }
  /// Moves what is left to the front and reads more; false at the end of the stream.
  bool refill() {
    std::memmove(buffer_.data(), buffer_.data() + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
    in_.read(buffer_.data() + end_, static_cast<std::streamsize>(buffer_.size() - end_));
    if (in_.bad()) throw InputError(std::string(source_) + ": read error");
    const auto got = static_cast<std::size_t>(in_.gcount());
    end_ += got;
    return got > 0;
  }

  std::istream& in_;
  std::string_view source_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0, end_ = 0;
  std::uint64_t offset_ = 0;
};

/// Whether `s` is UTF-8, as nlohmann JSON's strict serializer judges it (it throws otherwise).
bool valid_utf8(const std::string& s) {
  try {
    (void)nlohmann::json(s).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

}  // namespace

bool binary_ahead(std::istream& in) {
  return in.peek() == kBinaryMagic[0];  // never the first byte of JSON or XML
}

void read_binary_schedule(std::istream& in, std::string_view source,
                          const std::function<void(const ScheduleHeader&)>& on_header,
                          const PhaseSink& on_phase) {
  Reader r(in, source);
  const std::string magic = r.text(4, "the magic number");
  if (magic != kBinaryMagic) r.fail(0, "not a binary schedule stream (magic PCSB expected)");
  if (const auto v = r.u32("the version"); v != kBinaryVersion)
    r.fail(4, "version " + std::to_string(v) + " (this phasecheck reads version " +
                  std::to_string(kBinaryVersion) + ")");
  const std::uint32_t length = r.u32("the header's length");
  if (length > kMaxHeaderBytes)
    r.fail(8, "a header of " + std::to_string(length) + " bytes (at most " +
                  std::to_string(kMaxHeaderBytes) + ")");
  const std::string json = r.text(length, "the header");
  // The header is JSON and only JSON: read by the JSON reader itself, never by read_schedule's
  // sniffing, which would take a header that is itself a binary stream (or XML) and recurse on
  // a depth the input chooses.
  if (const auto first = json.find_first_not_of(" \t\r\n");
      first == std::string::npos || json[first] != '{')
    r.fail(12, "the header is not a JSON object (a schedule document with \"phases\": [])");
  std::optional<ScheduleHeader> header;
  {
    std::istringstream text(json);
    detail::read_json_schedule(
        text, std::string(source) + " (header)", [&](const ScheduleHeader& h) { header = h; },
        [&](const Phase&) { r.fail(12, "the header's document holds phases"); }, Tables::derive,
        {});
  }
  if (!header) r.fail(12, "the header's document has no schedule header");
  if (header->buffers)
    r.fail(12, "a buffer program (format 3): the binary stream carries phase tables only");
  on_header(*header);
  const Rank ranks = header->ranks();
  const Collective collective = header->collective;
  const Traffic* traffic = header->traffic ? &*header->traffic : nullptr;
  const Pieces pieces = header->pieces();

  Phase phase;
  std::vector<Block> blocks;
  std::uint64_t phases = 0;
  for (;;) {
    const std::uint64_t at = r.offset();
    const std::uint32_t label_length = r.u32("a phase's label length");
    if (label_length == kEnd) break;
    if (label_length > kMaxLabelBytes)
      r.fail(at, "phases[" + std::to_string(phases) + "]: a label of " +
                     std::to_string(label_length) + " bytes (at most " +
                     std::to_string(kMaxLabelBytes) + ")");
    phase.clear();
    phase.set_label(r.text(label_length, "a phase's label"));
    if (!valid_utf8(phase.label()))  // as the JSON reader requires of every string
      r.fail(at + 4, "phases[" + std::to_string(phases) + "]: the label is not UTF-8");
    const std::uint32_t transfers = r.u32("a phase's transfer count");
    for (std::uint32_t t = 0; t < transfers; ++t) {
      const std::uint64_t record = r.offset();
      const Rank src = r.u32("a transfer"), dst = r.u32("a transfer");
      const std::uint32_t count = r.u32("a transfer's block count");
      blocks.clear();
      if (count == 0 && src < ranks && dst < ranks)
        blocks.push_back(direct_block(collective, src, dst));
      for (std::uint32_t b = 0; b < count; ++b) {
        Block block;
        block.origin = r.u32("a block");
        block.dest = r.u32("a block");
        block.part = r.u32("a block");
        blocks.push_back(block);
      }
      phase.add(src, dst, blocks);
      const Transfer& added = phase[phase.size() - 1];
      if (const auto problem =
              transfer_problem(phase, added, collective, ranks, header->parts, traffic, pieces))
        r.fail(record, "phases[" + std::to_string(phases) + "].transfers[" + std::to_string(t) +
                           "]: " + *problem);
    }
    on_phase(phase);
    ++phases;
  }
  const std::uint64_t at = r.offset();
  const std::uint64_t declared = r.u64("the end record");
  if (declared != phases)
    r.fail(at, "the end record says " + std::to_string(declared) + " phases, the stream has " +
                   std::to_string(phases));
  if (!r.at_end()) r.fail(r.offset(), "bytes after the end record");
}

BinaryScheduleWriter::BinaryScheduleWriter(std::ostream& out, const ScheduleHeader& header)
    : out_(out), collective_(header.collective) {
  if (header.buffers)
    throw InputError(
        "a buffer program (format 3) is written as JSON: the binary stream carries "
        "phase tables only");
  std::ostringstream json;
  ScheduleWriter writer(json, header);
  writer.finish();
  buffer_ = kBinaryMagic;
  put32(buffer_, kBinaryVersion);
  put32(buffer_, static_cast<std::uint32_t>(json.str().size()));
  buffer_ += json.str();
  out_ << buffer_;
}

void BinaryScheduleWriter::phase(const Phase& p) {
  buffer_.clear();
  put32(buffer_, static_cast<std::uint32_t>(p.label().size()));
  buffer_ += p.label();
  put32(buffer_, static_cast<std::uint32_t>(p.size()));
  for (const Transfer& t : p.transfers()) {
    put32(buffer_, t.src);
    put32(buffer_, t.dst);
    const auto blocks = p.blocks(t);
    if (blocks.size() == 1 && blocks[0] == direct_block(collective_, t.src, t.dst)) {
      put32(buffer_, 0);
      continue;
    }
    put32(buffer_, static_cast<std::uint32_t>(blocks.size()));
    for (const Block& b : blocks) {
      put32(buffer_, b.origin);
      put32(buffer_, b.dest);
      put32(buffer_, b.part);
    }
  }
  out_ << buffer_;
  ++phases_;
}

void BinaryScheduleWriter::finish() {
  buffer_.clear();
  put32(buffer_, kEnd);
  put64(buffer_, phases_);
  out_ << buffer_;
  out_.flush();
}

}  // namespace phasecheck::io
