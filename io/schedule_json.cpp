// Schedule files: a SAX reader that hands over one phase at a time (with a fast path for the
// phases: io/schedule_json_stream.hpp), and a writer with one transfer per line. docs/formats.md
// is the specification.

#include <algorithm>
#include <charconv>
#include <cstring>
#include <istream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/buffer_state.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "verify/msccl_execution.hpp"
#include "io/json.hpp"
#include "io/json_common.hpp"
#include "io/msccl_xml.hpp"
#include "io/phase_scanner.hpp"
#include "io/schedule_binary.hpp"
#include "io/schedule_json_stream.hpp"
#include "io/text_window.hpp"

namespace phasecheck::io {
namespace {

using detail::Json;

constexpr const char* kRequiredKeys[] = {"format", "algorithm", "collective", "ranks"};
constexpr const char* kHeaderKeys[] = {"format",   "algorithm",  "collective", "ranks",
                                       "topology", "parameters", "parts",      "chunks",
                                       "inplace",  "buffers"};

/// What nlohmann's parser reads: the file from a byte on, through a TextWindow. When the parser is
/// resumed in the middle of the file, a synthetic text comes first: the openers of the
/// containers around that byte (ScheduleSax::resume_at). A stream buffer, since nlohmann reads a
/// stream a byte at a time straight from its buffer (sbumpc).
class Source : public std::streambuf {
 public:
  explicit Source(detail::TextWindow& window) : window_(window) {}

  /// Reads from `offset` on, after `prefix` (a string literal).
  void start(std::size_t offset, std::string_view prefix = {}) {
    at_ = offset;
    prefix_ = !prefix.empty();
    char* text = const_cast<char*>(prefix.data());  // only read through the get area
    setg(text, text, text + prefix.size());
    mark_ = kNone;
  }
  /// The offset of the next byte of the file to be read.
  std::size_t offset() const {
    return prefix_ ? at_ : at_ + static_cast<std::size_t>(gptr() - eback());
  }
  /// Whether the bytes just read are `text`.
  bool just_read(std::string_view text) const {
    const std::size_t at = offset();
    return !prefix_ && at >= window_.begin() + text.size() &&
           std::string_view(window_.at(at - text.size()), text.size()) == text;
  }
  /// Asks to keep the file's bytes from `offset` (<= offset()) on; dropped when that would hold
  /// more than the window's maximum.
  void mark(std::size_t offset) { mark_ = offset; }
  bool marked() const { return mark_ != kNone; }

 protected:
  int_type underflow() override {
    at_ = offset();
    if (!prefix_ || at_ >= window_.end()) {
      const std::size_t until = at_ + std::min(kBlock, window_.max_size() / 2);
      const std::size_t history = std::max(window_.begin(), at_ > kHistory ? at_ - kHistory : 0);
      if (mark_ != kNone && !window_.fill(std::min(mark_, history), until)) mark_ = kNone;
      if (mark_ == kNone) window_.fill(history, until);
    }
    prefix_ = false;
    setg(window_.at(at_), window_.at(at_), window_.at(window_.end()));  // (the bytes may move)
    return gptr() < egptr() ? traits_type::to_int_type(*gptr()) : traits_type::eof();
  }

 private:
  static constexpr std::size_t kNone = std::size_t(-1), kBlock = std::size_t{1} << 16;
  static constexpr std::size_t kHistory = 16;  // bytes kept behind the parser, for just_read()

  detail::TextWindow& window_;
  bool prefix_ = false;  // reading the synthetic text; the file follows from at_
  std::size_t at_ = 0;   // the offset of eback() when reading the file
  std::size_t mark_ = kNone;
};

/// The SAX consumer. The parser (nlohmann's) calls one method per JSON event; this class keeps
/// a small state machine for the phase table and builds ordinary JSON values for the header.
///
/// With the fast path (JsonReader below), the parser may stop at the phases and resume later:
/// handoff() stops it at the '[' of "phases" once the header is built; resume_at() starts it
/// again on a synthetic text (Source) that opens the containers around a place of the file,
/// whose events are dropped here, as are those of the phase delivered already that the file
/// text starts with; bounded, it stops again after a phase whose text the window still holds.
/// A resumed parser's positions are moved to the file's (parse_error), so its messages are the
/// ones a parser that read the whole file would give.
class ScheduleSax {
 public:
  ScheduleSax(std::string_view source, const std::function<void(const ScheduleHeader&)>& on_header,
              const PhaseSink& on_phase, Tables tables, Source& input)
      : source_(source),
        on_header_(on_header),
        on_phase_(on_phase),
        tables_(tables),
        input_(input) {}

  // --- the fast path's side (JsonReader)
  /// Stop at the '[' of "phases" when the header is complete there and the key is written as
  /// such (`"phases"`, which the scanner's text starts with).
  void handoff() { handoff_ = true; }
  bool handed_off() const { return handed_off_; }
  /// The offset of the key "phases" (after a handoff).
  std::size_t phases_key() const { return phases_key_; }
  /// Resumes on the text `{` + the file from the key "phases" (`at_key`), or `{"phases":[` + the
  /// file from phase `index`, delivered already. `bounded`: stops after a phase whose first byte
  /// the input still holds, once `progress` bytes of the file have been read. The file's text
  /// starts at `line`:`column`, after an opening text of `opening` bytes.
  void resume_at(bool at_key, std::size_t index, bool bounded, std::size_t progress,
                 std::size_t line, std::size_t column, std::size_t opening) {
    origin_lines_ = line - 1;
    origin_shift_ = static_cast<std::ptrdiff_t>(column - 1) - static_cast<std::ptrdiff_t>(opening);
    resume_ = at_key ? Resume::key : Resume::phase;
    swallow_ = at_key ? 1 : 3;
    skip_depth_ = 0;
    phase_index_ = index;
    handoff_ = false;
    bounded_ = bounded;
    handed_back_ = false;
    resumed_at_ = input_.offset();
    progress_ = progress;
  }
  bool handed_back() const { return handed_back_; }
  /// The first byte of the last phase delivered (after a hand-back).
  std::size_t last_phase_start() const { return phase_start_; }
  /// Delivers a phase read by the fast path, as the next one.
  void deliver_scanned(Phase& phase, bool has_ops) {
    deliver(phase, phase_index_, has_ops);
    ++phase_index_;
  }
  std::size_t phase_index() const { return phase_index_; }
  Collective collective() const { return header_.collective; }

  // --- scalars
  bool null() {
    if (resuming() && replayed(Event::scalar)) return true;
    return scalar(Json(nullptr), "null");
  }
  bool boolean(bool v) {
    if (resuming() && replayed(Event::scalar)) return true;
    return scalar(Json(v), "a boolean");
  }
  bool number_integer(std::int64_t v) {
    if (resuming() && replayed(Event::scalar)) return true;
    return scalar(Json(v), v < 0 ? "a negative number" : "an integer");
  }
  bool number_float(double v, const std::string&) {
    if (resuming() && replayed(Event::scalar)) return true;
    return scalar(Json(v), "a non-integer number");
  }
  bool binary(Json::binary_t&) {
    if (resuming() && replayed(Event::scalar)) return true;
    return scalar(Json(), "binary data");
  }
  bool string(std::string& v) {
    if (resuming() && replayed(Event::scalar)) return true;
    if (state_ == State::label) {
      phase_.set_label(std::move(v));
      state_ = State::phase;
      return true;
    }
    if (state_ == State::slot_name) {
      const auto buffer = parse_buffer(v);
      if (!buffer)
        fail(op_path() + "." + slot_field(),
             "unknown buffer \"" + v + "\" (the buffers are input, output and scratch)");
      (reading_from_ ? op_.from : op_.to).buffer = *buffer;
      state_ = State::slot_index;
      return true;
    }
    return scalar(Json(std::move(v)), "a string");
  }
  bool number_unsigned(std::uint64_t v) {
    if (resuming() && replayed(Event::scalar)) return true;
    switch (state_) {
      case State::transfer_number: {
        if (v >= kMaxRanks)
          fail(transfer_path() + "." + field_name(),
               "rank " + std::to_string(v) + " does not exist");
        (reading_src_ ? src_ : dst_) = static_cast<Rank>(v);
        state_ = State::transfer;
        return true;
      }
      case State::block: {
        if (block_len_ == 3)
          fail(block_path(),
               "a block is [origin], [origin, destination] or [origin, destination, part]");
        if (v >= kMaxRanks) fail(block_path(), "rank " + std::to_string(v) + " does not exist");
        block_[block_len_++] = static_cast<Rank>(v);
        return true;
      }
      case State::op_number: {
        const bool is_count = op_field_ == OpField::count;
        if (is_count ? v > std::numeric_limits<std::uint32_t>::max() : v >= kMaxRanks)
          fail(op_path() + "." + op_field_name(),
               is_count ? "count " + std::to_string(v) + " is larger than any buffer"
                        : "rank " + std::to_string(v) + " does not exist");
        if (is_count && v == 0) fail(op_path() + ".count", "must be at least 1");
        const auto value = static_cast<std::uint32_t>(v);
        switch (op_field_) {
          case OpField::src:
            op_.src = value;
            break;
          case OpField::dst:
            op_.dst = value;
            break;
          case OpField::rank:
            op_.src = op_.dst = value;
            break;
          case OpField::count:
            op_.count = value;
            break;
        }
        state_ = State::op;
        return true;
      }
      case State::slot_index:
        if (v > kMaxSlots)
          fail(op_path() + "." + slot_field(), "slot " + std::to_string(v) +
                                                   " is beyond any buffer (at most " +
                                                   std::to_string(kMaxSlots) + " slots)");
        (reading_from_ ? op_.from : op_.to).index = static_cast<std::uint32_t>(v);
        state_ = State::slot_end;
        return true;
      default:
        return scalar(Json(v), "an integer");
    }
  }

  // --- containers
  bool start_object(std::size_t) {
    if (resuming() && replayed(Event::open)) return true;
    switch (state_) {
      case State::start:
        state_ = State::top;
        return true;
      case State::phases:
        if (bounded_) {  // keep the phase's text (and the byte before it) for the fast path
          phase_start_ = input_.offset() - 1;
          input_.mark(phase_start_ - 1);
        }
        phase_.clear();
        phase_keys_ = 0;
        transfer_index_ = 0;
        op_index_ = 0;
        state_ = State::phase;
        return true;
      case State::transfers:
        have_src_ = have_dst_ = have_blocks_ = false;
        scratch_.clear();
        state_ = State::transfer;
        return true;
      case State::ops:
        op_ = BufferOp{};
        op_keys_ = 0;
        state_ = State::op;
        return true;
      case State::capture:
        return open(Json::object());
      default:
        return unexpected("an object");
    }
  }
  bool start_array(std::size_t) {
    if (resuming() && replayed(Event::open)) return true;
    switch (state_) {
      case State::expect_phases:
        if (handoff_ && input_.marked()) {
          handed_off_ = true;
          return false;
        }
        state_ = State::phases;
        return true;
      case State::expect_transfers:
        state_ = State::transfers;
        return true;
      case State::expect_ops:
        state_ = State::ops;
        return true;
      case State::expect_slot:
        state_ = State::slot_name;
        return true;
      case State::expect_blocks:
        state_ = State::blocks;
        return true;
      case State::blocks:
        block_len_ = 0;
        state_ = State::block;
        return true;
      case State::capture:
        return open(Json::array());
      default:
        return unexpected("an array");
    }
  }
  bool key(std::string& k) {
    if (resuming() && replayed(Event::key)) return true;
    switch (state_) {
      case State::top:
        return top_key(k);
      case State::phase:
        if (k == "label") return phase_key(1, State::label, k);
        if (k == "transfers") return phase_key(2, State::expect_transfers, k);
        if (k == "ops") return phase_key(4, State::expect_ops, k);
        fail(phase_path(),
             "unknown key \"" + k +
                 "\" (a phase has \"label\" and \"transfers\", or \"ops\" in version 3)");
      case State::op:
        return op_key(k);
      case State::transfer:
        if (const std::string_view name = k; name == "src" || name == "dst") {
          reading_src_ = name == "src";
          bool& have = reading_src_ ? have_src_ : have_dst_;
          if (have) fail(transfer_path(), "\"" + k + "\" is given twice");
          have = true;
          state_ = State::transfer_number;
          return true;
        }
        if (k == "blocks") {
          if (have_blocks_) fail(transfer_path(), "\"blocks\" is given twice");
          have_blocks_ = true;
          state_ = State::expect_blocks;
          return true;
        }
        fail(transfer_path(),
             "unknown key \"" + k + "\" (a transfer has \"src\", \"dst\", \"blocks\")");
      case State::capture:
        capture_key_ = k;
        return true;
      default:
        return unexpected("a key");
    }
  }
  bool end_object() {
    if (resuming() && replayed(Event::close)) return true;
    switch (state_) {
      case State::top:
        return end_top();
      case State::phase:
        if (!(phase_keys_ & 6)) fail(phase_path(), "missing \"transfers\" (or \"ops\", version 3)");
        if ((phase_keys_ & 6) == 6)
          fail(phase_path(), "has both \"transfers\" and \"ops\" (version 3 has ops only)");
        emit();
        ++phase_index_;
        state_ = State::phases;
        if (bounded_ && input_.marked() && input_.offset() - resumed_at_ >= progress_) {
          handed_back_ = true;  // the fast path goes on from this phase
          return false;
        }
        return true;
      case State::transfer:
        return end_transfer();
      case State::op:
        return end_op();
      case State::capture:
        return close();
      default:
        return unexpected("the end of an object");
    }
  }
  bool end_array() {
    if (resuming() && replayed(Event::close)) return true;
    switch (state_) {
      case State::phases:
        state_ = State::top;
        return true;
      case State::transfers:
      case State::ops:
        state_ = State::phase;
        return true;
      case State::slot_end:
        state_ = State::op;
        return true;
      case State::blocks:
        state_ = State::transfer;
        return true;
      case State::block: {
        if (block_len_ == 0)
          fail(block_path(),
               "a block is [origin], [origin, destination] or [origin, destination, part]");
        scratch_.push_back(block_len_ == 1   ? Block{block_[0], kEveryRank}
                           : block_len_ == 2 ? Block{block_[0], block_[1]}
                                             : Block{block_[0], block_[1], block_[2]});
        state_ = State::blocks;
        return true;
      }
      case State::capture:
        return close();
      default:
        return unexpected("the end of an array");
    }
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) {
    detail::throw_syntax_error(source_, e);
  }
  // Called by the parser in place of the one above: it has the line and column (json_common.hpp).
  bool parse_error(const nlohmann::detail::position_t& at, const std::string& token,
                   const nlohmann::json::exception& e) {
    if (origin_lines_ == 0 && origin_shift_ == 0) detail::throw_json_error(source_, at, token, e);
    // Resumed: where the parser is in the file. On the first line its column counts the opening
    // text instead of the file's bytes before the resumption. (A column of 0 is nlohmann's after
    // it takes back a line break; it stays 0, as it does for a parser that read the whole file.)
    nlohmann::detail::position_t file = at;
    file.lines_read += origin_lines_;
    if (at.lines_read == 0 && at.chars_read_current_line > 0)
      file.chars_read_current_line = static_cast<std::size_t>(
          static_cast<std::ptrdiff_t>(at.chars_read_current_line) + origin_shift_);
    if (!dynamic_cast<const nlohmann::json::parse_error*>(&e))
      detail::throw_json_error(source_, file, token, e);
    // A syntax error's text has its position in it: made again with the file's.
    const std::string what = e.what();
    const std::string head = "[json.exception.parse_error." + std::to_string(e.id) +
                             "] parse error at line " + std::to_string(at.lines_read + 1) +
                             ", column " + std::to_string(at.chars_read_current_line) + ": ";
    if (!what.starts_with(head)) throw std::logic_error("unexpected JSON parser message: " + what);
    detail::throw_json_error(
        source_, file, token,
        nlohmann::json::parse_error::create(e.id, file, what.substr(head.size()), nullptr));
  }

 private:
  enum class State {
    start,
    top,
    capture,
    expect_phases,
    phases,
    phase,
    label,
    expect_transfers,
    transfers,
    transfer,
    transfer_number,
    expect_blocks,
    blocks,
    block,
    expect_ops,
    ops,
    op,
    op_number,
    expect_slot,
    slot_name,
    slot_index,
    slot_end,
    done
  };
  enum class OpField { src, dst, rank, count };
  enum class Resume { none, key, phase };
  enum class Event { open, close, key, scalar };

  bool resuming() const { return resume_ != Resume::none; }
  /// While resuming: whether `e` is one of the synthetic text's events or of the phase delivered
  /// already (then dropped).
  bool replayed(Event e) {
    if (swallow_ > 0) {
      if (--swallow_ == 0) {
        if (resume_ == Resume::key) {  // the header is built; "phases" comes next
          state_ = State::top;
          seen_phases_ = false;
          resume_ = Resume::none;
        } else {
          state_ = State::phases;
        }
      }
      return true;
    }
    if (e == Event::open) ++skip_depth_;
    if (e == Event::close && --skip_depth_ == 0) {
      resume_ = Resume::none;
      ++phase_index_;
    }
    return true;
  }

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    detail::throw_at(source_, path, what);
  }
  const char* field_name() const { return reading_src_ ? "src" : "dst"; }
  std::string phase_path() const { return "phases[" + std::to_string(phase_index_) + "]"; }
  std::string transfer_path() const {
    return phase_path() + ".transfers[" + std::to_string(transfer_index_) + "]";
  }
  std::string op_path() const { return phase_path() + ".ops[" + std::to_string(op_index_) + "]"; }
  const char* op_field_name() const {
    switch (op_field_) {
      case OpField::src:
        return "src";
      case OpField::dst:
        return "dst";
      case OpField::rank:
        return "rank";
      case OpField::count:
        return "count";
    }
    return "?";
  }
  const char* slot_field() const { return reading_from_ ? "from" : "to"; }
  std::string block_path() const {
    return transfer_path() + ".blocks[" + std::to_string(scratch_.size()) + "]";
  }

  /// What the current state expects, for error messages.
  std::string where() const {
    switch (state_) {
      case State::start:
        return "the top level (expected an object)";
      case State::top:
        return "the top-level object";
      case State::expect_phases:
        return "phases (expected an array)";
      case State::phases:
        return phase_path() + " (expected an object)";
      case State::phase:
        return phase_path();
      case State::label:
        return phase_path() + ".label (expected a string)";
      case State::expect_transfers:
      case State::transfers:
        return phase_path() + ".transfers (expected an array of objects)";
      case State::transfer:
        return transfer_path();
      case State::transfer_number:
        return transfer_path() + "." + field_name() + " (expected a non-negative integer)";
      case State::expect_blocks:
      case State::blocks:
        return transfer_path() + ".blocks (expected an array of blocks)";
      case State::block:
        return block_path() + " (expected a non-negative integer)";
      case State::expect_ops:
      case State::ops:
        return phase_path() + ".ops (expected an array of objects)";
      case State::op:
        return op_path();
      case State::op_number:
        return op_path() + "." + op_field_name() +
               (op_field_ == OpField::count ? " (expected a positive integer)"
                                            : " (expected a non-negative integer)");
      case State::expect_slot:
        return op_path() + "." + slot_field() + " (expected [buffer, slot])";
      case State::slot_name:
        return op_path() + "." + slot_field() +
               "[0] (expected \"input\", \"output\" or \"scratch\")";
      case State::slot_index:
        return op_path() + "." + slot_field() + "[1] (expected a non-negative integer)";
      case State::slot_end:
        return op_path() + "." + slot_field() + " (expected the end of [buffer, slot])";
      default:
        return "the end of the document";
    }
  }
  [[noreturn]] bool unexpected(const std::string& got) const {
    throw InputError(std::string(source_) + ": " + where() + ": unexpected " + got);
  }

  // --- header values are captured as ordinary JSON, one top-level key at a time.
  bool top_key(const std::string& k) {
    if (k == "phases") {
      if (seen_phases_) fail("", "\"phases\" is given twice");
      seen_phases_ = true;
      // Stream when the required header came first; otherwise buffer until the end.
      if (header_complete() && !header_built_) build_header();
      // The fast path's text starts at the key: keep it and the byte before it.
      constexpr std::string_view written = "\"phases\"";
      if (handoff_ && header_built_ && input_.just_read(written)) {
        phases_key_ = input_.offset() - written.size();
        input_.mark(phases_key_ - 1);
      } else {
        handoff_ = false;
      }
      state_ = State::expect_phases;
      return true;
    }
    if (std::find(std::begin(kHeaderKeys), std::end(kHeaderKeys), k) == std::end(kHeaderKeys))
      fail("", "unknown key \"" + k + "\"");
    if (header_values_.contains(k)) fail("", "\"" + k + "\" is given twice");
    if (header_built_)  // the phases are already being checked against the header without it
      fail("", "\"" + k + "\" comes after \"phases\"; write the header keys before the phases");
    capture_name_ = k;
    capture_stack_.clear();
    state_ = State::capture;
    return true;
  }
  bool scalar(Json v, const char* what) {
    if (state_ != State::capture) return unexpected(what);
    if (capture_stack_.empty()) {
      header_values_[capture_name_] = std::move(v);
      state_ = State::top;
      return true;
    }
    Json& top = *capture_stack_.back();
    if (top.is_array())
      top.push_back(std::move(v));
    else
      *new_member(top) = std::move(v);
    return true;
  }
  bool open(Json container) {
    if (capture_stack_.size() >= detail::kMaxDepth)
      fail(capture_name_, "nested deeper than " + std::to_string(detail::kMaxDepth) + " levels");
    Json* slot;
    if (capture_stack_.empty()) {
      slot = &header_values_[capture_name_];
    } else if (Json& top = *capture_stack_.back(); top.is_array()) {
      top.push_back(nullptr);
      slot = &top.back();
    } else {
      slot = new_member(top);
    }
    *slot = std::move(container);
    capture_stack_.push_back(slot);
    return true;
  }
  /// The slot for capture_key_ in `object`; a key given twice is an error, as in topology files.
  Json* new_member(Json& object) {
    if (object.contains(capture_key_))
      fail(capture_name_, "the key \"" + capture_key_ + "\" appears twice in one object");
    return &object[capture_key_];
  }
  bool close() {
    capture_stack_.pop_back();
    if (capture_stack_.empty()) state_ = State::top;
    return true;
  }

  /// Whether the header keys read so far are all the header there is to wait for: the required
  /// ones, and the topology (versions 1 and 2) or the buffers (version 3).
  bool header_complete() const {
    const Json& h = header_values_;
    if (!std::all_of(std::begin(kRequiredKeys), std::end(kRequiredKeys),
                     [&](const char* r) { return h.contains(r); }))
      return false;
    const bool v3 = h["format"].is_string() && h["format"].get<std::string>() == kScheduleFormatV3;
    return h.contains(v3 ? "buffers" : "topology");
  }

  void build_header() {
    const Json& h = header_values_;
    const detail::Field top{h, source_, ""};
    for (const char* k : kRequiredKeys)
      if (!h.contains(k)) fail("", std::string("missing \"") + k + "\"");
    const std::string format = top.at("format").string();
    if (format != kScheduleFormat && format != kScheduleFormatV2 && format != kScheduleFormatV3)
      top.at("format").fail("unsupported format \"" + format + "\" (this phasecheck reads " +
                            std::string(kScheduleFormat) + ", " + std::string(kScheduleFormatV2) +
                            " and " + std::string(kScheduleFormatV3) + ")");
    const bool v3 = format == kScheduleFormatV3;
    for (const char* k : {"chunks", "inplace", "buffers"})
      if (!v3 && h.contains(k))
        top.at(k).fail("\"" + std::string(k) + "\" needs " + std::string(kScheduleFormatV3));
    if (!v3 && !h.contains("topology")) fail("", "missing \"topology\"");
    if (h.contains("parts")) {
      if (format != kScheduleFormatV2)
        top.at("parts").fail("\"parts\" needs " + std::string(kScheduleFormatV2) +
                             (v3 ? " (version 3 has \"chunks\")" : ""));
      header_.parts = static_cast<std::uint32_t>(top.at("parts").uint(kMaxParts));
      if (header_.parts == 0) top.at("parts").fail("must be at least 1");
    }
    header_.algorithm = top.at("algorithm").string();
    try {
      header_.collective = parse_collective(top.at("collective").string());
    } catch (const InputError& e) {
      top.at("collective").fail(e.what());
    }
    const auto ranks = top.at("ranks").uint(kMaxRanks);
    if (ranks == 0) top.at("ranks").fail("must be at least 1");
    if (h.contains("topology")) {
      header_.topology = detail::topology_from_json(top.at("topology"));
      if (ranks != phasecheck::ranks(header_.topology))
        top.at("ranks").fail(std::to_string(ranks) + " does not match the topology, which has " +
                             std::to_string(phasecheck::ranks(header_.topology)) + " ranks");
    } else {  // version 3 without a machine: every rank reaches every other at once
      header_.topology =
          FullyConnected(static_cast<Rank>(ranks), std::max<Rank>(1, static_cast<Rank>(ranks) - 1));
    }
    if (v3) read_buffers(top);
    if (h.contains("parameters")) {
      const detail::Field params = top.at("parameters");
      if (!params.value.is_object())
        params.fail("expected an object, got " + detail::type_name(params.value));
      for (const auto& [key, value] : params.value.items()) {
        if (value.is_string())
          header_.parameters.set(key, value.get<std::string>());
        else if (value.is_number() || value.is_boolean())
          header_.parameters.set(key, detail::dump(value));
        else
          params.at(key).fail("expected a string, number or boolean");
      }
    }
    header_built_ = true;
    on_header_(header_);
  }

  void read_buffers(const detail::Field& top) {
    const Json& h = header_values_;
    const auto chunks =
        h.contains("chunks") ? static_cast<std::uint32_t>(top.at("chunks").uint(kMaxParts)) : 1u;
    if (chunks == 0) top.at("chunks").fail("must be at least 1");
    const bool inplace = h.contains("inplace") && top.at("inplace").boolean();
    if (inplace && header_.collective != Collective::allgather)
      top.at("inplace").fail("\"inplace\" is for an allgather only");
    BufferLayout layout = natural_layout(header_.collective, header_.ranks(), chunks, inplace);
    if (h.contains("buffers")) {
      const detail::Field buffers = top.at("buffers");
      buffers.expect_object({"input", "output", "scratch"});
      for (Buffer b : kBuffers)
        if (buffers.has(to_string(b))) {
          const auto size = static_cast<std::uint32_t>(buffers.at(to_string(b)).uint(kMaxSlots));
          (b == Buffer::input    ? layout.input
           : b == Buffer::output ? layout.output
                                 : layout.scratch) = size;
        }
      if (const auto problem = layout_problem(layout, header_.collective, header_.ranks()))
        buffers.fail(*problem);
    } else if (const auto problem = layout_problem(layout, header_.collective, header_.ranks())) {
      fail("", *problem);
    }
    header_.buffers = layout;
    header_.parts = chunks;
    if (tables_ == Tables::derive) {
      try {
        state_machine_.emplace(header_.collective, header_.ranks(), layout);
      } catch (const InputError& e) {
        throw InputError(std::string(source_) + ": " + e.what());
      }
    }
  }

  bool end_top() {
    if (!seen_phases_) fail("", "missing \"phases\"");
    if (!header_built_) {
      build_header();
      for (std::size_t i = 0; i < buffered_.size(); ++i)
        deliver(buffered_[i], i, buffered_has_ops_[i]);
      buffered_.clear();
    }
    state_ = State::done;
    return true;
  }

  bool phase_key(unsigned bit, State next, const std::string& k) {
    if (phase_keys_ & bit) fail(phase_path(), "\"" + k + "\" is given twice");
    phase_keys_ |= bit;
    state_ = next;
    return true;
  }

  bool end_transfer() {
    if (!have_src_ || !have_dst_)
      fail(transfer_path(), have_src_ ? "missing \"dst\"" : "missing \"src\"");
    if (have_blocks_ && scratch_.empty()) fail(transfer_path(), "\"blocks\" is empty");
    if (!have_blocks_ && header_built_)
      scratch_.push_back(direct_block(header_.collective, src_, dst_));
    // Without a header yet, an omitted "blocks" stays empty and is filled in at the end.
    phase_.add(src_, dst_, scratch_);
    ++transfer_index_;
    state_ = State::transfers;
    return true;
  }

  bool op_key(const std::string& k) {
    constexpr const char* kOpKeys[] = {"src", "dst", "rank", "count", "from", "to"};
    const auto it = std::find(std::begin(kOpKeys), std::end(kOpKeys), std::string_view(k));
    if (it == std::end(kOpKeys))
      fail(op_path(), "unknown key \"" + k +
                          "\" (a send has \"src\", \"dst\", \"from\", \"to\", \"count\"; a "
                          "local copy has \"rank\" in place of \"src\" and \"dst\")");
    const unsigned bit = 1u << (it - std::begin(kOpKeys));
    if (op_keys_ & bit) fail(op_path(), "\"" + k + "\" is given twice");
    op_keys_ |= bit;
    if (k == "from" || k == "to") {
      reading_from_ = k == "from";
      state_ = State::expect_slot;
      return true;
    }
    op_field_ = k == "src"    ? OpField::src
                : k == "dst"  ? OpField::dst
                : k == "rank" ? OpField::rank
                              : OpField::count;
    state_ = State::op_number;
    return true;
  }

  bool end_op() {
    constexpr unsigned src = 1, dst = 2, rank = 4, from = 16, to = 32;
    const bool send = op_keys_ & (src | dst);
    if (send && (op_keys_ & rank))
      fail(op_path(), "has both \"rank\" (a local copy) and \"src\"/\"dst\" (a send)");
    if (send && !(op_keys_ & src)) fail(op_path(), "missing \"src\"");
    if (send && !(op_keys_ & dst)) fail(op_path(), "missing \"dst\"");
    if (!send && !(op_keys_ & rank))
      fail(op_path(), "missing \"src\" and \"dst\" (a send) or \"rank\" (a local copy)");
    if (!(op_keys_ & from)) fail(op_path(), "missing \"from\"");
    if (!(op_keys_ & to)) fail(op_path(), "missing \"to\"");
    if (send && op_.src == op_.dst)
      fail(op_path(), "a send from rank " + std::to_string(op_.src) +
                          " to itself; write a local copy as {\"rank\": " +
                          std::to_string(op_.src) + ", \"from\": ..., \"to\": ...}");
    phase_.add(op_);
    ++op_index_;
    state_ = State::ops;
    return true;
  }

  void emit() {
    const bool has_ops = phase_keys_ & 4;
    if (header_built_) {
      deliver(phase_, phase_index_, has_ops);
    } else {
      buffered_.push_back(phase_);
      buffered_has_ops_.push_back(has_ops);
    }
  }

  /// Validates a complete phase against the header, then hands it on.
  /// `has_ops`: the phase was written with "ops" (else with "transfers").
  void deliver(Phase& phase, std::size_t index, bool has_ops) {
    if (header_.buffers) {
      if (!has_ops)
        fail("phases[" + std::to_string(index) + "]",
             "has \"transfers\"; a version-3 phase has \"ops\"");
      return deliver_program(phase, index);
    }
    if (has_ops)
      fail("phases[" + std::to_string(index) + "]",
           "has \"ops\", which need " + std::string(kScheduleFormatV3));
    // A transfer without "blocks" read before the header was known has no block yet: it carries
    // the direct message, which depends on the collective.
    const auto transfers = phase.transfers();
    const bool omitted = std::any_of(transfers.begin(), transfers.end(),
                                     [](const Transfer& t) { return t.block_count == 0; });
    Phase filled;
    if (omitted) {
      filled.set_label(phase.label());
      for (const Transfer& t : transfers) {
        if (t.block_count == 0)
          filled.add(t.src, t.dst, direct_block(header_.collective, t.src, t.dst));
        else
          filled.add(t.src, t.dst, phase.blocks(t));
      }
    }
    const Phase& out = omitted ? filled : phase;
    const Rank ranks = header_.ranks();
    for (std::size_t i = 0; i < out.size(); ++i)
      if (const auto problem =
              transfer_problem(out, out[i], header_.collective, ranks, header_.parts))
        fail("phases[" + std::to_string(index) + "].transfers[" + std::to_string(i) + "]",
             *problem);
    on_phase_(out);
  }

  /// Version 3: validates the ops and, unless the consumer derives them itself, fills in the
  /// table the sends form.
  void deliver_program(Phase& phase, std::size_t index) {
    const std::string path = "phases[" + std::to_string(index) + "]";
    const auto ops = phase.ops();
    const Rank ranks = header_.ranks();
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (const auto problem = op_problem(ops[i], ranks))
        fail(path + ".ops[" + std::to_string(i) + "]", *problem);
    if (!state_machine_) {
      on_phase_(phase);
      return;
    }
    // Faults are the placement checker's to report; the table holds what could be moved.
    state_machine_->apply(index, ops, phase, [](const OpFault&) {});
    on_phase_(phase);
  }

  std::string_view source_;
  const std::function<void(const ScheduleHeader&)>& on_header_;
  const PhaseSink& on_phase_;

  State state_ = State::start;
  Json header_values_ = Json::object();
  std::string capture_name_, capture_key_;
  std::vector<Json*> capture_stack_;
  ScheduleHeader header_;
  bool header_built_ = false, seen_phases_ = false;
  std::vector<Phase> buffered_;
  std::vector<bool> buffered_has_ops_;

  Phase phase_;
  std::size_t phase_index_ = 0, transfer_index_ = 0, op_index_ = 0;
  BufferOp op_;
  unsigned op_keys_ = 0;
  OpField op_field_ = OpField::src;
  bool reading_from_ = true;  // which of "from" / "to" the slot being read is
  Tables tables_;
  std::optional<BufferState> state_machine_;  // format 3 with tables: derives each phase's table
  unsigned phase_keys_ = 0;
  bool reading_src_ = true;  // which of "src" / "dst" the next number is for
  Rank src_ = 0, dst_ = 0;
  bool have_src_ = false, have_dst_ = false, have_blocks_ = false;
  std::vector<Block> scratch_;
  Rank block_[3] = {0, 0, 0};
  unsigned block_len_ = 0;

  Source& input_;
  bool handoff_ = false, handed_off_ = false;
  std::size_t phases_key_ = 0;
  Resume resume_ = Resume::none;
  unsigned swallow_ = 0;        // synthetic events still to drop
  std::size_t skip_depth_ = 0;  // nesting inside the phase delivered already
  bool bounded_ = false, handed_back_ = false;
  std::size_t resumed_at_ = 0, progress_ = 0, phase_start_ = 0;
  std::size_t origin_lines_ = 0;     // lines of the file before the resumption
  std::ptrdiff_t origin_shift_ = 0;  // its column there, less the opening text's
};

}  // namespace

namespace {

/// An MSCCL XML file (io/msccl_xml.hpp) lowered to its format-3 program (core/msccl.hpp).
void read_msccl_schedule(std::string_view text, std::string_view source,
                         const std::function<void(const ScheduleHeader&)>& on_header,
                         const PhaseSink& on_phase, Tables tables) {
  Schedule s = msccl::lower(parse_msccl(text, source), source);
  on_header(s.header);
  std::optional<BufferState> state;
  if (tables == Tables::derive)
    state.emplace(s.header.collective, s.header.ranks(), *s.header.buffers);
  for (std::size_t i = 0; i < s.phases.size(); ++i) {
    Phase& phase = s.phases[i];
    if (state) state->apply(i, phase.ops(), phase, [](const OpFault&) {});
    on_phase(phase);
  }
}

/// Reads a JSON schedule: nlohmann's SAX parser for the header, the scanner (simdjson) for the
/// phases when the header comes first, and the SAX parser again for anything the scanner does not
/// take (io/schedule_json_stream.hpp has the whole story).
class JsonReader {
 public:
  JsonReader(std::istream& in, std::string_view source,
             const std::function<void(const ScheduleHeader&)>& on_header, const PhaseSink& on_phase,
             Tables tables, const detail::JsonReadOptions& options)
      : options_(options),
        window_(in, std::max<std::size_t>(options.max_window, 64), detail::kScanPadding),
        input_(window_),
        sax_(source, on_header, on_phase, tables, input_) {}

  void read() {
    input_.start(0);
    if (options_.scan) sax_.handoff();
    if (parse()) return;
    if (!sax_.handed_off()) throw std::logic_error("the JSON reader stopped without a reason");
    // The scanner's text starts at a replay point: where the SAX parser resumes when the scanner
    // stops, and a place the window keeps (with the byte before it, the text's opening bracket).
    Replay replay{true, sax_.phases_key(), 0};
    std::size_t window =
        std::min(std::max<std::size_t>(options_.window, 16), window_.max_size() - 1);
    detail::PhaseScanner scanner;
    for (;;) {
      const std::size_t from = replay.offset;
      // (An exhausted window is scanned as it is: a read error the stream had is the SAX
      // parser's to meet, after the bytes before it, when it needs more.)
      if (!window_.exhausted()) window_.fill(from - 1, from + window);
      // Everything the stream has is in the window; else the text ends at its last line break,
      // which is never inside a JSON string.
      const bool whole = window_.exhausted();
      std::size_t cut = window_.end();
      if (!whole) {
        const char* text = window_.at(from);
        const auto* line_end = static_cast<const char*>(memrchr(text, '\n', cut - from));
        cut = line_end == nullptr ? from : from + static_cast<std::size_t>(line_end - text) + 1;
      }
      std::size_t delivered = 0;
      const detail::ScanEnd end =
          cut == from
              ? detail::ScanEnd::window_end
              : scanner.scan(window_.at(from), window_.at(cut), replay.at_key, sax_.collective(),
                             [&](const char* start, Phase& phase, bool has_ops) {
                               sax_.deliver_scanned(phase, has_ops);
                               replay = {false, from + (start - window_.at(from)),
                                         sax_.phase_index() - 1};
                               ++delivered;
                             });
      switch (end) {
        case detail::ScanEnd::array_end:
        case detail::ScanEnd::invalid_text:
          return finish(replay);
        case detail::ScanEnd::window_end:
          if (whole) return finish(replay);       // the file ends inside a phase, or is not closed
          if (delivered > 0) break;               // on with the next window
          if (window < window_.max_size() - 1) {  // one phase is longer than the window
            window = std::min(2 * window, window_.max_size() - 1);
            break;
          }
          [[fallthrough]];  // longer than the largest window: the SAX parser reads it
        case detail::ScanEnd::refused:
          // The SAX parser reads a window's worth at least, so that a file the scanner keeps
          // refusing costs little more than the SAX parser alone.
          if (resume(replay, window)) return;
          if (!sax_.handed_back())
            throw std::logic_error("the JSON reader stopped without a reason");
          replay = {false, sax_.last_phase_start(), sax_.phase_index() - 1};
          break;
      }
    }
  }

 private:
  struct Replay {
    bool at_key;         ///< at the key "phases"; else at a phase delivered already
    std::size_t offset;  ///< the first byte of the key or of the phase
    std::size_t index;   ///< that phase's index (at the key: 0, the first phase's)
  };

  bool parse() {
    std::istream in(&input_);
    return Json::sax_parse(in, &sax_, nlohmann::json::input_format_t::json, /*strict=*/true);
  }

  /// The SAX parser from `replay` on: to the end of the document (true), or, with `progress`,
  /// until the end of a phase that the fast path can go on from (false).
  bool resume(const Replay& replay, std::optional<std::size_t> progress = std::nullopt) {
    // The synthetic text opens what is open at the replay point.
    const std::string_view opening = replay.at_key ? "{" : "{\"phases\":[";
    const auto [line, column] = window_.line_column(replay.offset);
    input_.start(replay.offset, opening);
    sax_.resume_at(replay.at_key, replay.index, progress.has_value(), progress.value_or(0), line,
                   column, opening.size());
    return parse();
  }

  void finish(const Replay& replay) {
    if (!resume(replay)) throw std::logic_error("the JSON reader stopped before the end");
  }

  detail::JsonReadOptions options_;
  detail::TextWindow window_;
  Source input_;
  ScheduleSax sax_;
};

/// Whether the stream holds XML: its first character that is not white space, after a UTF-8 byte
/// order mark, is '<'. Consumes the mark and the white space only (JSON ignores both) into
/// `skipped`, which the XML reader gets back so that its lines and columns count them.
bool xml_ahead(std::istream& in, std::string_view source, std::string& skipped) {
  if (in.peek() == 0xEF) {
    for (const char c : std::string_view("\xEF\xBB\xBF")) {
      if (in.peek() != static_cast<unsigned char>(c))
        throw InputError(std::string(source) +
                         ":1:1: invalid JSON: a stray byte at the start (not a UTF-8 byte order "
                         "mark)");
      skipped += static_cast<char>(in.get());
    }
  }
  while (in.peek() == ' ' || in.peek() == '\t' || in.peek() == '\r' || in.peek() == '\n')
    skipped += static_cast<char>(in.get());
  return in.peek() == '<';
}

}  // namespace

void read_schedule(std::istream& in, std::string_view source,
                   const std::function<void(const ScheduleHeader&)>& on_header,
                   const PhaseSink& on_phase, Tables tables) {
  if (binary_ahead(in)) {  // the binary stream (io/schedule_binary.hpp): phase tables only
    read_binary_schedule(in, source, on_header, on_phase);
    return;
  }
  if (std::string text; xml_ahead(in, source, text)) {
    text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) throw InputError(std::string(source) + ": read error");
    read_msccl_schedule(text, source, on_header, on_phase, tables);
    return;
  }
  detail::read_json_schedule(in, source, on_header, on_phase, tables, {});
}

void detail::read_json_schedule(std::istream& in, std::string_view source,
                                const std::function<void(const ScheduleHeader&)>& on_header,
                                const PhaseSink& on_phase, Tables tables,
                                const JsonReadOptions& options) {
  JsonReader(in, source, on_header, on_phase, tables, options).read();
  if (in.bad()) throw InputError(std::string(source) + ": read error");
}

void read_schedule_file(const std::string& path,
                        const std::function<void(const ScheduleHeader&)>& on_header,
                        const PhaseSink& on_phase, Tables tables) {
  InputFile in(path);
  read_schedule(in.stream(), in.name(), on_header, on_phase, tables);
}

namespace {

Schedule read_whole(const std::function<void(const std::function<void(const ScheduleHeader&)>&,
                                             const PhaseSink&)>& read) {
  Schedule s;
  read([&](const ScheduleHeader& h) { s.header = h; }, collect_into(s.phases));
  return s;
}

}  // namespace

Schedule read_schedule_file(const std::string& path,
                            const std::function<void(const ScheduleHeader&)>& check_header) {
  return read_whole([&](const auto& on_header, const auto& on_phase) {
    read_schedule_file(
        path,
        [&](const ScheduleHeader& h) {
          if (check_header) {
            try {
              check_header(h);
            } catch (const InputError& e) {
              throw InputError(path + ": " + e.what());
            }
          }
          on_header(h);
        },
        on_phase);
  });
}

Schedule parse_schedule(std::string_view text, std::string_view source) {
  std::istringstream in{std::string(text)};
  return read_whole([&](const auto& on_header, const auto& on_phase) {
    read_schedule(in, source, on_header, on_phase);
  });
}

// --- writing

ScheduleWriter::ScheduleWriter(std::ostream& out, const ScheduleHeader& header)
    : out_(out), collective_(header.collective), program_(header.buffers.has_value()) {
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& [k, v] : header.parameters.entries()) params[k] = v;
  const bool v2 = !program_ && header.parts > 1;
  out_ << "{\n"
       << "  \"format\": \""
       << (program_ ? kScheduleFormatV3
           : v2     ? kScheduleFormatV2
                    : kScheduleFormat)
       << "\",\n"
       << "  \"algorithm\": " << detail::dump(Json(header.algorithm)) << ",\n"
       << "  \"collective\": \"" << to_string(header.collective) << "\",\n"
       << "  \"ranks\": " << header.ranks() << ",\n";
  if (v2) out_ << "  \"parts\": " << header.parts << ",\n";
  if (program_) {
    const BufferLayout& b = *header.buffers;
    out_ << "  \"chunks\": " << b.chunks << ",\n";
    if (header.collective == Collective::allgather)
      out_ << "  \"inplace\": " << (b.inplace ? "true" : "false") << ",\n";
    out_ << "  \"buffers\": {\"input\": " << b.input << ", \"output\": " << b.output
         << ", \"scratch\": " << b.scratch << "},\n";
  }
  out_ << "  \"parameters\": " << detail::dump(params) << ",\n"
       << "  \"topology\": " << detail::dump(detail::topology_to_json_value(header.topology))
       << ",\n"
       << "  \"phases\": [";
}

void ScheduleWriter::ops(const Phase& phase) {
  buffer_.clear();
  buffer_ += phases_++ == 0 ? "\n" : ",\n";
  buffer_ += "    {\"label\": " + detail::dump(Json(phase.label())) + ", \"ops\": [";
  char num[16];
  const auto append = [&](std::uint32_t v) {
    const auto end = std::to_chars(num, num + sizeof num, v).ptr;
    buffer_.append(num, end);
  };
  const auto slot = [&](Slot s) {
    buffer_ += "[\"";
    buffer_ += to_string(s.buffer);
    buffer_ += "\", ";
    append(s.index);
    buffer_ += "]";
  };
  const auto ops = phase.ops();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const BufferOp& op = ops[i];
    buffer_ += i == 0 ? "\n      {" : ",\n      {";
    if (op.local()) {
      buffer_ += "\"rank\": ";
      append(op.src);
    } else {
      buffer_ += "\"src\": ";
      append(op.src);
      buffer_ += ", \"dst\": ";
      append(op.dst);
    }
    buffer_ += ", \"from\": ";
    slot(op.from);
    buffer_ += ", \"to\": ";
    slot(op.to);
    buffer_ += ", \"count\": ";
    append(op.count);
    buffer_ += "}";
  }
  buffer_ += ops.empty() ? "]}" : "\n    ]}";
  out_ << buffer_;
}

void ScheduleWriter::phase(const Phase& phase) {
  if (program_) return ops(phase);
  buffer_.clear();
  buffer_ += phases_++ == 0 ? "\n" : ",\n";
  buffer_ += "    {\"label\": " + detail::dump(Json(phase.label())) + ", \"transfers\": [";
  char num[16];
  const auto append = [&](std::uint32_t v) {
    const auto end = std::to_chars(num, num + sizeof num, v).ptr;
    buffer_.append(num, end);
  };
  for (std::size_t i = 0; i < phase.size(); ++i) {
    const Transfer& t = phase[i];
    buffer_ += i == 0 ? "\n      {\"src\": " : ",\n      {\"src\": ";
    append(t.src);
    buffer_ += ", \"dst\": ";
    append(t.dst);
    const auto blocks = phase.blocks(t);
    if (!(blocks.size() == 1 && blocks[0] == direct_block(collective_, t.src, t.dst))) {
      buffer_ += ", \"blocks\": [";
      for (std::size_t b = 0; b < blocks.size(); ++b) {
        buffer_ += b == 0 ? "[" : ", [";
        append(blocks[b].origin);
        if (blocks[b].dest != kEveryRank) {
          buffer_ += ", ";
          append(blocks[b].dest);
        }
        if (blocks[b].part > 0) {
          buffer_ += ", ";
          append(blocks[b].part);
        }
        buffer_ += "]";
      }
      buffer_ += "]";
    }
    buffer_ += "}";
  }
  buffer_ += phase.empty() ? "]}" : "\n    ]}";
  out_ << buffer_;
}

void ScheduleWriter::finish() { out_ << (phases_ == 0 ? "]\n}\n" : "\n  ]\n}\n"); }

std::string schedule_to_json(const Schedule& s) {
  std::ostringstream os;
  ScheduleWriter w(os, s.header);
  for (const Phase& p : s.phases) w.phase(p);
  w.finish();
  return os.str();
}

}  // namespace phasecheck::io
