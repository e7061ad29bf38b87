// The schedule reader's fast path: simdjson On Demand over a window of the file. Every rule here
// mirrors one of the SAX reader (io/schedule_sax.cpp) and only ever refuses what
// the SAX reader would accept: the SAX reader then reads that phase, so the phases delivered and
// the messages are the same whichever reads a phase. docs/formats.md is the specification.

#include "io/phase_scanner.hpp"

#include <simdjson.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/buffers.hpp"
#include "io/schedule_keys.hpp"

namespace phasecheck::io::detail {
namespace {

namespace od = simdjson::ondemand;
using namespace std::string_view_literals;  // a key compared with a string_view: a fixed-size
                                            // memcmp

static_assert(kScanPadding >= simdjson::SIMDJSON_PADDING + 2);

/// A number as the SAX reader takes it: a non-negative integer below `bound`. simdjson refuses
/// what nlohmann reads as another type (-0, 1.0, 1e2, integers beyond 64 bits). Inlined: it runs
/// twice a transfer, and the call cost a tenth of the scan.
[[gnu::always_inline]] inline bool read_below(od::value& v, std::uint64_t bound,
                                              std::uint32_t& out) {
  std::uint64_t x;
  if (v.get_uint64().get(x) || x >= bound) return false;
  out = static_cast<std::uint32_t>(x);
  return true;
}

[[gnu::always_inline]] inline bool read_rank(od::value& v, Rank& out) {
  return read_below(v, kMaxRanks, out);
}

/// Phase::add of a transfer of one block. The block is stored with its first 8 bytes at once:
/// Phase::add copies a block with an 8-byte load, which two 4-byte stores just before it (as
/// the compiler writes a Block) would stall, store forwarding failing: a third of Phase::add's
/// time, a tenth of the scan's.
[[gnu::always_inline]] inline void add_one(Phase& phase, Rank src, Rank dst, Block block) {
  static_assert(std::is_trivially_copyable_v<Block> && sizeof(Block) == 12 &&
                offsetof(Block, dest) == 4 && offsetof(Block, part) == 8);
  const std::uint64_t first = std::endian::native == std::endian::little
                                  ? std::uint64_t{block.origin} | std::uint64_t{block.dest} << 32
                                  : std::uint64_t{block.dest} | std::uint64_t{block.origin} << 32;
  Block stored;
  std::memcpy(static_cast<void*>(&stored), &first, sizeof first);
  stored.part = block.part;
  phase.add(src, dst, std::span<const Block>(&stored, 1));
}

/// "blocks": a non-empty array of [origin], [origin, destination], [origin, destination, part] or
/// [origin, null, part].
bool read_blocks(od::value& v, std::vector<Block>& blocks) {
  od::array array;
  if (v.get_array().get(array)) return false;
  for (auto element : array) {
    od::array block;
    if (element.error() || element.value_unsafe().get_array().get(block)) return false;
    Rank r[3] = {0, 0, 0};
    unsigned n = 0;
    for (auto number : block) {
      if (number.error() || n == 3) return false;
      if (!read_rank(number.value_unsafe(), r[n])) {
        // [origin, null, part] (an allgather's part): off the hot path, only after a non-number
        bool null = false;
        if (n != 1 || number.value_unsafe().is_null().get(null) || !null) return false;
        r[n] = kEveryRank;
      }
      ++n;
    }
    if (n == 0 || (n == 2 && r[1] == kEveryRank)) return false;
    blocks.push_back(n == 1   ? Block{r[0], kEveryRank}
                     : n == 2 ? Block{r[0], r[1]}
                              : Block{r[0], r[1], r[2]});
  }
  return !blocks.empty();
}

/// "transfers": objects with "src", "dst" and optional "blocks", each once. (Each object's key loop
/// is written out, here and below: a shared loop over a table of key names was 15% slower on
/// `verify` of a shift schedule, its compares no longer of fixed size.)
bool read_transfers(od::value& v, Collective collective, Phase& phase, std::vector<Block>& blocks) {
  od::array array;
  if (v.get_array().get(array)) return false;
  for (auto element : array) {
    od::object transfer;
    if (element.error() || element.value_unsafe().get_object().get(transfer)) return false;
    Rank src = 0, dst = 0;
    KeySet<TransferKey> keys;
    blocks.clear();
    for (auto member : transfer) {
      if (member.error()) return false;
      od::field& field = member.value_unsafe();
      const od::raw_json_string name = field.key();
      TransferKey key;
      if (name.unsafe_is_equal("src"sv))
        key = TransferKey::src;
      else if (name.unsafe_is_equal("dst"sv))
        key = TransferKey::dst;
      else if (name.unsafe_is_equal("blocks"sv))
        key = TransferKey::blocks;
      else
        return false;
      if (!keys.add(key)) return false;
      if (key == TransferKey::blocks
              ? !read_blocks(field.value(), blocks)
              : !read_rank(field.value(), key == TransferKey::src ? src : dst))
        return false;
    }
    if (!keys.has(TransferKey::src) || !keys.has(TransferKey::dst)) return false;
    if (keys.has(TransferKey::blocks))
      phase.add(src, dst, blocks);
    else
      add_one(phase, src, dst, direct_block(collective, src, dst));
  }
  return true;
}

/// "from" / "to": [buffer name, slot].
bool read_slot(od::value& v, Slot& slot) {
  od::array array;
  if (v.get_array().get(array)) return false;
  unsigned n = 0;
  for (auto element : array) {
    if (element.error()) return false;
    od::value& value = element.value_unsafe();
    if (n == 0) {
      std::string_view name;
      if (value.get_string().get(name)) return false;
      const auto buffer = parse_buffer(name);
      if (!buffer) return false;
      slot.buffer = *buffer;
    } else if (n != 1 || !read_below(value, std::uint64_t{kMaxSlots} + 1, slot.index)) {
      return false;
    }
    ++n;
  }
  return n == 2;
}

/// "ops" (format 3): sends {src, dst, from, to, count} and local copies {rank, from, to, count}.
bool read_ops(od::value& v, Phase& phase) {
  od::array array;
  if (v.get_array().get(array)) return false;
  for (auto element : array) {
    od::object object;
    if (element.error() || element.value_unsafe().get_object().get(object)) return false;
    BufferOp op{};
    KeySet<OpKey> keys;
    for (auto member : object) {
      if (member.error()) return false;
      od::field& field = member.value_unsafe();
      const od::raw_json_string name = field.key();
      OpKey key;
      if (name.unsafe_is_equal("src"sv))
        key = OpKey::src;
      else if (name.unsafe_is_equal("dst"sv))
        key = OpKey::dst;
      else if (name.unsafe_is_equal("rank"sv))
        key = OpKey::rank;
      else if (name.unsafe_is_equal("count"sv))
        key = OpKey::count;
      else if (name.unsafe_is_equal("from"sv))
        key = OpKey::from;
      else if (name.unsafe_is_equal("to"sv))
        key = OpKey::to;
      else
        return false;
      if (!keys.add(key)) return false;
      od::value& value = field.value();
      bool ok = true;
      switch (key) {
        case OpKey::src:
          ok = read_rank(value, op.src);
          break;
        case OpKey::dst:
          ok = read_rank(value, op.dst);
          break;
        case OpKey::rank:
          ok = read_rank(value, op.src);
          op.dst = op.src;
          break;
        case OpKey::count:
          ok = read_below(value, std::uint64_t{std::numeric_limits<std::uint32_t>::max()} + 1,
                          op.count) &&
               op.count > 0;
          break;
        case OpKey::from:
          ok = read_slot(value, op.from);
          break;
        case OpKey::to:
          ok = read_slot(value, op.to);
          break;
      }
      if (!ok) return false;
    }
    const bool send = keys.has(OpKey::src) || keys.has(OpKey::dst);
    if (send ? keys.has(OpKey::rank) || !keys.has(OpKey::src) || !keys.has(OpKey::dst) ||
                   op.src == op.dst
             : !keys.has(OpKey::rank))
      return false;
    if (!keys.has(OpKey::from) || !keys.has(OpKey::to)) return false;
    phase.add(op);
  }
  return true;
}

/// A phase: "label", and "transfers" or "ops", each once.
bool read_phase(od::value& v, Collective collective, Phase& phase, std::vector<Block>& blocks,
                bool& has_ops) {
  od::object object;
  if (v.get_object().get(object)) return false;
  phase.clear();
  KeySet<PhaseKey> keys;
  for (auto member : object) {
    if (member.error()) return false;
    od::field& field = member.value_unsafe();
    const od::raw_json_string name = field.key();
    PhaseKey key;
    if (name.unsafe_is_equal("transfers"sv))
      key = PhaseKey::transfers;
    else if (name.unsafe_is_equal("label"sv))
      key = PhaseKey::label;
    else if (name.unsafe_is_equal("ops"sv))
      key = PhaseKey::ops;
    else
      return false;
    if (!keys.add(key)) return false;
    od::value& value = field.value();
    bool ok = true;
    switch (key) {
      case PhaseKey::label: {
        std::string_view label;
        ok = !value.get_string().get(label);
        if (ok) phase.set_label(std::string(label));
        break;
      }
      case PhaseKey::transfers:
        ok = read_transfers(value, collective, phase, blocks);
        break;
      case PhaseKey::ops:
        ok = read_ops(value, phase);
        break;
    }
    if (!ok) return false;
  }
  // "transfers" or "ops", not both.
  if (keys.has(PhaseKey::transfers) == keys.has(PhaseKey::ops)) return false;
  has_ops = keys.has(PhaseKey::ops);
  return true;
}

/// The spelling phasecheck writes (io/schedule_json_writer.cpp), read byte by byte without
/// simdjson, which costs a third of the time on such a file: a phase {"label": "...",
/// "transfers": [...]} whose label is printable ASCII without escapes, and transfers {"src": s,
/// "dst": d} with an optional "blocks" last, keys in that order, any JSON whitespace between
/// tokens, numbers as read_below takes them (digits, no leading zero). That is a subset of JSON
/// that the SAX reader reads to the same phase, so a phase read here is valid as it is; anything
/// else (another order, an escape, a number spelled otherwise, an error) it stops at, and simdjson
/// reads on from the last phase delivered. The text ends with a sentinel '\0', which matches no
/// token: reading stops there, and a fixed compare that reaches it fails.
class PlainReader {
 public:
  explicit PlainReader(const char* p) : p_(p) {}
  const char* at() const { return p_; }

  /// `"phases"` ws ':' ws '[': the text's start at the key.
  bool phases_key() { return key("\"phases\""sv) && token('['); }

  /// Whitespace, then what follows a phase: ',' and another phase (true), or ']' (false, and
  /// `closed`). Anything else: false.
  bool another_phase(bool& closed) {
    whitespace();
    closed = *p_ == ']';
    if (*p_ != ',') return false;
    ++p_;
    whitespace();
    return true;
  }
  /// Whitespace, then what follows the '[': a phase (true), or ']' (false, and `closed`).
  bool first_phase(bool& closed) {
    whitespace();
    closed = *p_ == ']';
    return *p_ == '{';
  }

  /// A phase, from its '{' to its '}'.
  bool phase(Collective collective, Phase& phase, std::vector<Block>& blocks) {
    std::string_view label;
    if (!token('{') || !key("\"label\""sv) || !string(label) || !token(',') ||
        !key("\"transfers\""sv) || !token('['))
      return false;
    phase.clear();
    phase.set_label(std::string(label));
    whitespace();
    if (*p_ != ']') {
      for (;;) {
        if (!written_direct(collective, phase)) {
          whitespace();
          if (!written_direct(collective, phase) && !transfer(collective, phase, blocks))
            return false;
        }
        // The writer's ",\n      " between two transfers at once, else a token at a time.
        if (same8(p_, ",\n      ")) {
          p_ += 8;
          continue;
        }
        whitespace();
        if (*p_ != ',') break;
        ++p_;
        whitespace();
      }
    }
    return token(']') && token('}');
  }

 private:
  [[gnu::always_inline]] void whitespace() {
    while (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t') ++p_;
  }
  /// Whitespace, then `c`, which is passed.
  [[gnu::always_inline]] bool token(char c) {
    whitespace();
    if (*p_ != c) return false;
    ++p_;
    return true;
  }
  /// Whether the 8 bytes at `p` are the first 8 of `s`: one load and compare (memcmp, which
  /// the compiler may call rather than inline, cost a tenth of the scan).
  [[gnu::always_inline]] static bool same8(const char* p, const char* s) {
    std::uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, s, 8);
    return a == b;
  }
  /// Whitespace, the quoted key (which holds no '\0': the sentinel stops it), whitespace, ':'.
  [[gnu::always_inline]] bool key(std::string_view quoted) {
    whitespace();
    if (std::memcmp(p_, quoted.data(), quoted.size()) != 0) return false;
    p_ += quoted.size();
    return token(':');
  }
  /// A string of printable ASCII, no escape: its text is its value.
  bool string(std::string_view& out) {
    whitespace();
    if (*p_ != '"') return false;
    const char* start = ++p_;
    while (static_cast<unsigned char>(*p_ - 0x20) < 0x5f && *p_ != '"' && *p_ != '\\') ++p_;
    if (*p_ != '"') return false;
    out = std::string_view(start, static_cast<std::size_t>(p_ - start));
    ++p_;
    return true;
  }
  /// An integer below `bound` (at most 2^32), written as JSON writes it: "0", or digits from 1 to
  /// 9 and on, no sign, fraction or exponent (the token after it sees to that).
  [[gnu::always_inline]] bool below(std::uint64_t bound, std::uint32_t& out) {
    whitespace();
    unsigned digit = static_cast<unsigned char>(*p_) - unsigned{'0'};
    if (digit > 9) return false;
    std::uint64_t x = digit;
    ++p_;
    if (x != 0) {  // a leading zero stands alone; a digit after it matches no token
      for (int n = 1; (digit = static_cast<unsigned char>(*p_) - unsigned{'0'}) <= 9; ++p_) {
        if (++n > 10) return false;
        x = 10 * x + digit;
      }
    }
    if (x >= bound) return false;
    out = static_cast<std::uint32_t>(x);
    return true;
  }
  [[gnu::always_inline]] bool rank(Rank& out) { return below(kMaxRanks, out); }

  /// A direct message spelled exactly as the writer spells it, `{"src": s, "dst": d}`: two
  /// fixed compares rather than a token at a time (twice as fast). Nothing read otherwise.
  [[gnu::always_inline]] bool written_direct(Collective collective, Phase& phase) {
    const char* start = p_;
    Rank src, dst;
    if (same8(p_, "{\"src\": ")) {
      p_ += 8;
      if (rank(src) && same8(p_, ", \"dst\":") && p_[8] == ' ') {
        p_ += 9;
        if (rank(dst) && *p_ == '}') {
          ++p_;
          add_one(phase, src, dst, direct_block(collective, src, dst));
          return true;
        }
      }
    }
    p_ = start;
    return false;
  }
  /// A transfer, {"src": s, "dst": d} with "blocks" last or not.
  bool transfer(Collective collective, Phase& phase, std::vector<Block>& blocks) {
    Rank src, dst;
    if (!token('{') || !key("\"src\""sv) || !rank(src) || !token(',') || !key("\"dst\""sv) ||
        !rank(dst))
      return false;
    whitespace();
    if (*p_ != ',') {
      if (!token('}')) return false;
      add_one(phase, src, dst, direct_block(collective, src, dst));
      return true;
    }
    ++p_;
    if (!key("\"blocks\""sv) || !read_blocks(blocks) || !token('}')) return false;
    phase.add(src, dst, blocks);
    return true;
  }
  /// "blocks", as read_blocks above takes them.
  bool read_blocks(std::vector<Block>& blocks) {
    blocks.clear();
    if (!token('[')) return false;
    do {
      Rank r[3] = {0, 0, 0};
      unsigned n = 0;
      if (!token('[')) return false;
      do {
        if (n == 3) return false;
        if (n == 1 && (whitespace(), std::memcmp(p_, "null", 4) == 0)) {
          p_ += 4;
          r[n] = kEveryRank;
        } else if (!rank(r[n])) {
          return false;
        }
        ++n;
        whitespace();
      } while (*p_ == ',' && ++p_);
      if (!token(']') || (n == 2 && r[1] == kEveryRank)) return false;
      blocks.push_back(n == 1   ? Block{r[0], kEveryRank}
                       : n == 2 ? Block{r[0], r[1]}
                                : Block{r[0], r[1], r[2]});
      whitespace();
    } while (*p_ == ',' && ++p_);
    return token(']');
  }

  const char* p_;
};

}  // namespace

struct PhaseScanner::Impl {
  od::parser parser;
  Phase phase;
  std::vector<Block> blocks;
};

PhaseScanner::PhaseScanner() : impl_(std::make_unique<Impl>()) {}
PhaseScanner::~PhaseScanner() = default;

ScanEnd PhaseScanner::scan(char* first, char* last, bool at_key, std::size_t skip,
                           Collective collective, const Sink& sink) {
  // The plain reader first, as long as the text is written as phasecheck writes it; simdjson
  // from where it stopped: the key, or the last phase delivered (which simdjson skips).
  char* from = first;
  bool from_key = at_key;
  if (at_key || (skip > 0 && skip <= static_cast<std::size_t>(last - first))) {
    struct Sentinel {
      char* at;
      char saved;
      ~Sentinel() { *at = saved; }
    } sentinel{last, *last};
    *last = '\0';
    PlainReader reader(at_key ? first : first + skip);
    bool closed = false;
    bool more =
        at_key ? reader.phases_key() && reader.first_phase(closed) : reader.another_phase(closed);
    while (more) {
      char* start = first + (reader.at() - first);
      if (!reader.phase(collective, impl_->phase, impl_->blocks)) break;
      sink(start, reader.at(), impl_->phase, false);
      from = start;
      from_key = false;
      more = reader.another_phase(closed);
    }
    if (closed) return ScanEnd::array_end;  // at a byte of the file: the sentinel is no ']'
    if (reader.at() == last) return ScanEnd::window_end;  // all of the text read
  }
  return scan_simdjson(from, last, from_key, collective, sink);
}

ScanEnd PhaseScanner::scan_simdjson(char* first, char* last, bool at_key, Collective collective,
                                    const Sink& sink) {
  // The document simdjson sees: '{' + `"phases": [phase, ...` + '}', or '[' + `{delivered},
  // phase, ...` + ']'. The closing sentinel satisfies On Demand's check of the root's last
  // character; the byte after it is a space, since a ']' there makes simdjson scan the whole
  // text for balance. A phase may only count as read when its '}' is a byte of the file, not the
  // sentinel: then a token follows it.
  struct Restore {
    char* at[3];
    char saved[3];
    ~Restore() {
      for (int i = 0; i < 3; ++i) *at[i] = saved[i];
    }
  } restore{{first - 1, last, last + 1}, {first[-1], last[0], last[1]}};
  first[-1] = at_key ? '{' : '[';
  last[0] = at_key ? '}' : ']';
  last[1] = ' ';
  const std::size_t length = static_cast<std::size_t>(last - first) + 2;

  od::parser& parser = impl_->parser;
  od::document doc;
  if (parser.iterate(first - 1, length, length + kScanPadding - 2).get(doc))
    return ScanEnd::invalid_text;
  // Where On Demand stopped: past the text, or at its sentinel, means the text was too short.
  const auto stopped = [&]() {
    const auto at = doc.current_location();
    return at.error() || at.value_unsafe() >= last ? ScanEnd::window_end : ScanEnd::refused;
  };

  od::array phases;
  if (at_key) {
    od::object top;
    od::value value;
    if (doc.get_object().get(top) || top.find_field("phases").get(value) ||
        value.get_array().get(phases))
      return stopped();
  } else if (doc.get_array().get(phases)) {
    return stopped();
  }
  bool skip = !at_key;
  for (auto element : phases) {
    if (element.error()) return stopped();
    od::value& value = element.value_unsafe();
    if (skip) {  // delivered already; On Demand skips what is not read
      skip = false;
      continue;
    }
    const char* start;
    bool has_ops = false;
    if (value.current_location().get(start) ||
        !read_phase(value, collective, impl_->phase, impl_->blocks, has_ops))
      return stopped();
    // The next token: a byte of the file, else the phase was closed by the sentinel.
    const char* end;
    if (doc.current_location().get(end)) return ScanEnd::window_end;
    sink(start, end, impl_->phase, has_ops);
  }
  // The array closed: at a byte of the file when something follows it (the sentinel at least).
  return doc.current_location().error() ? ScanEnd::window_end : ScanEnd::array_end;
}

}  // namespace phasecheck::io::detail
