// Schedule files: a SAX reader that hands over one phase at a time, and a writer with one
// transfer per line. docs/formats.md is the specification.

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>
#include <vector>

#include "core/buffer_state.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "io/json.hpp"
#include "io/schedule_binary.hpp"
#include "io/msccl_xml.hpp"
#include "core/msccl.hpp"
#include "io/json_common.hpp"

namespace phasecheck::io {
namespace {

using detail::Json;

constexpr const char* kRequiredKeys[] = {"format", "algorithm", "collective", "ranks"};
constexpr const char* kHeaderKeys[] = {"format",   "algorithm",  "collective", "ranks",
                                       "topology", "parameters", "parts",      "chunks",
                                       "inplace",  "buffers"};

/// The SAX consumer. The parser (nlohmann's) calls one method per JSON event; this class keeps
/// a small state machine for the phase table and builds ordinary JSON values for the header.
class ScheduleSax {
 public:
  ScheduleSax(std::string_view source, const std::function<void(const ScheduleHeader&)>& on_header,
              const PhaseSink& on_phase, Tables tables)
      : source_(source), on_header_(on_header), on_phase_(on_phase), tables_(tables) {}

  // --- scalars
  bool null() { return scalar(Json(nullptr), "null"); }
  bool boolean(bool v) { return scalar(Json(v), "a boolean"); }
  bool number_integer(std::int64_t v) {
    return scalar(Json(v), v < 0 ? "a negative number" : "an integer");
  }
  bool number_float(double v, const std::string&) {
    return scalar(Json(v), "a non-integer number");
  }
  bool binary(Json::binary_t&) { return scalar(Json(), "binary data"); }
  bool string(std::string& v) {
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
    switch (state_) {
      case State::start:
        state_ = State::top;
        return true;
      case State::phases:
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
    switch (state_) {
      case State::expect_phases:
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
    detail::throw_json_error(source_, at, token, e);
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
      if (header_complete()) build_header();
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
    for (std::size_t i = 0; i < out.size(); ++i)
      if (const auto problem =
              transfer_problem(out, out[i], header_.collective, header_.ranks(), header_.parts))
        fail("phases[" + std::to_string(index) + "].transfers[" + std::to_string(i) + "]",
             *problem);
    on_phase_(out);
  }

  /// Version 3: validates the ops and, unless the consumer derives them itself, fills in the
  /// table the sends form.
  void deliver_program(Phase& phase, std::size_t index) {
    const std::string path = "phases[" + std::to_string(index) + "]";
    const auto ops = phase.ops();
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (const auto problem = op_problem(ops[i], header_.ranks()))
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

/// Whether the stream holds XML: its first character that is not white space is '<'. Consumes
/// the white space only (JSON ignores it too).
bool xml_ahead(std::istream& in) {
  while (in.peek() == ' ' || in.peek() == '\t' || in.peek() == '\r' || in.peek() == '\n')
    in.get();
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
  if (xml_ahead(in)) {
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw InputError(std::string(source) + ": read error");
    read_msccl_schedule(text, source, on_header, on_phase, tables);
    return;
  }
  ScheduleSax sax(source, on_header, on_phase, tables);
  Json::sax_parse(in, &sax, nlohmann::json::input_format_t::json, /*strict=*/true);
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
