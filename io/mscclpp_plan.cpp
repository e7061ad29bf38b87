#include "io/mscclpp_plan.hpp"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/buffers.hpp"
#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/topology.hpp"
#include "io/json_common.hpp"

namespace phasecheck::io {

namespace {

using Element = simdjson::dom::element;
using mscclpp::ChannelType;
using mscclpp::OpKind;
using simdjson::dom::element_type;

/// Ops in one file, at most (a pipeline's ops counted): far more than a 64-gpu plan holds, since
/// the executor runs at most 64 ops a threadblock.
constexpr std::uint64_t kMaxOpsPerFile = 4'000'000;
/// What simdjson's document takes per byte of text, at most: its tape (8 bytes a byte), its
/// strings (5/3 of a byte) and a padded copy of the text.
constexpr std::uint64_t kDocumentBytesPerTextByte = 11;
/// The same for nlohmann's document, which only a malformed plan's message needs: a value is 16
/// bytes, an object's member about 100, and `[{},{}]` packs an object into 3 bytes.
constexpr std::uint64_t kMessageDocumentBytesPerTextByte = 32;
constexpr std::uint64_t kMaxUint32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();

std::string counted(std::uint64_t n, std::string_view what) {
  return std::to_string(n) + " " + std::string(what) + (n == 1 ? "" : "s");
}

/// As detail::type_name says it of nlohmann's values.
std::string type_name(Element e) {
  switch (e.type()) {
    case element_type::ARRAY:
      return "an array";
    case element_type::OBJECT:
      return "an object";
    case element_type::INT64:
      return e.get_int64().value_unsafe() < 0 ? "a negative number" : "a number";
    case element_type::UINT64:
      return "a number";
    case element_type::DOUBLE:
      return "a non-integer or out-of-range number";
    case element_type::STRING:
      return "a string";
    case element_type::BOOL:
      return "a boolean";
    case element_type::NULL_VALUE:
      return "a null";
  }
  return "a value";
}

class Items;

/// A value of the plan's document and where it is: a child keeps its parent and its key or
/// index, and the JSON path is spelled only when something is wrong, so that reading a large
/// plan builds no strings. A child must not outlive its parent (they live on the reader's stack).
class Node {
 public:
  Node(Element value, std::string_view source) : value_(value), source_(source) {}

  Element json() const { return value_; }
  /// Its position in its array.
  std::size_t index() const { return index_; }
  /// A member the executor requires.
  Node key(std::string_view name) const {
    if (const auto n = find(name)) return *n;
    fail("missing \"" + std::string(name) + "\"");
  }
  /// A member the executor reads only when present (objects are small: a linear search).
  std::optional<Node> find(std::string_view name) const {
    for (const auto field : object())
      if (field.key == name) return Node(field.value, this, name, 0);
    return std::nullopt;
  }
  std::size_t size() const { return array().size(); }
  /// The elements of an array, in order.
  Items items() const;

  simdjson::dom::object object() const {
    if (value_.type() != element_type::OBJECT) fail("expected an object, got " + type_name(value_));
    return value_.get_object().value_unsafe();
  }
  simdjson::dom::array array() const {
    if (value_.type() != element_type::ARRAY) fail("expected an array, got " + type_name(value_));
    return value_.get_array().value_unsafe();
  }
  std::string string() const {
    if (value_.type() != element_type::STRING) fail("expected a string, got " + type_name(value_));
    const std::string_view s = value_.get_string().value_unsafe();
    if (s.find('\0') != std::string_view::npos) fail("a string with a NUL character (\\u0000)");
    return std::string(s);
  }
  bool boolean() const {
    if (value_.type() != element_type::BOOL)
      fail("expected true or false, got " + type_name(value_));
    return value_.get_bool().value_unsafe();
  }
  /// A non-negative integer in [min, max].
  std::uint64_t uint(std::uint64_t max, std::uint64_t min = 0) const {
    std::uint64_t v = 0;
    if (value_.type() == element_type::UINT64)
      v = value_.get_uint64().value_unsafe();
    else if (value_.type() == element_type::INT64 && value_.get_int64().value_unsafe() >= 0)
      v = static_cast<std::uint64_t>(value_.get_int64().value_unsafe());
    else
      fail("expected a non-negative integer, got " + type_name(value_));
    if (v > max) fail(std::to_string(v) + " is too large (at most " + std::to_string(max) + ")");
    if (v < min) fail(std::to_string(v) + " is too small (at least " + std::to_string(min) + ")");
    return v;
  }
  std::uint32_t uint32(std::uint64_t max = kMaxUint32, std::uint64_t min = 0) const {
    return static_cast<std::uint32_t>(uint(max, min));
  }

  [[noreturn]] void fail(const std::string& what) const { detail::throw_at(source_, path(), what); }

  /// "gpus[3].threadblocks[1].ops[7]".
  std::string path() const {
    std::vector<const Node*> chain;
    for (const Node* n = this; n->parent_; n = n->parent_) chain.push_back(n);
    std::string p;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const Node& n = **it;
      if (n.key_.data() == nullptr) {
        p += "[" + std::to_string(n.index_) + "]";
      } else {
        if (!p.empty()) p += ".";
        p += n.key_;
      }
    }
    return p;
  }

 private:
  friend class Items;
  Node(Element value, const Node* parent, std::string_view key, std::size_t index)
      : value_(value), parent_(parent), key_(key), index_(index), source_(parent->source_) {}

  Element value_;
  const Node* parent_ = nullptr;
  std::string_view key_;  ///< null for an array's element
  std::size_t index_ = 0;
  std::string_view source_;
};

/// An array's elements as Nodes (simdjson's arrays are walked, not indexed).
class Items {
 public:
  class iterator {
   public:
    iterator(simdjson::dom::array::iterator at, const Node* parent) : at_(at), parent_(parent) {}
    Node operator*() const { return Node(*at_, parent_, {}, index_); }
    iterator& operator++() {
      ++at_;
      ++index_;
      return *this;
    }
    bool operator!=(const iterator& other) const { return at_ != other.at_; }

   private:
    simdjson::dom::array::iterator at_;
    const Node* parent_;
    std::size_t index_ = 0;
  };
  Items(simdjson::dom::array array, const Node* parent) : array_(array), parent_(parent) {}
  iterator begin() const { return {array_.begin(), parent_}; }
  iterator end() const { return {array_.end(), parent_}; }

 private:
  simdjson::dom::array array_;
  const Node* parent_;
};

Items Node::items() const { return {array(), this}; }

/// Counts per channel type, indexed by the enumerator.
using PerType = std::array<std::uint32_t, 4>;
std::size_t slot(ChannelType t) { return static_cast<std::size_t>(t); }

ChannelType channel_type(const Node& n) {
  const std::string name = n.string();
  if (const auto t = mscclpp::parse_channel_type(name)) return *t;
  n.fail("unknown channel type \"" + text_escape(name) + "\" (memory, port, switch or none)");
}

/// A type the gpu's channels, a threadblock's channels and remote buffers may have: "none"
/// connects nothing, and the executor would set up a connection of no kind.
ChannelType connecting_type(const Node& n) {
  const ChannelType t = channel_type(n);
  if (t == ChannelType::none) n.fail("a channel of type \"none\" connects nothing");
  return t;
}

/// Remote buffers are reached by memory or port channels (the executor has no other lists).
ChannelType access_type(const Node& n) {
  const ChannelType t = channel_type(n);
  if (t != ChannelType::memory && t != ChannelType::port)
    n.fail("remote buffers are reached by memory or port channels, not \"" +
           std::string(mscclpp::to_string(t)) + "\"");
  return t;
}

Buffer buffer_type(const Node& n) {
  const std::string name = n.string();
  if (name == "i") return Buffer::input;
  if (name == "o") return Buffer::output;
  if (name == "s") return Buffer::scratch;
  n.fail("unknown buffer type \"" + text_escape(name) + "\" (i, o or s)");
}

std::string_view buffer_letter(Buffer b) {
  switch (b) {
    case Buffer::input:
      return "i";
    case Buffer::output:
      return "o";
    case Buffer::scratch:
      return "s";
  }
  return "?";
}

/// Ops, buffer references and threadblocks of the document, counted before any is built (values
/// of the wrong type are skipped here; the reader refuses them). A pipeline's ops count once:
/// a pipeline inside one is refused before its ops are built.
struct Sizes {
  std::uint64_t ops = 0, buffers = 0, threadblocks = 0;
};

std::optional<simdjson::dom::array> array_member(Element e, std::string_view key) {
  simdjson::dom::array a;
  if (e.type() != element_type::OBJECT || e[key].get_array().get(a)) return std::nullopt;
  return a;
}

void count_op(Element op, Sizes& s) {
  ++s.ops;
  for (const std::string_view key : {"src_buff", "dst_buff"})
    if (const auto b = array_member(op, key)) s.buffers += b->size();
}

Sizes count(Element plan) {
  Sizes s;
  if (const auto gpus = array_member(plan, "gpus"))
    for (const Element gpu : *gpus)
      if (const auto tbs = array_member(gpu, "threadblocks"))
        for (const Element tb : *tbs) {
          ++s.threadblocks;
          if (const auto ops = array_member(tb, "ops"))
            for (const Element op : *ops) {
              count_op(op, s);
              if (const auto inner = array_member(op, "ops"))
                for (const Element i : *inner) count_op(i, s);
            }
        }
  return s;
}

/// What an op of a threadblock may name: the threadblock's channels and remote buffers per
/// type, and the gpu's semaphores.
struct Scope {
  std::uint32_t gpu = 0, threadblock = 0;
  PerType channels{}, remote_buffers{};
  std::uint32_t semaphores = 0;
};

class Reader {
 public:
  explicit Reader(std::uint32_t gpus) : gpus_(gpus) {}
  mscclpp::Gpu gpu(const Node& n) const;

 private:
  std::uint32_t peer(const Node& n) const;
  void channels(const Node& n, mscclpp::Gpu& g, PerType& flattened) const;
  void remote_buffers(const Node& n, mscclpp::Gpu& g) const;
  mscclpp::Threadblock threadblock(const Node& n, std::size_t count, const mscclpp::Gpu& g,
                                   const PerType& gpu_channels) const;
  mscclpp::Op op(const Node& n, const Scope& s, bool in_pipeline) const;
  mscclpp::BufferRef buffer_ref(const Node& n, const mscclpp::Op& op, const Scope& s) const;
  void channel_ids(const Node& n, mscclpp::Op& op, const Scope& s) const;

  std::uint32_t gpus_;
};

std::uint32_t Reader::peer(const Node& n) const {
  const std::uint32_t r = n.uint32();
  if (r >= gpus_)
    n.fail("gpu " + std::to_string(r) + " is beyond the plan's " + counted(gpus_, "gpu"));
  return r;
}

mscclpp::Gpu Reader::gpu(const Node& n) const {
  const std::size_t index = n.index();
  mscclpp::Gpu g;
  const Node id = n.key("id");
  g.id = id.uint32();
  if (g.id != index)
    id.fail("gpu id " + std::to_string(g.id) + " at position " + std::to_string(index) +
            " (the executor finds gpu r at gpus[r])");
  g.input_chunks = n.key("input_chunks").uint32(kMaxSlots);
  g.output_chunks = n.key("output_chunks").uint32(kMaxSlots);
  g.scratch_chunks = n.key("scratch_chunks").uint32(kMaxSlots);
  // Chunk counts of 0 are read (the DSL's own unit tests write them for plans that move no
  // data): every index is then outside its buffer, which the model reports.

  PerType flattened{};
  channels(n.key("channels"), g, flattened);
  remote_buffers(n.key("remote_buffers"), g);
  if (const auto sems = n.find("semaphores")) {
    g.semaphores.reserve(sems->size());
    for (const Node sem : sems->items())
      g.semaphores.push_back({static_cast<std::int64_t>(sem.key("init_value").uint(kMaxInt32))});
  }
  const Node tbs = n.key("threadblocks");
  g.threadblocks.reserve(tbs.size());
  for (const Node tb : tbs.items())
    g.threadblocks.push_back(threadblock(tb, tbs.size(), g, flattened));
  return g;
}

void Reader::channels(const Node& n, mscclpp::Gpu& g, PerType& flattened) const {
  g.channels.reserve(n.size());
  for (const Node c : n.items()) {
    mscclpp::Channel channel;
    channel.type = connecting_type(c.key("channel_type"));
    // A switch channel (NVLS) has buffer_type and rank_groups instead of peers: kept by its
    // type only, for the model to refuse by name.
    if (channel.type != ChannelType::switch_channel) {
      const Node peers = c.key("connected_to");
      channel.connected_to.reserve(peers.size());
      for (const Node to : peers.items()) {
        const std::uint32_t r = peer(to);
        if (r == g.id) to.fail("gpu " + std::to_string(r) + " has a channel to itself");
        channel.connected_to.push_back(r);
      }
      flattened[slot(channel.type)] += static_cast<std::uint32_t>(peers.size());
    }
    g.channels.push_back(std::move(channel));
  }
}

void Reader::remote_buffers(const Node& n, mscclpp::Gpu& g) const {
  g.remote_buffers.reserve(n.size());
  for (const Node b : n.items()) {
    mscclpp::RemoteBuffer buffer;
    buffer.rank = peer(b.key("rank"));
    buffer.type = buffer_type(b.key("type"));
    const Node access = b.key("access_channel_types");
    for (const Node a : access.items()) buffer.access_channel_types.push_back(access_type(a));
    g.remote_buffers.push_back(std::move(buffer));
  }
}

mscclpp::Threadblock Reader::threadblock(const Node& n, std::size_t count, const mscclpp::Gpu& g,
                                         const PerType& gpu_channels) const {
  const std::size_t index = n.index();
  mscclpp::Threadblock tb;
  const Node id = n.key("id");
  tb.id = id.uint32();
  // The executor runs the i-th threadblock listed as block i, with the channels and remote
  // buffers of the threadblock whose id is i: only ids in order mean one threadblock.
  if (tb.id >= count)
    id.fail("threadblock id " + std::to_string(tb.id) + " is beyond the gpu's " +
            counted(count, "threadblock") + " (ids are 0.." + std::to_string(count - 1) + ")");
  if (tb.id < index)
    id.fail("threadblock id " + std::to_string(tb.id) + " appears twice (threadblocks[" +
            std::to_string(tb.id) + "] has it)");
  if (tb.id != index)
    id.fail("threadblock id " + std::to_string(tb.id) + " at position " + std::to_string(index) +
            " (the executor runs the i-th threadblock listed with the channels of id i: ids are "
            "0, 1, 2, ... in order)");

  Scope scope{.gpu = g.id,
              .threadblock = tb.id,
              .semaphores = static_cast<std::uint32_t>(g.semaphores.size())};
  const Node channels = n.key("channels");
  for (const Node c : channels.items()) {
    mscclpp::ThreadblockChannels entry;
    entry.type = connecting_type(c.key("channel_type"));
    if (const auto buff = c.find("buff")) entry.buffer = buffer_type(*buff);
    const Node ids = c.key("channel_ids");
    const std::uint32_t available = gpu_channels[slot(entry.type)];
    entry.channel_ids.reserve(ids.size());
    for (const Node cid : ids.items()) {
      const std::uint32_t v = cid.uint32();
      // Switch channels are counted by rank groups, which are not kept: the model refuses them.
      if (entry.type != ChannelType::switch_channel && v >= available)
        cid.fail("channel " + std::to_string(v) + " is beyond gpu " + std::to_string(g.id) + "'s " +
                 counted(available, std::string(mscclpp::to_string(entry.type)) + " channel"));
      entry.channel_ids.push_back(v);
    }
    std::uint32_t& mine = scope.channels[slot(entry.type)];
    mine += static_cast<std::uint32_t>(ids.size());
    if (mine > mscclpp::kMaxChannelsPerThreadblock)
      c.fail("threadblock " + std::to_string(tb.id) + " has " +
             counted(mine, std::string(mscclpp::to_string(entry.type)) + " channel") +
             "; the executor holds at most " + std::to_string(mscclpp::kMaxChannelsPerThreadblock));
    tb.channels.push_back(std::move(entry));
  }

  if (const auto refs = n.find("remote_buffer_refs")) {
    for (const Node r : refs->items()) {
      mscclpp::RemoteBufferRefs entry;
      entry.access = access_type(r.key("access_channel_type"));
      const std::string type(mscclpp::to_string(entry.access));
      const Node ids = r.key("remote_buffer_ids");
      entry.remote_buffer_ids.reserve(ids.size());
      for (const Node bid : ids.items()) {
        const std::uint32_t v = bid.uint32();
        if (v >= g.remote_buffers.size())
          bid.fail("remote buffer " + std::to_string(v) + " is beyond gpu " + std::to_string(g.id) +
                   "'s " + counted(g.remote_buffers.size(), "remote buffer"));
        // The executor looks the buffer up among those reachable by this type; one that is not
        // would silently become another.
        const auto& access = g.remote_buffers[v].access_channel_types;
        if (std::find(access.begin(), access.end(), entry.access) == access.end())
          bid.fail("remote buffer " + std::to_string(v) + " is not reached by " + type +
                   " channels (see its access_channel_types)");
        entry.remote_buffer_ids.push_back(v);
      }
      std::uint32_t& mine = scope.remote_buffers[slot(entry.access)];
      mine += static_cast<std::uint32_t>(ids.size());
      if (mine > mscclpp::kMaxChannelsPerThreadblock)
        r.fail("threadblock " + std::to_string(tb.id) + " reaches " +
               counted(mine, "remote buffer") + " by " + type +
               " channels; the executor holds at most " +
               std::to_string(mscclpp::kMaxChannelsPerThreadblock));
      tb.remote_buffer_refs.push_back(std::move(entry));
    }
  }

  const Node ops = n.key("ops");
  tb.ops.reserve(ops.size());
  std::uint64_t flattened = 0;
  for (const Node o : ops.items()) {
    tb.ops.push_back(op(o, scope, false));
    flattened += 1 + tb.ops.back().ops.size();
    if (flattened > mscclpp::kMaxOpsPerThreadblock)
      o.fail("threadblock " + std::to_string(tb.id) + " runs " + std::to_string(flattened) +
             " ops here (a pipeline's ops counted); the executor runs at most " +
             std::to_string(mscclpp::kMaxOpsPerThreadblock));
  }
  return tb;
}

void Reader::channel_ids(const Node& n, mscclpp::Op& op, const Scope& s) const {
  if (!op.channel_type) n.fail("channel_ids without channel_type (which channels are meant?)");
  if (n.size() > mscclpp::kMaxChannelsPerOp)
    n.fail(counted(n.size(), "channel") + " in one op; the executor takes at most " +
           std::to_string(mscclpp::kMaxChannelsPerOp));
  const std::uint32_t available = s.channels[slot(*op.channel_type)];
  op.channel_ids.reserve(n.size());
  for (const Node cid : n.items()) {
    const std::uint32_t v = cid.uint32();
    if (*op.channel_type != ChannelType::switch_channel && v >= available)
      cid.fail("channel " + std::to_string(v) + " is beyond threadblock " +
               std::to_string(s.threadblock) + "'s " +
               counted(available, std::string(mscclpp::to_string(*op.channel_type)) + " channel"));
    op.channel_ids.push_back(v);
  }
}

mscclpp::BufferRef Reader::buffer_ref(const Node& n, const mscclpp::Op& op, const Scope& s) const {
  mscclpp::BufferRef ref;
  const auto type = n.find("type");
  const auto id = n.find("buffer_id");
  const auto sw = n.find("switch_channel_id");
  if (int(type.has_value()) + int(id.has_value()) + int(sw.has_value()) != 1)
    n.fail("a buffer is named by exactly one of type, buffer_id and switch_channel_id");
  if (type) ref.type = buffer_type(*type);
  if (id) {
    const std::uint32_t v = id->uint32();
    if (op.channel_type != ChannelType::memory && op.channel_type != ChannelType::port)
      id->fail("a remote buffer needs the op's channel_type, memory or port");
    const std::uint32_t available = s.remote_buffers[slot(*op.channel_type)];
    if (v >= available)
      id->fail("remote buffer " + std::to_string(v) + " is beyond threadblock " +
               std::to_string(s.threadblock) + "'s " + counted(available, "remote buffer") +
               " reached by " + std::string(mscclpp::to_string(*op.channel_type)) + " channels");
    ref.buffer_id = v;
  }
  if (sw) ref.switch_channel_id = sw->uint32();
  ref.index = n.key("index").uint32(kMaxSlots);
  const Node size = n.key("size");
  ref.size = size.uint32(kMaxSlots);
  // An index beyond the declared chunks is the model's fault ("outside buffer"), not an error:
  // only what no buffer can hold is refused here.
  if (ref.size == 0) size.fail("an op moves at least one chunk (size 0)");
  if (std::uint64_t{ref.index} + ref.size > kMaxSlots)
    n.fail("index " + std::to_string(ref.index) + " + size " + std::to_string(ref.size) +
           " passes " + std::to_string(kMaxSlots) + " slots");
  return ref;
}

mscclpp::Op Reader::op(const Node& n, const Scope& s, bool in_pipeline) const {
  mscclpp::Op op;
  const Node name = n.key("name");
  const std::string text = name.string();
  const auto kind = mscclpp::parse_op_kind(text);
  if (!kind) name.fail("unknown op \"" + text_escape(text) + "\"");
  op.kind = *kind;
  const bool pipeline = op.kind == OpKind::pipeline;
  if (pipeline && in_pipeline)
    n.fail("a pipeline inside a pipeline (the executor runs pipelines one level deep)");

  if (const auto t = n.find("channel_type")) op.channel_type = channel_type(*t);
  if (const auto ids = n.find("channel_ids")) channel_ids(*ids, op, s);
  if (const auto g = n.find("tbg_info")) {
    const std::uint32_t size = g->key("tbg_size").uint32(kMaxUint32, 1);
    const Node tb = g->key("tb_id");
    const std::uint32_t id = tb.uint32();
    if (id >= size)
      tb.fail("tb_id " + std::to_string(id) + " is not below tbg_size " + std::to_string(size));
    op.group = mscclpp::GroupInfo{id, size};
  }
  for (const auto& [key, list] : {std::pair{"src_buff", &op.src}, std::pair{"dst_buff", &op.dst}}) {
    const auto b = n.find(key);
    if (!b) continue;
    if (b->size() > mscclpp::kMaxBuffersPerOp)
      b->fail(counted(b->size(), "buffer") + " in one op; the executor takes at most " +
              std::to_string(mscclpp::kMaxBuffersPerOp));
    list->reserve(b->size());
    for (const Node ref : b->items()) list->push_back(buffer_ref(ref, op, s));
  }
  const bool barrier = op.kind == OpKind::barrier;
  if (const auto b = barrier ? std::optional(n.key("barrier_id")) : n.find("barrier_id"))
    op.barrier_id = b->uint32(mscclpp::kMaxBarriers - 1);
  if (const auto b =
          barrier ? std::optional(n.key("num_threadblocks")) : n.find("num_threadblocks"))
    op.num_threadblocks = b->uint32(kMaxUint32, 1);
  if (const auto ids = n.find("semaphore_ids")) {
    if (ids->size() > mscclpp::kMaxSemaphoresPerOp)
      ids->fail(counted(ids->size(), "semaphore") + " in one op; the executor takes at most " +
                std::to_string(mscclpp::kMaxSemaphoresPerOp));
    for (const Node sid : ids->items()) {
      const std::uint32_t v = sid.uint32();
      if (v >= s.semaphores)
        sid.fail("semaphore " + std::to_string(v) + " is not declared (gpu " +
                 std::to_string(s.gpu) + " has " + counted(s.semaphores, "semaphore") + ")");
      op.semaphore_ids.push_back(v);
    }
  }

  // The executor reads a pipeline's ops whenever an op has iter_context, and only a pipeline's.
  const auto iter = pipeline ? std::optional(n.key("iter_context")) : n.find("iter_context");
  const auto inner = pipeline ? std::optional(n.key("ops")) : n.find("ops");
  if (!pipeline && (iter || inner))
    (iter ? *iter : *inner)
        .fail("only a pipeline has " + std::string(iter ? "iter_context" : "ops") + " (this is \"" +
              text_escape(text) + "\")");
  if (pipeline) {
    // The device counts a pipeline's unit in 32 bits and divides by it.
    op.iter = mscclpp::IterContext{iter->key("unit_size").uint(kMaxUint32, 1),
                                   iter->key("num_chunks").uint32()};
    op.ops.reserve(inner->size());
    for (const Node o : inner->items()) op.ops.push_back(this->op(o, s, true));
  }
  return op;
}

/// Whether an object of the document has a key twice (JSON allows it; phasecheck's readers
/// refuse it, since "last one wins" silently hides an edit gone wrong). Recursive, at most
/// kMaxDepth deep: the parser refused deeper documents.
bool has_duplicate_key(Element e) {
  if (e.type() == element_type::ARRAY) {
    const simdjson::dom::array items = e.get_array().value_unsafe();
    for (const Element item : items)
      if (has_duplicate_key(item)) return true;
  } else if (e.type() == element_type::OBJECT) {
    std::vector<std::string_view> keys;
    const simdjson::dom::object fields = e.get_object().value_unsafe();
    for (const auto field : fields) {
      keys.push_back(field.key);
      if (has_duplicate_key(field.value)) return true;
    }
    std::sort(keys.begin(), keys.end());
    return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
  }
  return false;
}

/// Where the first integer beyond 64 bits is in `text` (which nlohmann reads as a double and
/// simdjson refuses): its offset and its token.
std::optional<std::pair<std::size_t, std::string_view>> big_integer(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      continue;
    }
    if (text[i] != '-' && (text[i] < '0' || text[i] > '9')) continue;
    const std::size_t end = std::min(text.find_first_not_of("-+.eE0123456789", i), text.size());
    const std::string_view token = text.substr(i, end - i);
    const std::string_view digits = token.substr(token[0] == '-' ? 1 : 0);
    const std::string_view limit = token[0] == '-' ? "9223372036854775808" : "18446744073709551615";
    if (token.find_first_of(".eE") == std::string_view::npos &&
        (digits.size() > limit.size() || (digits.size() == limit.size() && digits > limit)))
      return std::pair{i, token};
    i = end - 1;
  }
  return std::nullopt;
}

/// Throws the message for a document simdjson refused or that has a key twice (`what`).
/// simdjson says what is wrong but not where: nlohmann's parser, run again on the text, says
/// where (line:column) and names the key. Its document is built only when memory allows; else
/// the message is `what`.
[[noreturn]] void refuse_document(std::string_view text, std::string_view source,
                                  std::string_view what) {
  const auto bytes = checked_mul(text.size(), kMessageDocumentBytesPerTextByte);
  if (bytes && *bytes <= limits().max_memory_bytes) detail::parse_document(text, source);
  if (const auto big = big_integer(text)) {
    const std::size_t line = 1 + std::count(text.begin(), text.begin() + big->first, '\n');
    const std::size_t line_start = text.rfind('\n', big->first);
    const std::size_t column =
        big->first - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    throw InputError(std::string(source) + ":" + std::to_string(line) + ":" +
                     std::to_string(column) +
                     ": invalid JSON: number out of range: " + std::string(big->second));
  }
  throw InputError(std::string(source) + ": " + std::string(what));
}

mscclpp::Plan read_plan(const Node& root, std::string_view source, std::uint64_t document_bytes) {
  root.object();
  mscclpp::Plan plan;
  plan.name = root.key("name").string();
  plan.collective = root.key("collective").string();
  plan.protocol = root.key("protocol").string();
  plan.inplace = root.key("inplace").boolean();
  if (const auto v = root.find("reuse_resources")) plan.reuse_resources = v->boolean();
  if (const auto v = root.find("use_double_scratch_buffer"))
    plan.use_double_scratch_buffer = v->boolean();
  if (const auto v = root.find("num_threads_per_block"))
    plan.num_threads_per_block = v->uint32(mscclpp::kMaxThreadsPerBlock, 1);
  // The executor divides sizes by the alignment.
  if (const auto v = root.find("buffer_alignment"))
    plan.buffer_alignment = v->uint32(kMaxUint32, 1);
  if (const auto v = root.find("min_message_size"))
    plan.min_message_size = v->uint(std::numeric_limits<std::uint64_t>::max());
  if (const auto v = root.find("max_message_size"))
    plan.max_message_size = v->uint(std::numeric_limits<std::uint64_t>::max());

  const Node gpus = root.key("gpus");
  if (gpus.size() == 0) gpus.fail("a plan has at least one gpu");
  if (gpus.size() > kMaxRanks) gpus.fail("more than " + std::to_string(kMaxRanks) + " gpus");
  const Sizes sizes = count(root.json());
  if (sizes.ops > kMaxOpsPerFile)
    gpus.fail(std::to_string(sizes.ops) + " ops, more than " + std::to_string(kMaxOpsPerFile) +
              " in one file");
  const auto model =
      checked_add(checked_add(checked_mul(sizes.ops, sizeof(mscclpp::Op)),
                              checked_mul(sizes.buffers, sizeof(mscclpp::BufferRef))),
                  checked_add(checked_mul(sizes.threadblocks, sizeof(mscclpp::Threadblock)),
                              checked_mul(gpus.size(), sizeof(mscclpp::Gpu))));
  check_memory(checked_add(model, document_bytes),
               std::string(source) + ": a plan of " + counted(sizes.ops, "op"));

  const Reader reader(static_cast<std::uint32_t>(gpus.size()));
  plan.gpus.reserve(gpus.size());
  for (const Node g : gpus.items()) plan.gpus.push_back(reader.gpu(g));
  return plan;
}

}  // namespace

bool looks_like_mscclpp_plan(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::size_t i = text.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || text[i] != '{') return false;
  // The keys of the top-level object: strings at depth 1 followed by ':'. Strings are skipped
  // whole (escapes included), so that brackets inside them do not count.
  std::size_t depth = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      const std::size_t start = ++i;
      while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
      if (i >= text.size()) return false;
      if (depth != 1) continue;
      const std::string_view key = text.substr(start, i - start);
      const std::size_t next = text.find_first_not_of(" \t\r\n", i + 1);
      if (next == std::string_view::npos || text[next] != ':') continue;
      if (key == "format") return false;
      // A prefix of a file is enough: the DSL writes "gpus" after the plan's scalars.
      if (key == "gpus") return true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return false;
      if (--depth == 0) return false;
    }
  }
  return false;
}

mscclpp::Plan parse_mscclpp_plan(std::string_view text, std::string_view source) {
  const auto document = checked_mul(text.size(), kDocumentBytesPerTextByte);
  check_memory(document, std::string(source) + ": the JSON document of a plan of " +
                             format_bytes(text.size()));
  simdjson::dom::parser parser;
  Element root;
  // The depth bound is nlohmann's (parse_document), so that both refuse the same documents.
  simdjson::error_code error = parser.allocate(text.size(), detail::kMaxDepth);
  if (!error) error = parser.parse(text.data(), text.size()).get(root);
  if (error)
    refuse_document(text, source, "invalid JSON: " + std::string(simdjson::error_message(error)));
  if (has_duplicate_key(root)) refuse_document(text, source, "a key appears twice in one object");
  return read_plan(Node(root, source), source, document.value_or(0));
}

mscclpp::Plan read_mscclpp_plan_file(const std::string& path) {
  const std::string text = read_input(path);
  return parse_mscclpp_plan(text, input_name(path));
}

std::string mscclpp_plan_to_json(const mscclpp::Plan& plan) {
  using Ordered = nlohmann::ordered_json;
  const auto type_name = [](ChannelType t) { return std::string(mscclpp::to_string(t)); };
  const auto buffers = [](const std::vector<mscclpp::BufferRef>& refs) {
    Ordered list = Ordered::array();
    for (const mscclpp::BufferRef& r : refs) {
      Ordered b = Ordered::object();
      if (r.type) b["type"] = buffer_letter(*r.type);
      if (r.buffer_id) b["buffer_id"] = *r.buffer_id;
      if (r.switch_channel_id) b["switch_channel_id"] = *r.switch_channel_id;
      b["index"] = r.index;
      b["size"] = r.size;
      list.push_back(std::move(b));
    }
    return list;
  };
  // The DSL's key order (mscclpp/language/internal/operations.py); lists an op leaves empty
  // stay out, as the DSL leaves out what an op does not use.
  const auto op_json = [&](const mscclpp::Op& op, const auto& self) -> Ordered {
    Ordered o = Ordered::object();
    o["name"] = mscclpp::to_string(op.kind);
    if (!op.src.empty()) o["src_buff"] = buffers(op.src);
    if (!op.dst.empty()) o["dst_buff"] = buffers(op.dst);
    if (!op.channel_ids.empty()) o["channel_ids"] = op.channel_ids;
    if (op.channel_type) o["channel_type"] = type_name(*op.channel_type);
    if (op.barrier_id) o["barrier_id"] = *op.barrier_id;
    if (op.num_threadblocks) o["num_threadblocks"] = *op.num_threadblocks;
    if (!op.semaphore_ids.empty()) o["semaphore_ids"] = op.semaphore_ids;
    if (op.group)
      o["tbg_info"] = Ordered{{"tb_id", op.group->tb_id}, {"tbg_size", op.group->tbg_size}};
    if (op.iter)
      o["iter_context"] =
          Ordered{{"unit_size", op.iter->unit_size}, {"num_chunks", op.iter->num_chunks}};
    if (op.kind == OpKind::pipeline) {
      Ordered inner = Ordered::array();
      for (const mscclpp::Op& i : op.ops) inner.push_back(self(i, self));
      o["ops"] = std::move(inner);
    }
    return o;
  };

  Ordered gpus = Ordered::array();
  for (const mscclpp::Gpu& g : plan.gpus) {
    Ordered tbs = Ordered::array();
    for (const mscclpp::Threadblock& t : g.threadblocks) {
      Ordered ops = Ordered::array(), channels = Ordered::array(), refs = Ordered::array();
      for (const mscclpp::Op& op : t.ops) ops.push_back(op_json(op, op_json));
      for (const mscclpp::ThreadblockChannels& c : t.channels) {
        Ordered entry{{"channel_type", type_name(c.type)}, {"channel_ids", c.channel_ids}};
        if (c.buffer) entry["buff"] = buffer_letter(*c.buffer);
        channels.push_back(std::move(entry));
      }
      for (const mscclpp::RemoteBufferRefs& r : t.remote_buffer_refs)
        refs.push_back({{"access_channel_type", type_name(r.access)},
                        {"remote_buffer_ids", r.remote_buffer_ids}});
      tbs.push_back({{"id", t.id},
                     {"ops", std::move(ops)},
                     {"channels", std::move(channels)},
                     {"remote_buffer_refs", std::move(refs)}});
    }
    Ordered channels = Ordered::array(), remote = Ordered::array(), sems = Ordered::array();
    for (const mscclpp::Channel& c : g.channels)
      channels.push_back({{"channel_type", type_name(c.type)}, {"connected_to", c.connected_to}});
    for (const mscclpp::RemoteBuffer& b : g.remote_buffers) {
      Ordered access = Ordered::array();
      for (ChannelType t : b.access_channel_types) access.push_back(type_name(t));
      remote.push_back({{"rank", b.rank},
                        {"type", buffer_letter(b.type)},
                        {"access_channel_types", std::move(access)}});
    }
    for (const mscclpp::Semaphore& s : g.semaphores) sems.push_back({{"init_value", s.init_value}});
    gpus.push_back({{"id", g.id},
                    {"input_chunks", g.input_chunks},
                    {"output_chunks", g.output_chunks},
                    {"scratch_chunks", g.scratch_chunks},
                    {"threadblocks", std::move(tbs)},
                    {"channels", std::move(channels)},
                    {"remote_buffers", std::move(remote)},
                    {"semaphores", std::move(sems)}});
  }
  // The keys of the DSL's Program.to_json, in its order.
  Ordered j = Ordered::object();
  j["name"] = plan.name;
  j["collective"] = plan.collective;
  j["protocol"] = plan.protocol;
  j["inplace"] = plan.inplace;
  j["reuse_resources"] = plan.reuse_resources;
  j["gpus"] = std::move(gpus);
  j["num_threads_per_block"] = plan.num_threads_per_block;
  j["use_double_scratch_buffer"] = plan.use_double_scratch_buffer;
  j["buffer_alignment"] = plan.buffer_alignment;
  j["min_message_size"] = plan.min_message_size;
  j["max_message_size"] = plan.max_message_size;
  return detail::dump(j, 2) + "\n";
}

}  // namespace phasecheck::io
