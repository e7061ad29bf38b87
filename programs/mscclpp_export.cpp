#include "programs/mscclpp_export.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "programs/local_copies.hpp"

namespace phasecheck::programs {

namespace {

using mscclpp::BufferRef;
using mscclpp::ChannelType;
using mscclpp::Op;
using mscclpp::OpKind;

constexpr std::uint32_t kNone = ~0u;
/// A pair threadblock's first ops: rlxsignal, rlxwait.
constexpr std::size_t kHandshakeOps = 2;
/// Room a threadblock keeps for the releases that later ops of other threadblocks attach to its
/// ops (a nop and a sem_release each); the limit is checked again on the finished plan.
constexpr std::size_t kLateReleaseOps = 8;
/// The most sends one way (or local copies) a threadblock takes in one phase, so that a batch's
/// ops (2 per send at most, both ways, and their signals, waits, acquires and nops) fit.
constexpr std::size_t kSendsPerBatch = 12;

/// `count` consecutive cells of one of a gpu's buffers, in the program's names.
struct Cells {
  Slot first;
  std::uint32_t count = 0;
  bool overlaps(const Cells& o) const {
    return first.buffer == o.first.buffer && first.index < o.first.index + o.count &&
           o.first.index < first.index + count;
  }
};

/// An op of a threadblock before the nops and semaphore ops around it are placed.
struct Item {
  Op op;
  std::optional<Cells> read, write;    // local cells only (a put's remote write is not)
  std::vector<std::uint32_t> acquire;  // semaphores acquired before it
  std::vector<std::uint32_t> release;  // semaphores released after it
};

/// The ops the block's threads run together; the others run on its first threads.
bool on_block(OpKind k) { return k == OpKind::put || k == OpKind::copy; }

struct ThreadblockBuild {
  Rank peer = 0;
  bool local = false;
  std::vector<Item> items;
};

/// The threadblock's ops: its items with the semaphore ops they need and the nops that order
/// them under the executor's lanes (core/mscclpp_execution.hpp): before a block op that follows
/// a wait or an acquire, or that touches a cell an op since the last nop touched (one writing);
/// before a signal or a release that follows block ops.
std::vector<Op> threadblock_ops(const ThreadblockBuild& tb) {
  std::vector<Op> ops;
  bool block_open = false, leader_open = false;
  std::vector<std::pair<Cells, bool>> epoch;  // cells touched since the last nop, and if written
  const auto join = [&] {
    ops.push_back(Op{});
    block_open = leader_open = false;
    epoch.clear();
  };
  const auto semaphore_ops = [&](OpKind kind, const std::vector<std::uint32_t>& ids) {
    for (std::size_t i = 0; i < ids.size(); i += mscclpp::kMaxSemaphoresPerOp) {
      Op op;
      op.kind = kind;
      const std::size_t end = std::min(ids.size(), i + mscclpp::kMaxSemaphoresPerOp);
      op.semaphore_ids.assign(ids.begin() + static_cast<std::ptrdiff_t>(i),
                              ids.begin() + static_cast<std::ptrdiff_t>(end));
      ops.push_back(std::move(op));
    }
  };
  const auto conflicts = [&](const Item& item) {
    for (const auto& [cells, written] : epoch) {
      if (item.write && item.write->overlaps(cells)) return true;
      if (written && item.read && item.read->overlaps(cells)) return true;
    }
    return false;
  };
  for (const Item& item : tb.items) {
    if (!item.acquire.empty()) {
      semaphore_ops(OpKind::sem_acquire, item.acquire);
      leader_open = true;
    }
    if (on_block(item.op.kind)) {
      if (leader_open || conflicts(item)) join();
      ops.push_back(item.op);
      block_open = true;
      if (item.read) epoch.emplace_back(*item.read, false);
      if (item.write) epoch.emplace_back(*item.write, true);
    } else {
      if (item.op.kind == OpKind::signal && block_open) join();
      ops.push_back(item.op);
      if (item.op.kind == OpKind::wait || item.op.kind == OpKind::relaxed_wait) leader_open = true;
    }
    if (!item.release.empty()) {
      if (block_open) join();
      semaphore_ops(OpKind::sem_release, item.release);
    }
  }
  return ops;
}

/// One gpu's threadblocks, its staging scratch and the semaphores between its threadblocks.
class GpuBuilder {
 public:
  GpuBuilder(Rank gpu, const std::set<Rank>& peers, bool copies, std::uint32_t scratch)
      : gpu_(gpu), next_staging_(scratch) {
    for (Rank peer : peers) {
      pair_[peer] = static_cast<std::uint32_t>(tbs_.size());
      tbs_.push_back({peer, false, {}});
    }
    if (copies) {
      local_ = static_cast<std::uint32_t>(tbs_.size());
      tbs_.push_back({0, true, {}});
    }
  }

  /// The threadblock that exchanges with `peer` now, and the one that copies.
  std::uint32_t pair(Rank peer) const { return pair_.at(peer); }
  std::uint32_t local() const { return local_; }
  const std::map<Rank, std::uint32_t>& pairs() const { return pair_; }
  /// A fresh threadblock (with its own channel) for the exchanges with `peer` from now on.
  std::uint32_t open_pair(Rank peer) {
    pair_[peer] = static_cast<std::uint32_t>(tbs_.size());
    tbs_.push_back({peer, false, {}});
    return pair_[peer];
  }
  /// A fresh threadblock for the local copies from now on.
  void open_local() {
    local_ = static_cast<std::uint32_t>(tbs_.size());
    tbs_.push_back({0, true, {}});
  }
  /// The ops threadblock `tb` runs so far.
  std::size_t ops(std::uint32_t tb) const { return threadblock_ops(tbs_[tb]).size(); }

  /// `count` fresh scratch slots, used once per call.
  std::uint32_t staging(std::uint32_t count) {
    const std::uint32_t first = next_staging_;
    if (std::uint64_t{first} + count > kMaxSlots)
      throw InputError("gpu " + std::to_string(gpu_) + " would need more than " +
                       std::to_string(kMaxSlots) + " scratch chunks to stage what it receives");
    next_staging_ += count;
    return first;
  }
  std::uint32_t scratch() const { return next_staging_; }

  /// Appends `items` to threadblock `tb`, after a semaphore from the last op of every other
  /// threadblock that wrote a cell one of them reads, or read or wrote a cell one of them writes.
  /// The acquires go before the first item, so that one nop serves the group: that orders the
  /// later items after more than they need, never less, and waits only for ops built before
  /// the group, which do not wait for it.
  void add(std::uint32_t tb, std::vector<Item> items) {
    if (items.empty()) return;
    std::map<std::uint32_t, std::uint32_t> waits;  // threadblock -> its latest item to wait for
    const auto need = [&](std::uint32_t other, std::uint32_t i) {
      if (other == tb) return;  // the same threadblock: a nop, placed by threadblock_ops()
      auto [it, fresh] = waits.emplace(other, i);
      if (!fresh) it->second = std::max(it->second, i);
    };
    for (const Item& item : items) {
      if (item.read)
        for (std::uint32_t k = 0; k < item.read->count; ++k)
          if (const auto it = cells_.find(key(item.read->first, k));
              it != cells_.end() && it->second.writer_tb != kNone)
            need(it->second.writer_tb, it->second.writer_item);
      if (item.write)
        for (std::uint32_t k = 0; k < item.write->count; ++k)
          if (const auto it = cells_.find(key(item.write->first, k)); it != cells_.end()) {
            if (it->second.writer_tb != kNone) need(it->second.writer_tb, it->second.writer_item);
            for (const auto& [reader, i] : it->second.readers) need(reader, i);
          }
    }
    for (const auto& [other, i] : waits) {
      // The semaphore's releases and acquires pair in order: an item at or before the last one
      // this threadblock acquired from `other` is ordered already.
      const auto [it, fresh] = acquired_.emplace(std::pair{other, tb}, Acquired{});
      if (!fresh && it->second.item >= i) continue;
      if (fresh) it->second.semaphore = semaphores_++;
      it->second.item = i;
      tbs_[other].items[i].release.push_back(it->second.semaphore);
      items.front().acquire.push_back(it->second.semaphore);
    }
    for (Item& item : items) {
      const auto index = static_cast<std::uint32_t>(tbs_[tb].items.size());
      if (item.read)
        for (std::uint32_t k = 0; k < item.read->count; ++k) {
          auto& readers = cells_[key(item.read->first, k)].readers;
          readers[tb] = std::max(readers[tb], index);
        }
      if (item.write)
        for (std::uint32_t k = 0; k < item.write->count; ++k) {
          Use& u = cells_[key(item.write->first, k)];
          u.writer_tb = tb;
          u.writer_item = index;
          u.readers.clear();
        }
      tbs_[tb].items.push_back(std::move(item));
    }
  }
  void add(std::uint32_t tb, Item item) { add(tb, std::vector<Item>{std::move(item)}); }

  const std::vector<ThreadblockBuild>& threadblocks() const { return tbs_; }
  std::uint32_t semaphores() const { return semaphores_; }

 private:
  struct Use {
    std::uint32_t writer_tb = kNone, writer_item = 0;
    std::map<std::uint32_t, std::uint32_t> readers;  // since the last write: tb -> latest item
  };
  struct Acquired {
    std::uint32_t semaphore = 0, item = 0;
  };
  static std::uint64_t key(Slot s, std::uint32_t k) {
    return std::uint64_t(s.buffer) << 32 | (s.index + k);
  }

  Rank gpu_;
  std::uint32_t next_staging_;
  std::map<Rank, std::uint32_t> pair_;
  std::uint32_t local_ = kNone;
  std::vector<ThreadblockBuild> tbs_;
  std::unordered_map<std::uint64_t, Use> cells_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, Acquired> acquired_;  // (from, to) tb
  std::uint32_t semaphores_ = 0;
};

Op channel_op(OpKind kind) {
  Op op;
  op.kind = kind;
  op.channel_type = ChannelType::memory;
  op.channel_ids = {0};  // a pair threadblock has one channel: to its peer
  return op;
}

/// Builds the plan's gpus phase by phase.
class Exporter {
 public:
  explicit Exporter(const Schedule& program)
      : program_(program),
        layout_(*program.header.buffers),
        // An alltoall in place has one buffer, which the DSL names the input.
        output_name_(layout_.inplace && program.header.collective == Collective::alltoall
                         ? Buffer::input
                         : Buffer::output) {
    const Rank p = program.header.ranks();
    std::vector<std::set<Rank>> peers(p);
    std::vector<bool> copies(p, false);
    for (const Phase& phase : program.phases)
      for (const BufferOp& op : phase.ops()) {
        if (op.local()) {
          copies[op.src] = true;
          continue;
        }
        peers[op.src].insert(op.dst);
        peers[op.dst].insert(op.src);
      }
    gpus_.reserve(p);
    for (Rank r = 0; r < p; ++r) gpus_.emplace_back(r, peers[r], copies[r], layout_.scratch);
  }

  void run() {
    handshake();
    for (const Phase& phase : program_.phases) run_phase(phase);
  }

  std::vector<mscclpp::Gpu> gpus() const {
    std::vector<mscclpp::Gpu> out;
    for (Rank r = 0; r < gpus_.size(); ++r) out.push_back(gpu(r));
    return out;
  }

 private:
  BufferRef local_ref(Slot s, std::uint32_t count) const {
    BufferRef ref;
    ref.type = s.buffer == Buffer::output ? output_name_ : s.buffer;
    ref.index = s.index;
    ref.size = count;
    return ref;
  }

  Item copy(Slot from, Slot to, std::uint32_t count) const {
    Item item;
    item.op.kind = OpKind::copy;
    item.op.src = {local_ref(from, count)};
    item.op.dst = {local_ref(to, count)};
    item.read = Cells{from, count};
    item.write = Cells{to, count};
    return item;
  }

  /// The peer's puts of this call come after this gpu's reads of the last one (relaxed signals
  /// order earlier reads before later writes); every signal precedes every wait in the build.
  void handshake() {
    for (GpuBuilder& g : gpus_)
      for (const auto& [peer, tb] : g.pairs()) g.add(tb, {channel_op(OpKind::relaxed_signal)});
    for (GpuBuilder& g : gpus_)
      for (const auto& [peer, tb] : g.pairs()) g.add(tb, {channel_op(OpKind::relaxed_wait)});
  }

  /// Whether gpu a's threadblock for b has room for `n` more sends and receives (at most: the
  /// op each, acquires, nops, a signal and a wait), with room left for releases that later ops
  /// attach to it; or holds nothing but its handshake, so that a fresh one would not help.
  bool room(Rank a, Rank b, std::size_t n) const {
    const std::size_t used = gpus_[a].ops(gpus_[a].pair(b));
    return used <= kHandshakeOps ||
           used + 2 * n + 8 + kLateReleaseOps <= mscclpp::kMaxOpsPerThreadblock;
  }

  /// Gpus a and b move their exchanges to fresh threadblocks, each with its handshake.
  void open_pair(Rank a, Rank b) {
    const std::uint32_t ta = gpus_[a].open_pair(b), tb = gpus_[b].open_pair(a);
    gpus_[a].add(ta, {channel_op(OpKind::relaxed_signal)});
    gpus_[b].add(tb, {channel_op(OpKind::relaxed_signal)});
    gpus_[a].add(ta, {channel_op(OpKind::relaxed_wait)});
    gpus_[b].add(tb, {channel_op(OpKind::relaxed_wait)});
  }

  /// Sends of one phase from src to dst that share a signal: put by threadblock `from` of src,
  /// received by threadblock `to` of dst.
  struct Batch {
    Rank src = 0, dst = 0;
    std::uint32_t from = 0, to = 0;
    std::vector<std::pair<const BufferOp*, std::uint32_t>> sends;  // with its staging slot
  };

  void run_phase(const Phase& phase) {
    const Rank p = static_cast<Rank>(gpus_.size());
    // Per pair (lower, higher) its sends each way, in the phase's order.
    std::map<std::pair<Rank, Rank>, std::array<std::vector<const BufferOp*>, 2>> pairs;
    std::vector<std::vector<const BufferOp*>> copies(p);
    for (const BufferOp& op : phase.ops())
      if (op.local())
        copies[op.src].push_back(&op);
      else
        pairs[{std::min(op.src, op.dst), std::max(op.src, op.dst)}][op.src > op.dst].push_back(&op);
    // Sends read at the phase's start: puts, then a signal per batch.
    std::vector<Batch> batches;
    for (const auto& [pair, ways] : pairs) {
      const auto [lower, higher] = pair;
      const std::size_t most = std::max(ways[0].size(), ways[1].size());
      for (std::size_t first = 0; first < most; first += kSendsPerBatch) {
        // The executor holds 64 ops a threadblock: a pair that could pass it moves on to fresh
        // threadblocks on both sides; so does every batch after the first of a phase (the
        // receives of the one before are still to come in its threadblocks).
        const auto part = [&](std::size_t way) {
          return std::min(ways[way].size(), first + kSendsPerBatch) -
                 std::min(ways[way].size(), first);
        };
        const std::size_t n = part(0) + part(1);
        if (first > 0 || !room(lower, higher, n) || !room(higher, lower, n))
          open_pair(lower, higher);
        for (std::size_t way = 0; way < 2; ++way) {
          if (part(way) == 0) continue;
          Batch b;
          b.src = way == 0 ? lower : higher;
          b.dst = way == 0 ? higher : lower;
          b.from = gpus_[b.src].pair(b.dst);
          b.to = gpus_[b.dst].pair(b.src);
          std::vector<Item> puts;
          for (std::size_t i = first; i < first + part(way); ++i) {
            const BufferOp* op = ways[way][i];
            b.sends.emplace_back(op, gpus_[b.dst].staging(op->count));
            puts.push_back(put(*op, b.sends.back().second));
          }
          gpus_[b.src].add(b.from, std::move(puts));
          gpus_[b.src].add(b.from, {channel_op(OpKind::signal)});
          batches.push_back(std::move(b));
        }
      }
    }
    for (Rank r = 0; r < p; ++r)
      if (!copies[r].empty()) local_copies(r, copies[r]);
    // Receives write at the phase's end.
    for (const Batch& b : batches) {
      gpus_[b.dst].add(b.to, {channel_op(OpKind::wait)});
      std::vector<Item> receives;
      for (const auto& [op, staging] : b.sends)
        receives.push_back(copy(Slot{Buffer::scratch, staging}, op->to, op->count));
      gpus_[b.dst].add(b.to, std::move(receives));
    }
  }

  Item put(const BufferOp& op, std::uint32_t staging) const {
    Item item;
    item.op.kind = OpKind::put;
    item.op.channel_type = ChannelType::memory;
    item.op.src = {local_ref(op.from, op.count)};
    BufferRef remote;
    remote.buffer_id = 0;  // a pair threadblock reaches one remote buffer: its peer's scratch
    remote.index = staging;
    remote.size = op.count;
    item.op.dst = {remote};
    item.read = Cells{op.from, op.count};
    return item;
  }

  /// A phase's local copies of rank r, each reading before any of them writes what it reads: in
  /// order, or, when they read each other's destinations in a cycle, all through staging. In
  /// groups that fit a threadblock (a fresh one when the last one is full).
  void local_copies(Rank r, const std::vector<const BufferOp*>& copies) {
    GpuBuilder& g = gpus_[r];
    const auto add = [&](std::vector<Item> group) {
      for (std::size_t first = 0; first < group.size(); first += kSendsPerBatch) {
        const std::size_t n = std::min(group.size() - first, kSendsPerBatch);
        const std::size_t used = g.ops(g.local());
        if (used > 0 && used + 2 * n + 4 + kLateReleaseOps > mscclpp::kMaxOpsPerThreadblock)
          g.open_local();
        g.add(g.local(), std::vector<Item>(std::make_move_iterator(group.begin() + first),
                                           std::make_move_iterator(group.begin() + first + n)));
      }
    };
    std::vector<Item> group;
    if (const auto order = order_local_copies(copies)) {
      for (const BufferOp* op : *order) group.push_back(copy(op->from, op->to, op->count));
      add(std::move(group));
      return;
    }
    std::vector<std::uint32_t> staging;
    for (const BufferOp* op : copies) {
      staging.push_back(g.staging(op->count));
      group.push_back(copy(op->from, Slot{Buffer::scratch, staging.back()}, op->count));
    }
    add(std::move(group));
    group.clear();
    for (std::size_t i = 0; i < copies.size(); ++i)
      group.push_back(copy(Slot{Buffer::scratch, staging[i]}, copies[i]->to, copies[i]->count));
    add(std::move(group));
  }

  mscclpp::Gpu gpu(Rank r) const {
    const GpuBuilder& g = gpus_[r];
    const bool inplace = layout_.inplace;
    const Collective collective = program_.header.collective;
    mscclpp::Gpu out;
    out.id = r;
    out.output_chunks = layout_.output;
    out.input_chunks = !inplace                             ? layout_.input
                       : collective == Collective::alltoall ? layout_.output
                                                            : layout_.chunks;
    out.scratch_chunks = g.scratch();
    out.semaphores.resize(g.semaphores());
    const auto& tbs = g.threadblocks();
    // A channel per pair threadblock, in their order: the k-th threadblock of gpu a for gpu b and
    // the k-th of b for a are opened together, so their channels pair.
    mscclpp::Channel channel;
    channel.type = ChannelType::memory;
    for (const ThreadblockBuild& build : tbs)
      if (!build.local) channel.connected_to.push_back(build.peer);
    if (!channel.connected_to.empty()) out.channels.push_back(std::move(channel));
    std::uint32_t channel_id = 0;
    for (std::uint32_t t = 0; t < tbs.size(); ++t) {
      const ThreadblockBuild& build = tbs[t];
      mscclpp::Threadblock tb;
      tb.id = t;
      tb.ops = threadblock_ops(build);
      if (tb.ops.size() > mscclpp::kMaxOpsPerThreadblock)
        throw InputError(
            "gpu " + std::to_string(r) + " threadblock " + std::to_string(t) +
            (build.local ? " (its local copies)"
                         : " (its exchanges with gpu " + std::to_string(build.peer) + ")") +
            " would run " + std::to_string(tb.ops.size()) +
            " ops; the MSCCL++ executor runs at most " +
            std::to_string(mscclpp::kMaxOpsPerThreadblock) + " per threadblock (MAX_OPERATION)");
      if (!build.local) {
        tb.channels.push_back({ChannelType::memory, std::nullopt, {channel_id++}});
        const bool puts = std::any_of(build.items.begin(), build.items.end(),
                                      [](const Item& i) { return i.op.kind == OpKind::put; });
        if (puts) {
          const auto id = static_cast<std::uint32_t>(out.remote_buffers.size());
          out.remote_buffers.push_back({build.peer, Buffer::scratch, {ChannelType::memory}});
          tb.remote_buffer_refs.push_back({ChannelType::memory, {id}});
        }
      }
      out.threadblocks.push_back(std::move(tb));
    }
    return out;
  }

  const Schedule& program_;
  const BufferLayout& layout_;
  Buffer output_name_;
  std::vector<GpuBuilder> gpus_;
};

}  // namespace

void check_options(const MscclppExportOptions& options) {
  if (options.min_message_size > options.max_message_size)
    throw InputError("--min-bytes " + std::to_string(options.min_message_size) + " --max-bytes " +
                     std::to_string(options.max_message_size) + ": expected min <= max");
}

mscclpp::Plan to_mscclpp(const Schedule& program, const MscclppExportOptions& options) {
  const ScheduleHeader& h = program.header;
  if (!h.buffers) throw InputError("export needs a buffer program (format 3)");
  check_options(options);
  Exporter exporter(program);
  exporter.run();
  mscclpp::Plan plan;
  plan.name = options.name.empty() ? h.algorithm : options.name;
  plan.collective = std::string(to_string(h.collective));
  plan.protocol = "Simple";
  plan.inplace = h.buffers->inplace;
  plan.reuse_resources = false;
  plan.use_double_scratch_buffer = false;
  plan.num_threads_per_block = mscclpp::kMaxThreadsPerBlock;
  plan.buffer_alignment = 16;
  plan.min_message_size = options.min_message_size;
  plan.max_message_size = options.max_message_size;
  plan.gpus = exporter.gpus();
  return plan;
}

}  // namespace phasecheck::programs
