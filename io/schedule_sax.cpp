// The schedule reader's state machine: the SAX consumer behind read_schedule, with the events of
// the header captured as JSON values and those of the phases run through an explicit state per
// place in the document (io/schedule_sax.hpp). docs/formats.md is the specification.

#include "io/schedule_sax.hpp"

#include <algorithm>
#include <cstdint>
#include <istream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/buffers.hpp"
#include "core/error.hpp"
#include "io/json_common.hpp"
#include "io/schedule_header.hpp"
#include "io/schedule_keys.hpp"
#include "io/schedule_phases.hpp"

namespace phasecheck::io::detail {

/// The SAX consumer (see the header): nlohmann's parser calls one method per JSON event.
class ScheduleSax::Machine {
 public:
  Machine(std::string_view source, const std::function<void(const ScheduleHeader&)>& on_header,
          const PhaseSink& on_phase, Tables tables, JsonSource& input)
      : source_(source),
        on_header_(on_header),
        on_phase_(on_phase),
        tables_(tables),
        input_(input) {}

  bool parse() {
    std::istream in(&input_);
    return Json::sax_parse(in, this, nlohmann::json::input_format_t::json, /*strict=*/true);
  }

  // --- the fast path's side (ScheduleSax's public methods, which have their contracts)
  void handoff() { handoff_ = true; }
  bool handed_off() const { return handed_off_; }
  std::size_t phases_key() const { return phases_key_; }
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
  std::size_t last_phase_start() const { return phase_start_; }
  void deliver_scanned(Phase& phase, bool has_ops) {
    delivery_->deliver(phase, phase_index_, has_ops);
    ++phase_index_;
  }
  std::size_t phase_index() const { return phase_index_; }
  Collective collective() const { return header_.collective; }

  // --- scalars
  bool null() {
    if (resuming() && replayed(Event::scalar)) return true;
    if (state_ == State::block && block_len_ == 1) {  // [origin, null, part]: every rank's
      block_[block_len_++] = kEveryRank;
      return true;
    }
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
        fail(op_path() + "." + op_field_name(),
             "unknown buffer \"" + v + "\" (the buffers are input, output and scratch)");
      slot().buffer = *buffer;
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
        const bool is_count = op_field_ == OpKey::count;
        if (is_count ? v > std::numeric_limits<std::uint32_t>::max() : v >= kMaxRanks)
          fail(op_path() + "." + op_field_name(),
               is_count ? "count " + std::to_string(v) + " is larger than any buffer"
                        : "rank " + std::to_string(v) + " does not exist");
        if (is_count && v == 0) fail(op_path() + ".count", "must be at least 1");
        const auto value = static_cast<std::uint32_t>(v);
        switch (op_field_) {
          case OpKey::src:
            op_.src = value;
            break;
          case OpKey::dst:
            op_.dst = value;
            break;
          case OpKey::rank:
            op_.src = op_.dst = value;
            break;
          case OpKey::count:
            op_.count = value;
            break;
          case OpKey::from:
          case OpKey::to:  // their values are [buffer, slot]: State::expect_slot
            throw std::logic_error("a slot read as a number");
        }
        state_ = State::op;
        return true;
      }
      case State::slot_index:
        if (v > kMaxSlots)
          fail(op_path() + "." + op_field_name(), "slot " + std::to_string(v) +
                                                      " is beyond any buffer (at most " +
                                                      std::to_string(kMaxSlots) + " slots)");
        slot().index = static_cast<std::uint32_t>(v);
        state_ = State::slot_end;
        return true;
      // Anywhere else an integer is a header value or out of place.
      case State::start:
      case State::top:
      case State::capture:
      case State::expect_phases:
      case State::phases:
      case State::phase:
      case State::label:
      case State::expect_transfers:
      case State::transfers:
      case State::transfer:
      case State::expect_blocks:
      case State::blocks:
      case State::expect_ops:
      case State::ops:
      case State::op:
      case State::expect_slot:
      case State::slot_name:
      case State::slot_end:
      case State::done:
        break;
    }
    return scalar(Json(v), "an integer");
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
        phase_keys_ = {};
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
        op_keys_ = {};
        state_ = State::op;
        return true;
      case State::capture:
        return open(Json::object());
      // Anywhere else: out of place.
      case State::top:
      case State::expect_phases:
      case State::phase:
      case State::label:
      case State::expect_transfers:
      case State::transfer:
      case State::transfer_number:
      case State::expect_blocks:
      case State::blocks:
      case State::block:
      case State::expect_ops:
      case State::op:
      case State::op_number:
      case State::expect_slot:
      case State::slot_name:
      case State::slot_index:
      case State::slot_end:
      case State::done:
        break;
    }
    return unexpected("an object");
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
      // Anywhere else: out of place.
      case State::start:
      case State::top:
      case State::phases:
      case State::phase:
      case State::label:
      case State::transfers:
      case State::transfer:
      case State::transfer_number:
      case State::block:
      case State::ops:
      case State::op:
      case State::op_number:
      case State::slot_name:
      case State::slot_index:
      case State::slot_end:
      case State::done:
        break;
    }
    return unexpected("an array");
  }
  bool key(std::string& k) {
    if (resuming() && replayed(Event::key)) return true;
    switch (state_) {
      case State::top:
        return top_key(k);
      case State::phase:
        if (k == "label") return phase_key(PhaseKey::label, State::label, k);
        if (k == "transfers") return phase_key(PhaseKey::transfers, State::expect_transfers, k);
        if (k == "ops") return phase_key(PhaseKey::ops, State::expect_ops, k);
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
      // Anywhere else: out of place.
      case State::start:
      case State::expect_phases:
      case State::phases:
      case State::label:
      case State::expect_transfers:
      case State::transfers:
      case State::transfer_number:
      case State::expect_blocks:
      case State::blocks:
      case State::block:
      case State::expect_ops:
      case State::ops:
      case State::op_number:
      case State::expect_slot:
      case State::slot_name:
      case State::slot_index:
      case State::slot_end:
      case State::done:
        break;
    }
    return unexpected("a key");
  }
  bool end_object() {
    if (resuming() && replayed(Event::close)) return true;
    switch (state_) {
      case State::top:
        return end_top();
      case State::phase:
        if (!phase_keys_.has(PhaseKey::transfers) && !phase_keys_.has(PhaseKey::ops))
          fail(phase_path(), "missing \"transfers\" (or \"ops\", version 3)");
        if (phase_keys_.has(PhaseKey::transfers) && phase_keys_.has(PhaseKey::ops))
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
      // Anywhere else: out of place.
      case State::start:
      case State::expect_phases:
      case State::phases:
      case State::label:
      case State::expect_transfers:
      case State::transfers:
      case State::transfer_number:
      case State::expect_blocks:
      case State::blocks:
      case State::block:
      case State::expect_ops:
      case State::ops:
      case State::op_number:
      case State::expect_slot:
      case State::slot_name:
      case State::slot_index:
      case State::slot_end:
      case State::done:
        break;
    }
    return unexpected("the end of an object");
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
        if (block_len_ == 2 && block_[1] == kEveryRank)
          fail(block_path(),
               "[origin, null] has no part; an allgather block is [origin] or "
               "[origin, null, part]");
        scratch_.push_back(block_len_ == 1   ? Block{block_[0], kEveryRank}
                           : block_len_ == 2 ? Block{block_[0], block_[1]}
                                             : Block{block_[0], block_[1], block_[2]});
        state_ = State::blocks;
        return true;
      }
      case State::capture:
        return close();
      // Anywhere else: out of place.
      case State::start:
      case State::top:
      case State::expect_phases:
      case State::phase:
      case State::label:
      case State::expect_transfers:
      case State::transfer:
      case State::transfer_number:
      case State::expect_blocks:
      case State::expect_ops:
      case State::op:
      case State::op_number:
      case State::expect_slot:
      case State::slot_name:
      case State::slot_index:
      case State::done:
        break;
    }
    return unexpected("the end of an array");
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
  /// The key whose value is being read ("src", "from", ...).
  const char* op_field_name() const { return name(op_field_); }
  /// The slot being read: the op's "from" or its "to".
  Slot& slot() { return op_field_ == OpKey::from ? op_.from : op_.to; }
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
               (op_field_ == OpKey::count ? " (expected a positive integer)"
                                          : " (expected a non-negative integer)");
      case State::expect_slot:
        return op_path() + "." + op_field_name() + " (expected [buffer, slot])";
      case State::slot_name:
        return op_path() + "." + op_field_name() +
               "[0] (expected \"input\", \"output\" or \"scratch\")";
      case State::slot_index:
        return op_path() + "." + op_field_name() + "[1] (expected a non-negative integer)";
      case State::slot_end:
        return op_path() + "." + op_field_name() + " (expected the end of [buffer, slot])";
      case State::capture:  // (every event is a header value's there)
        return capture_name_;
      case State::done:
        return "the end of the document";
    }
    return "the end of the document";
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
      if (header_complete(header_values_) && !header_built_) build_header();
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
    if (!is_header_key(k)) fail("", "unknown key \"" + k + "\"");
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

  void build_header() {
    header_ = header_from_json(header_values_, source_, [&](const ScheduleHeader& shape) {
      delivery_.emplace(source_, shape, tables_, on_phase_);
    });
    header_built_ = true;
    on_header_(header_);
  }

  bool end_top() {
    if (!seen_phases_) fail("", "missing \"phases\"");
    if (!header_built_) {
      build_header();
      for (std::size_t i = 0; i < buffered_.size(); ++i)
        delivery_->deliver(buffered_[i], i, buffered_has_ops_[i]);
      buffered_.clear();
    }
    state_ = State::done;
    return true;
  }

  bool phase_key(PhaseKey key, State next, const std::string& k) {
    if (!phase_keys_.add(key)) fail(phase_path(), "\"" + k + "\" is given twice");
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
    const auto it = std::find(kOpKeyNames.begin(), kOpKeyNames.end(), std::string_view(k));
    if (it == kOpKeyNames.end())
      fail(op_path(), "unknown key \"" + k +
                          "\" (a send has \"src\", \"dst\", \"from\", \"to\", \"count\"; a "
                          "local copy has \"rank\" in place of \"src\" and \"dst\")");
    const auto key = static_cast<OpKey>(it - kOpKeyNames.begin());
    if (!op_keys_.add(key)) fail(op_path(), "\"" + k + "\" is given twice");
    op_field_ = key;
    state_ = key == OpKey::from || key == OpKey::to ? State::expect_slot : State::op_number;
    return true;
  }

  bool end_op() {
    const bool send = op_keys_.has(OpKey::src) || op_keys_.has(OpKey::dst);
    if (send && op_keys_.has(OpKey::rank))
      fail(op_path(), "has both \"rank\" (a local copy) and \"src\"/\"dst\" (a send)");
    if (send && !op_keys_.has(OpKey::src)) fail(op_path(), "missing \"src\"");
    if (send && !op_keys_.has(OpKey::dst)) fail(op_path(), "missing \"dst\"");
    if (!send && !op_keys_.has(OpKey::rank))
      fail(op_path(), "missing \"src\" and \"dst\" (a send) or \"rank\" (a local copy)");
    if (!op_keys_.has(OpKey::from)) fail(op_path(), "missing \"from\"");
    if (!op_keys_.has(OpKey::to)) fail(op_path(), "missing \"to\"");
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
    const bool has_ops = phase_keys_.has(PhaseKey::ops);
    if (header_built_) {
      delivery_->deliver(phase_, phase_index_, has_ops);
    } else {
      buffered_.push_back(phase_);
      buffered_has_ops_.push_back(has_ops);
    }
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
  KeySet<OpKey> op_keys_;
  OpKey op_field_ = OpKey::src;  // the key whose value is being read
  Tables tables_;
  std::optional<PhaseDelivery> delivery_;  // once the header is known
  KeySet<PhaseKey> phase_keys_;
  bool reading_src_ = true;  // which of "src" / "dst" the next number is for
  Rank src_ = 0, dst_ = 0;
  bool have_src_ = false, have_dst_ = false, have_blocks_ = false;
  std::vector<Block> scratch_;
  Rank block_[3] = {0, 0, 0};
  unsigned block_len_ = 0;

  JsonSource& input_;
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

ScheduleSax::ScheduleSax(std::string_view source,
                         const std::function<void(const ScheduleHeader&)>& on_header,
                         const PhaseSink& on_phase, Tables tables, JsonSource& input)
    : machine_(std::make_unique<Machine>(source, on_header, on_phase, tables, input)) {}
ScheduleSax::~ScheduleSax() = default;

bool ScheduleSax::parse() { return machine_->parse(); }
void ScheduleSax::handoff() { machine_->handoff(); }
bool ScheduleSax::handed_off() const { return machine_->handed_off(); }
std::size_t ScheduleSax::phases_key() const { return machine_->phases_key(); }
void ScheduleSax::resume_at(bool at_key, std::size_t index, bool bounded, std::size_t progress,
                            std::size_t line, std::size_t column, std::size_t opening) {
  machine_->resume_at(at_key, index, bounded, progress, line, column, opening);
}
bool ScheduleSax::handed_back() const { return machine_->handed_back(); }
std::size_t ScheduleSax::last_phase_start() const { return machine_->last_phase_start(); }
void ScheduleSax::deliver_scanned(Phase& phase, bool has_ops) {
  machine_->deliver_scanned(phase, has_ops);
}
std::size_t ScheduleSax::phase_index() const { return machine_->phase_index(); }
Collective ScheduleSax::collective() const { return machine_->collective(); }

}  // namespace phasecheck::io::detail
