#include "core/mscclpp_execution.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/ordinal.hpp"

namespace phasecheck::mscclpp {
namespace {

/// Bytes charged per event before the events are built (the event, its accesses and edges, the
/// layering and the checkers' per-event state).
constexpr std::uint64_t kBytesPerEvent = 320;
/// Bytes per cell written as packets (the index of the writers their readers wait for).
constexpr std::uint64_t kBytesPerPacketCell = 48;
/// The finest cell grid the model builds: a chunk of more cells is refused.
constexpr std::uint32_t kMaxCellsPerChunk = 64;

std::string times(std::uint64_t n) { return n == 1 ? "once" : std::to_string(n) + " times"; }

}  // namespace

/// Builds the events, edges and accesses (the rules of docs/mscclpp.md, in the order the
/// executor runs a threadblock's ops), then pairs signals with waits, releases with acquires,
/// barrier members, packet writes with their readers, and layers the graph.
struct Execution::Builder {
  Execution& x;
  const Plan& plan;
  std::uint32_t gpus = 0;

  // Channel names: per gpu and type, the peer of each gpu-level channel and its ordinal among
  // the gpu's channels of that type to that peer (the pairing rule).
  struct Channels {
    std::vector<std::uint32_t> peer, ordinal;
  };
  std::vector<std::array<Channels, 2>> channels;  // [gpu][memory, port]
  // Per gpu and threadblock: its channel lists and remote buffer lists per type.
  struct TbNames {
    std::array<std::vector<std::uint32_t>, 2> channels;  // gpu-level channel ids
    std::array<std::vector<std::uint32_t>, 2> remote;    // gpu-level remote buffer ids
  };
  std::vector<std::vector<TbNames>> names;

  // Lanes.
  std::vector<std::uint32_t> lane_last;  // per lane: its last event, kNone before the first
  std::uint32_t new_lane(bool block = false) {
    lane_last.push_back(kNone);
    x.block_lane_.push_back(block);
    return x.lanes_++;
  }
  std::vector<std::vector<std::uint32_t>> block_lane;  // [gpu][tb]
  // (gpu, port channel, the threadblock that pushes) -> its proxy lane: the FIFO orders what
  // one threadblock pushes; what several push lands in whatever order they push it.
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t> proxy_lane;
  std::vector<std::uint32_t> boundary_lane;                          // [gpu]
  std::vector<std::map<std::uint32_t, std::uint32_t>> barrier_lane;  // [gpu] barrier id -> lane

  // Per threadblock while its ops are walked.
  // Thread i of the first threads handles an op's i-th channel or semaphore: a lane each, made
  // when first used. A nop, a barrier or a call's boundary is a sync every lane's next event
  // follows.
  struct TbState {
    std::vector<std::uint32_t> leaders;  // thread -> lane
    std::vector<std::uint32_t> seen;     // thread -> the last sync its lane follows
    std::uint32_t block_seen = kNone;
    std::uint32_t sync = kNone;
    std::uint32_t last_block = kNone;  // the block lane's last event
    std::uint32_t epoch = 0;
  };
  std::vector<std::vector<TbState>> tb_state;

  // Pairing.
  struct PairKey {
    std::uint32_t from, to, type, ordinal;
    auto operator<=>(const PairKey&) const = default;
  };
  struct Pair {
    std::vector<std::uint32_t> signals, waits;  // events, in call and program order
    std::set<std::pair<std::uint32_t, std::uint32_t>> signallers, waiters;  // (gpu, tb)
  };
  std::map<PairKey, Pair> pairs;
  struct Sem {
    std::vector<std::uint32_t> releases, acquires;
    std::set<std::uint32_t> releasers, acquirers;  // tbs
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Sem> sems;  // (gpu, id)
  struct Arrival {
    std::uint32_t arrive, depart, members;
  };
  // (call, gpu, barrier id) -> per tb, its arrivals in order
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>,
           std::map<std::uint32_t, std::vector<Arrival>>>
      barriers;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, std::uint32_t>
      proxy_last;  // (gpu, channel, tb)
  // Packets: (call, gpu, buffer, cell) -> the events that write it as packets.
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> packet_writers;
  std::vector<std::uint32_t> packet_readers;
  std::uint64_t packet_cells = 0;

  explicit Builder(Execution& e) : x(e), plan(e.plan_) {}

  [[noreturn]] void refuse(std::uint32_t g, std::uint32_t t, std::uint32_t step,
                           const std::string& what) const {
    throw InputError(x.source_ + ": " + x.path(g, t, step) + ": " + what);
  }

  // --- events and edges ---------------------------------------------------------------------

  std::uint32_t event(EventKind kind, std::uint32_t lane, std::uint32_t g, std::uint32_t t,
                      std::uint32_t step, std::uint32_t call) {
    Event e;
    e.kind = kind;
    e.gpu = g;
    e.tb = t;
    e.step = step;
    e.call = call;
    e.lane = lane;
    e.accesses = static_cast<std::uint32_t>(x.accesses_.size());
    const auto id = static_cast<std::uint32_t>(x.events_.size());
    if (lane_last[lane] != kNone) {
      e.position = x.events_[lane_last[lane]].position + 1;
      edge(lane_last[lane], id, EdgeKind::lane, true);
    }
    lane_last[lane] = id;
    x.events_.push_back(e);
    return id;
  }
  void edge(std::uint32_t from, std::uint32_t to, EdgeKind kind, bool orders_data,
            bool orders_execution = true) {
    x.edges_.push_back({from, to, kind, orders_data, orders_data || orders_execution});
  }

  std::uint32_t leader_lane(std::uint32_t g, std::uint32_t t, std::uint32_t thread) {
    TbState& s = tb_state[g][t];
    while (s.leaders.size() <= thread) {
      s.leaders.push_back(new_lane());
      s.seen.push_back(kNone);
    }
    return s.leaders[thread];
  }
  /// Event e, on a lane of its threadblock, after the threadblock's last sync.
  void follow(TbState& s, std::uint32_t& seen, std::uint32_t e) {
    if (s.sync == kNone || seen == s.sync) return;
    if (x.events_[s.sync].lane != x.events_[e].lane) edge(s.sync, e, EdgeKind::join, true);
    seen = s.sync;
  }
  /// An event of thread `thread` of the first threads of (g, t).
  std::uint32_t leader(EventKind kind, std::uint32_t g, std::uint32_t t, std::uint32_t step,
                       std::uint32_t call, std::uint32_t thread = 0) {
    const std::uint32_t lane = leader_lane(g, t, thread);
    TbState& s = tb_state[g][t];
    const std::uint32_t e = event(kind, lane, g, t, step, call);
    follow(s, s.seen[thread], e);
    return e;
  }
  std::uint32_t block(std::uint32_t g, std::uint32_t t, std::uint32_t step, std::uint32_t call) {
    TbState& s = tb_state[g][t];
    const std::uint32_t e = event(EventKind::data, block_lane[g][t], g, t, step, call);
    x.events_[e].epoch = s.epoch;
    follow(s, s.block_seen, e);
    s.last_block = e;
    return e;
  }
  /// A nop, or a barrier's arrival: every lane's work so far before it, every lane's next work
  /// after it.
  std::uint32_t join(std::uint32_t g, std::uint32_t t, std::uint32_t step, std::uint32_t call) {
    const std::uint32_t e = leader(EventKind::join, g, t, step, call);
    TbState& s = tb_state[g][t];
    if (s.last_block != kNone) edge(s.last_block, e, EdgeKind::join, true);
    for (std::size_t i = 1; i < s.leaders.size(); ++i)
      if (lane_last[s.leaders[i]] != kNone) edge(lane_last[s.leaders[i]], e, EdgeKind::join, true);
    s.sync = e;
    s.seen[0] = e;
    ++s.epoch;
    return e;
  }

  // --- names ----------------------------------------------------------------------------------

  static std::uint32_t type_index(ChannelType t) { return t == ChannelType::port ? 1 : 0; }

  /// The gpu-level channel of the op's i-th channel id.
  std::uint32_t channel_of(std::uint32_t g, std::uint32_t t, std::uint32_t step, const Op& op,
                           std::size_t i) const {
    const ChannelType type = op.channel_type.value_or(ChannelType::memory);
    const auto& list = names[g][t].channels[type_index(type)];
    if (i >= op.channel_ids.size() || op.channel_ids[i] >= list.size())
      refuse(g, t, step,
             "channel_ids[" + std::to_string(i) + "] names no " + std::string(to_string(type)) +
                 " channel of threadblock " + std::to_string(t));
    const std::uint32_t c = list[op.channel_ids[i]];
    if (c >= channels[g][type_index(type)].peer.size())
      refuse(g, t, step,
             "a channel of threadblock " + std::to_string(t) + " names no channel of gpu " +
                 std::to_string(g));
    return c;
  }

  struct Place {
    std::uint32_t gpu = 0;
    Buffer buffer = Buffer::input;
    bool remote = false;
  };
  /// Where a buffer reference points: a local buffer, or a remote one through the op's channel
  /// type.
  Place place(std::uint32_t g, std::uint32_t t, std::uint32_t step, const Op& op,
              const BufferRef& ref) const {
    if (ref.switch_channel_id) refuse(g, t, step, "switch channels (NVLS) are not modelled");
    if (ref.type && !ref.buffer_id) return {g, *ref.type, false};
    if (!ref.buffer_id) refuse(g, t, step, "a buffer names neither a type nor a buffer_id");
    const ChannelType type = op.channel_type.value_or(ChannelType::memory);
    const auto& list = names[g][t].remote[type_index(type)];
    if (*ref.buffer_id >= list.size())
      refuse(g, t, step,
             "buffer_id " + std::to_string(*ref.buffer_id) +
                 " names no remote buffer of threadblock " + std::to_string(t) + " reachable by " +
                 std::string(to_string(type)) + " channels");
    const std::uint32_t id = list[*ref.buffer_id];
    if (id >= plan.gpus[g].remote_buffers.size())
      refuse(
          g, t, step,
          "remote buffer " + std::to_string(id) + " is not declared by gpu " + std::to_string(g));
    const RemoteBuffer& rb = plan.gpus[g].remote_buffers[id];
    if (rb.rank >= gpus) refuse(g, t, step, "a remote buffer names gpu " + std::to_string(rb.rank));
    return {rb.rank, rb.type, true};
  }

  std::uint32_t declared(std::uint32_t g, Buffer b) const {
    const Gpu& gpu = plan.gpus[g];
    return b == Buffer::input    ? gpu.input_chunks
           : b == Buffer::output ? gpu.output_chunks
                                 : gpu.scratch_chunks;
  }

  /// The scratch half a call's accesses use: with a double scratch buffer the executor offsets
  /// every local scratch access (and packet writes to a peer) by half the scratch on every
  /// second call; a plain put or get into a peer's scratch is not offset.
  std::uint32_t half(std::uint32_t call, bool offset_applies) const {
    return plan.use_double_scratch_buffer && offset_applies ? call % 2 : 0;
  }

  /// A range of cells of a buffer, as the lowered program names it, or the reason it is
  /// outside its gpu's declared buffer.
  struct Cells {
    Place at;
    std::uint64_t first = 0, count = 0;  // cells relative to the buffer (chunk * Q)
  };
  std::optional<std::string> resolve(Cells& c, std::uint32_t call, bool offset_applies,
                                     Access& out) const {
    const std::uint64_t limit = std::uint64_t{declared(c.at.gpu, c.at.buffer)} * x.q_;
    if (c.first + c.count > limit)
      return std::string(to_string(c.at.buffer)) + " cells [" + std::to_string(c.first) + ", " +
             std::to_string(c.first + c.count) + ") of gpu " + std::to_string(c.at.gpu) +
             ", beyond its " + std::to_string(declared(c.at.gpu, c.at.buffer)) + " chunks" +
             (x.q_ > 1 ? " (" + std::to_string(x.q_) + " cells each)" : std::string());
    out.gpu = c.at.gpu;
    out.count = static_cast<std::uint32_t>(c.count);
    std::uint64_t index = c.first;
    Buffer b = c.at.buffer;
    if (b == Buffer::input && plan.inplace) {
      // In place, the input is part of the output: the same bytes for an alltoall, the gpu's
      // own contribution for an allgather.
      if (x.collective_ == Collective::allgather)
        index += std::uint64_t{c.at.gpu} * plan.gpus[c.at.gpu].input_chunks * x.q_;
      b = Buffer::output;
    }
    if (b == Buffer::scratch)
      index +=
          std::uint64_t{half(call, offset_applies)} * plan.gpus[c.at.gpu].scratch_chunks * x.q_;
    out.slot = {b, static_cast<std::uint32_t>(index)};
    return std::nullopt;
  }

  /// The cells an op's reference covers in one iteration: its threadblock group's slice of its
  /// own range, and in a pipeline iteration `it` the half chunk at offset it/2 chunks; empty
  /// when the iteration starts exactly at the end; `overrun` when it starts past it (the
  /// executor's size then wraps around). With reuse_resources the executor wraps a scratch
  /// offset within one scratch chunk: every iteration of a scratch range lands on its first
  /// unit (the model's reading of getOffset<ReuseScratch> at sizes beyond the 64 MiB scratch).
  struct Slice {
    std::uint64_t first = 0, count = 0;
    bool overrun = false;
  };
  Slice slice(const Op& op, const BufferRef& ref, std::uint32_t it, Buffer buffer) const {
    std::uint64_t first = std::uint64_t{ref.index} * x.q_;
    std::uint64_t count = std::uint64_t{ref.size} * x.q_;
    if (op.group && op.group->tbg_size > 0) {
      const std::uint64_t part = count / op.group->tbg_size;
      first += part * op.group->tb_id;
      count = part;
    }
    if (it == kNone) return {first, count, false};
    const std::uint64_t unit = x.q_ / 2;
    const bool wraps = plan.reuse_resources && buffer == Buffer::scratch;
    const std::uint64_t offset = wraps ? 0 : std::uint64_t{it} * unit;
    if (offset > count) return {first, 0, true};
    return {first + offset, std::min(unit, count - offset), false};
  }

  /// Records a (read, write) pair of accesses of data event e, or marks it outside.
  void pair(std::uint32_t e, Cells read, bool read_offset, bool read_packet, Cells write,
            bool write_offset, bool write_packet) {
    Access r, w;
    std::optional<std::string> why = resolve(read, x.events_[e].call, read_offset, r);
    if (!why) why = resolve(write, x.events_[e].call, write_offset, w);
    if (why) {
      // The calls are alike: the first one's faults stand for all.
      if (!x.events_[e].outside && x.events_[e].call == 0)
        x.outside_.push_back({e, "names " + *why});
      x.events_[e].outside = true;
      return;
    }
    r.write = false;
    r.packet = read_packet;
    w.write = true;
    w.packet = write_packet;
    x.accesses_.push_back(r);
    x.accesses_.push_back(w);
    x.events_[e].access_count += 2;
    if (write_packet) {
      // Indexed cell by cell for their readers: charged before the index grows.
      packet_cells += w.count;
      const std::uint64_t total = x.charged_ + packet_cells * kBytesPerPacketCell;
      if (total > limits().max_memory_bytes)
        check_memory(total, x.source_ + ": the packets written up to " + x.describe(e) + " (" +
                                std::to_string(kBytesPerPacketCell) + " bytes per cell)");
    }
    if (write_packet)
      for (std::uint32_t k = 0; k < w.count; ++k)
        packet_writers[packet_key(x.events_[e].call, w.gpu, w.slot.buffer, w.slot.index + k)]
            .push_back(e);
  }
  static std::uint64_t packet_key(std::uint32_t call, std::uint32_t g, Buffer b,
                                  std::uint32_t cell) {
    return (std::uint64_t{call} << 56) | (std::uint64_t{g} << 34) | (std::uint64_t(b) << 31) | cell;
  }
  void overrun(std::uint32_t e, std::uint32_t it) {
    if (!x.events_[e].outside && x.events_[e].call == 0)
      x.outside_.push_back({e, "runs iteration " + std::to_string(it) +
                                   " of its pipeline past the end of its range (the executor's "
                                   "size wraps around and it moves a whole unit beyond it)"});
    x.events_[e].outside = true;
  }

  // --- ops ------------------------------------------------------------------------------------

  /// A data op of the block lane (docs/mscclpp.md, the table of ops): each (read, write) pair as
  /// the executor's handler computes it. `count` is the size the handler moves: a put's
  /// destination's, a get's, a copy's and a packet op's source's.
  void data_op(std::uint32_t g, std::uint32_t t, std::uint32_t step, const Op& op, std::uint32_t it,
               std::uint32_t e) {
    bool bad = false;
    // Packet handlers ignore the pipeline's offset: every iteration moves the whole range.
    const bool packets = moves_packets(op.kind);
    const auto cut = [&](Place at, const BufferRef& ref) {
      const Slice sl = slice(op, ref, packets ? kNone : it, at.buffer);
      bad = bad || sl.overrun;
      return sl;
    };
    const auto move = [&](Place from, const BufferRef& src, bool src_offset, bool src_packet,
                          Place to, const BufferRef& dst, bool dst_offset, bool dst_packet,
                          bool by_destination) {
      const Slice a = cut(from, src), b = cut(to, dst);
      const std::uint64_t n = by_destination ? b.count : a.count;
      pair(e, {from, a.first, n}, src_offset, src_packet, {to, b.first, n}, dst_offset, dst_packet);
    };
    const auto need = [&](bool ok, const char* what) {
      if (!ok) refuse(g, t, step, what);
    };
    const Place scratch{g, Buffer::scratch, false};
    switch (op.kind) {
      case OpKind::put:
      case OpKind::put_with_signal:
      case OpKind::put_with_signal_and_flush: {
        // Memory channel: the executor reads from src_buff[0]'s buffer at src_buff[i]'s index
        // and writes dst_buff[i] (pws and pwsf copy and do not signal).
        need(!op.src.empty() && op.src.size() >= op.dst.size(),
             "a put needs a src_buff for each dst_buff");
        const Place source = place(g, t, step, op, op.src[0]);
        need(!source.remote, "a put reads a local buffer (type)");
        for (std::size_t i = 0; i < op.dst.size(); ++i) {
          const Place to = place(g, t, step, op, op.dst[i]);
          need(to.remote, "a put writes a remote buffer (buffer_id)");
          move(source, op.src[i], true, false, to, op.dst[i], false, false, true);
          x.events_[e].to = to.gpu;
        }
        break;
      }
      case OpKind::get:
        // The executor swaps the offsets: it reads the peer at dst_buff[i]'s index and writes
        // the local buffer at src_buff[i]'s (the same when the indices agree).
        need(op.dst.size() >= op.src.size(), "a get needs a dst_buff for each src_buff");
        for (std::size_t i = 0; i < op.src.size(); ++i) {
          const Place remote = place(g, t, step, op, op.src[i]);
          const Place local = place(g, t, step, op, op.dst[i]);
          need(remote.remote && !local.remote, "a get reads a remote buffer into a local one");
          const Slice at_remote = cut(remote, op.dst[i]), at_local = cut(local, op.src[i]);
          const Slice size = cut(remote, op.src[i]);
          pair(e, {remote, at_remote.first, size.count}, false, false,
               {local, at_local.first, size.count}, true, false);
          x.events_[e].to = remote.gpu;
        }
        break;
      case OpKind::copy: {
        need(!op.src.empty() && !op.dst.empty(), "a copy needs a src_buff and a dst_buff");
        const Place from = place(g, t, step, op, op.src[0]);
        const Place to = place(g, t, step, op, op.dst[0]);
        need(!from.remote && !to.remote, "a copy moves between local buffers");
        move(from, op.src[0], true, false, to, op.dst[0], true, false, false);
        break;
      }
      case OpKind::put_packets: {
        need(!op.src.empty() && op.src.size() >= op.dst.size(),
             "ppkt needs a src_buff for each dst_buff");
        const Place source = place(g, t, step, op, op.src[0]);
        need(!source.remote, "ppkt reads a local buffer (type)");
        for (std::size_t i = 0; i < op.dst.size(); ++i) {
          const Place to = place(g, t, step, op, op.dst[i]);
          need(to.remote && to.buffer == Buffer::scratch,
               "ppkt writes packets into a peer's scratch buffer (buffer_id of a scratch)");
          move(source, op.src[i], true, false, to, op.dst[i], true, true, false);
          x.events_[e].to = to.gpu;
        }
        break;
      }
      case OpKind::read_put_packets:
        need(!op.src.empty(), "rppkt needs a src_buff");
        for (std::size_t i = 0; i < op.dst.size(); ++i) {
          const Place to = place(g, t, step, op, op.dst[i]);
          need(to.remote && to.buffer == Buffer::scratch,
               "rppkt writes packets into a peer's scratch buffer (buffer_id of a scratch)");
          move(scratch, op.src[0], true, true, to, op.dst[i], true, true, false);
          x.events_[e].to = to.gpu;
        }
        break;
      case OpKind::copy_packets: {
        need(!op.src.empty() && !op.dst.empty(), "cpkt needs a src_buff and a dst_buff");
        const Place from = place(g, t, step, op, op.src[0]);
        const Place to = place(g, t, step, op, op.dst[0]);
        need(!from.remote && !to.remote && to.buffer == Buffer::scratch,
             "cpkt copies a local buffer into local scratch packets");
        move(from, op.src[0], true, false, to, op.dst[0], true, true, false);
        break;
      }
      case OpKind::unpack_packets: {
        need(!op.src.empty() && !op.dst.empty(), "upkt needs a src_buff and a dst_buff");
        const Place to = place(g, t, step, op, op.dst[0]);
        need(!to.remote, "upkt writes a local buffer");
        move(scratch, op.src[0], true, true, to, op.dst[0], true, false, false);
        break;
      }
      case OpKind::nop:
      case OpKind::barrier:
      case OpKind::signal:
      case OpKind::wait:
      case OpKind::relaxed_signal:
      case OpKind::relaxed_wait:
      case OpKind::flush:
      case OpKind::pipeline:
      case OpKind::sem_acquire:
      case OpKind::sem_release:
      case OpKind::reduce:
      case OpKind::reduce_send:
      case OpKind::read_reduce:
      case OpKind::read_reduce_send:
      case OpKind::reduce_send_packets:
      case OpKind::reduce_packets:
      case OpKind::reduce_copy_packets:
      case OpKind::reduce_copy_send_packets:
      case OpKind::multi_load_reduce_store:
      case OpKind::multi_store:
      case OpKind::multi_store_packets:
        refuse(g, t, step, "not a data op");
    }
    if (bad) overrun(e, it);
    bool reads_packets = false;
    for (std::uint32_t a = x.events_[e].accesses;
         a < x.events_[e].accesses + x.events_[e].access_count; ++a)
      reads_packets = reads_packets || (!x.accesses_[a].write && x.accesses_[a].packet);
    if (reads_packets) packet_readers.push_back(e);
  }

  std::uint32_t proxy(std::uint32_t g, std::uint32_t channel, std::uint32_t t) {
    const auto [it, fresh] = proxy_lane.try_emplace({g, channel, t}, 0);
    if (fresh) it->second = new_lane();
    return it->second;
  }

  void signal_on(std::uint32_t g, std::uint32_t t, std::uint32_t e, ChannelType type,
                 std::uint32_t channel) {
    const Channels& c = channels[g][type_index(type)];
    Pair& p = pairs[{g, c.peer[channel], type_index(type), c.ordinal[channel]}];
    p.signals.push_back(e);
    p.signallers.insert({g, t});
  }
  void wait_on(std::uint32_t g, std::uint32_t t, std::uint32_t e, ChannelType type,
               std::uint32_t channel) {
    const Channels& c = channels[g][type_index(type)];
    Pair& p = pairs[{c.peer[channel], g, type_index(type), c.ordinal[channel]}];
    p.waits.push_back(e);
    p.waiters.insert({g, t});
  }

  /// A port-channel put (pws: and its signal; pwsf: and a flush): the leader pushes, the proxy
  /// moves the data in FIFO order.
  void port_put(std::uint32_t g, std::uint32_t t, std::uint32_t step, std::uint32_t call,
                const Op& op, std::uint32_t it) {
    if (op.src.size() < op.dst.size() || op.channel_ids.size() < op.dst.size())
      refuse(g, t, step, "a port-channel put needs a src_buff and a channel for each dst_buff");
    for (std::size_t i = 0; i < op.dst.size(); ++i) {
      const auto thread = static_cast<std::uint32_t>(i);
      const std::uint32_t ch = channel_of(g, t, step, op, i);
      const std::uint32_t push = leader(EventKind::push, g, t, step, call, thread);
      const std::uint32_t lane = proxy(g, ch, t);
      const std::uint32_t e = event(EventKind::data, lane, g, t, step, call);
      edge(push, e, EdgeKind::proxy, true);
      const Place from = place(g, t, step, op, op.src[i]);
      const Place to = place(g, t, step, op, op.dst[i]);
      if (from.remote || !to.remote)
        refuse(g, t, step, "a port-channel put reads a local buffer and writes a remote one");
      // The executor moves dst_buff[i]'s size, from the registered buffers' bases: a local
      // scratch source is not offset by the double scratch buffer's half.
      const Slice s = slice(op, op.src[i], it, from.buffer);
      const Slice d = slice(op, op.dst[i], it, to.buffer);
      x.events_[e].to = to.gpu;
      pair(e, {from, s.first, d.count}, false, false, {to, d.first, d.count}, false, false);
      if (s.overrun || d.overrun) overrun(e, it);
      proxy_last[{g, ch, t}] = e;
      if (op.kind == OpKind::put) continue;
      const std::uint32_t sig = event(EventKind::signal, lane, g, t, step, call);
      signal_on(g, t, sig, ChannelType::port, ch);
      proxy_last[{g, ch, t}] = sig;
      if (op.kind == OpKind::put_with_signal_and_flush) {
        const std::uint32_t f = leader(EventKind::flush, g, t, step, call, thread);
        edge(sig, f, EdgeKind::proxy, true);
      }
    }
  }

  void op(std::uint32_t g, std::uint32_t t, std::uint32_t step, std::uint32_t call, const Op& op,
          std::uint32_t it) {
    const ChannelType type = op.channel_type.value_or(ChannelType::none);
    switch (op.kind) {
      case OpKind::nop:
        join(g, t, step, call);
        return;
      case OpKind::barrier: {
        if (!op.barrier_id || !op.num_threadblocks)
          refuse(g, t, step, "a barrier needs barrier_id and num_threadblocks");
        const std::uint32_t arrive = join(g, t, step, call);
        const std::uint32_t depart = leader(EventKind::depart, g, t, step, call);
        barriers[{call, g, *op.barrier_id}][t].push_back({arrive, depart, *op.num_threadblocks});
        tb_state[g][t].sync = depart;
        tb_state[g][t].seen[0] = depart;
        return;
      }
      case OpKind::signal:
      case OpKind::relaxed_signal:
        for (std::size_t i = 0; i < op.channel_ids.size(); ++i) {
          const auto thread = static_cast<std::uint32_t>(i);
          const std::uint32_t ch = channel_of(g, t, step, op, i);
          std::uint32_t e = 0;
          if (type == ChannelType::port) {
            // The proxy signals after the puts this threadblock pushed before it on that channel.
            const std::uint32_t push = leader(EventKind::push, g, t, step, call, thread);
            e = event(EventKind::signal, proxy(g, ch, t), g, t, step, call);
            edge(push, e, EdgeKind::proxy, true);
            proxy_last[{g, ch, t}] = e;
          } else {
            e = leader(EventKind::signal, g, t, step, call, thread);
          }
          x.events_[e].relaxed = op.kind == OpKind::relaxed_signal;
          signal_on(g, t, e, type, ch);
        }
        return;
      case OpKind::wait:
      case OpKind::relaxed_wait:
        for (std::size_t i = 0; i < op.channel_ids.size(); ++i) {
          const std::uint32_t ch = channel_of(g, t, step, op, i);
          const std::uint32_t e =
              leader(EventKind::wait, g, t, step, call, static_cast<std::uint32_t>(i));
          x.events_[e].relaxed = op.kind == OpKind::relaxed_wait;
          wait_on(g, t, e, type, ch);
        }
        return;
      case OpKind::flush: {
        // The executor flushes the first nOutputs channels (the op's dst_buff count), not
        // channel_ids' count: a flush without dst_buff completes nothing.
        const std::size_t n = std::min(op.dst.size(), op.channel_ids.size());
        if (n == 0) leader(EventKind::flush, g, t, step, call);
        for (std::size_t i = 0; i < n; ++i) {
          const std::uint32_t ch = channel_of(g, t, step, op, i);
          const std::uint32_t f =
              leader(EventKind::flush, g, t, step, call, static_cast<std::uint32_t>(i));
          if (const auto last = proxy_last.find({g, ch, t}); last != proxy_last.end())
            edge(last->second, f, EdgeKind::proxy, true);
        }
        return;
      }
      case OpKind::sem_release:
      case OpKind::sem_acquire:
        for (std::size_t i = 0; i < op.semaphore_ids.size(); ++i) {
          const std::uint32_t id = op.semaphore_ids[i];
          if (id >= plan.gpus[g].semaphores.size())
            refuse(g, t, step, "semaphore " + std::to_string(id) + " is not declared");
          const bool release = op.kind == OpKind::sem_release;
          const std::uint32_t e = leader(release ? EventKind::release : EventKind::acquire, g, t,
                                         step, call, static_cast<std::uint32_t>(i));
          Sem& s = sems[{g, id}];
          (release ? s.releases : s.acquires).push_back(e);
          (release ? s.releasers : s.acquirers).insert(t);
        }
        return;
      case OpKind::put:
      case OpKind::put_with_signal:
      case OpKind::put_with_signal_and_flush:
        if (type == ChannelType::port) return port_put(g, t, step, call, op, it);
        data_op(g, t, step, op, it, block(g, t, step, call));
        return;
      case OpKind::put_packets:
      case OpKind::read_put_packets:
        if (type == ChannelType::port)
          refuse(g, t, step,
                 std::string(to_string(op.kind)) +
                     " on a port channel is not modelled (packets through the proxy)");
        data_op(g, t, step, op, it, block(g, t, step, call));
        return;
      case OpKind::get:
      case OpKind::copy:
      case OpKind::copy_packets:
      case OpKind::unpack_packets:
        data_op(g, t, step, op, it, block(g, t, step, call));
        return;
      case OpKind::pipeline:  // an inner one: check_op refused these before the walk
      case OpKind::reduce:
      case OpKind::reduce_send:
      case OpKind::read_reduce:
      case OpKind::read_reduce_send:
      case OpKind::reduce_send_packets:
      case OpKind::reduce_packets:
      case OpKind::reduce_copy_packets:
      case OpKind::reduce_copy_send_packets:
      case OpKind::multi_load_reduce_store:
      case OpKind::multi_store:
      case OpKind::multi_store_packets:
        refuse(g, t, step, "not modelled");
    }
  }

  /// What the model cannot express, refused once per op before the walk (the walk runs an op
  /// once per call and pipeline iteration): ops that reduce or use NVLS, a pipeline inside a
  /// pipeline, a channel op without a channel type, packets outside an LL plan and plain
  /// accesses to an LL plan's scratch.
  void check_op(std::uint32_t g, std::uint32_t t, std::uint32_t step, const Op& op, bool inner) {
    if (reduces(op.kind) && !uses_switch(op.kind))
      refuse(
          g, t, step,
          "\"" + std::string(to_string(op.kind)) + "\" reduces: not an alltoall or allgather op");
    if (uses_switch(op.kind))
      refuse(g, t, step,
             "\"" + std::string(to_string(op.kind)) +
                 "\" uses NVLS (switch channels), which is not modelled");
    if (inner && op.kind == OpKind::pipeline) refuse(g, t, step, "a pipeline inside a pipeline");
    const ChannelType type = op.channel_type.value_or(ChannelType::none);
    const bool channelled =
        op.kind == OpKind::signal || op.kind == OpKind::wait || op.kind == OpKind::relaxed_signal ||
        op.kind == OpKind::relaxed_wait || op.kind == OpKind::flush || op.kind == OpKind::put ||
        op.kind == OpKind::put_with_signal || op.kind == OpKind::put_with_signal_and_flush ||
        op.kind == OpKind::get || op.kind == OpKind::put_packets ||
        op.kind == OpKind::read_put_packets;
    // The executor zero-fills an op: without channel_type it is NONE, and a signal, wait, put or
    // flush then does nothing at all.
    if (channelled && type != ChannelType::memory && type != ChannelType::port)
      refuse(
          g, t, step,
          "\"" + std::string(to_string(op.kind)) + "\" needs channel_type \"memory\" or " +
              "\"port\" (the executor does nothing for " +
              (op.channel_type ? "\"" + std::string(to_string(type)) + "\"" : std::string("none")) +
              ")");
    const bool packets = moves_packets(op.kind);
    // Packets are 16-byte slots of data and flag at twice a chunk's offset: the executor sizes
    // the scratch buffer for them only in an LL plan, where every scratch access is a packet's.
    if (packets && plan.protocol != "LL")
      refuse(g, t, step,
             "\"" + std::string(to_string(op.kind)) + "\" in a plan whose protocol is \"" +
                 plan.protocol + "\": packets need protocol \"LL\"");
    if (!packets && plan.protocol == "LL" &&
        (op.kind == OpKind::put || op.kind == OpKind::get || op.kind == OpKind::copy ||
         op.kind == OpKind::put_with_signal || op.kind == OpKind::put_with_signal_and_flush))
      for (const auto* refs : {&op.src, &op.dst})
        for (const BufferRef& r : *refs)
          if (place(g, t, step, op, r).buffer == Buffer::scratch)
            refuse(g, t, step,
                   "a plain \"" + std::string(to_string(op.kind)) +
                       "\" on the scratch buffer of an LL plan, whose scratch holds packets: not "
                       "modelled");
  }

  // --- the whole plan -------------------------------------------------------------------------

  void names_and_checks() {
    gpus = static_cast<std::uint32_t>(plan.gpus.size());
    channels.resize(gpus);
    names.resize(gpus);
    for (std::uint32_t g = 0; g < gpus; ++g) {
      const Gpu& gpu = plan.gpus[g];
      if (gpu.id != g)
        throw InputError(x.source_ + ": gpus[" + std::to_string(g) + "]: id " +
                         std::to_string(gpu.id) + " where " + std::to_string(g) + " is expected");
      for (const Channel& c : gpu.channels) {
        if (c.type == ChannelType::switch_channel)
          throw InputError(x.source_ + ": gpus[" + std::to_string(g) +
                           "].channels: switch channels (NVLS) are not modelled");
        if (c.type == ChannelType::none) continue;
        Channels& list = channels[g][type_index(c.type)];
        for (std::uint32_t peer : c.connected_to) {
          if (peer >= gpus || peer == g)
            throw InputError(x.source_ + ": gpus[" + std::to_string(g) + "].channels: peer " +
                             std::to_string(peer) + " is not another gpu of the plan");
          list.ordinal.push_back(
              static_cast<std::uint32_t>(std::count(list.peer.begin(), list.peer.end(), peer)));
          list.peer.push_back(peer);
        }
      }
      names[g].resize(gpu.threadblocks.size());
      for (std::size_t t = 0; t < gpu.threadblocks.size(); ++t) {
        const Threadblock& tb = gpu.threadblocks[t];
        for (const ThreadblockChannels& c : tb.channels) {
          if (c.type == ChannelType::switch_channel)
            throw InputError(x.source_ + ": gpus[" + std::to_string(g) + "].threadblocks[" +
                             std::to_string(t) +
                             "].channels: switch channels (NVLS) are not modelled");
          if (c.type == ChannelType::none) continue;
          auto& list = names[g][t].channels[type_index(c.type)];
          list.insert(list.end(), c.channel_ids.begin(), c.channel_ids.end());
        }
        for (const RemoteBufferRefs& r : tb.remote_buffer_refs) {
          if (r.access != ChannelType::memory && r.access != ChannelType::port) continue;
          auto& list = names[g][t].remote[type_index(r.access)];
          list.insert(list.end(), r.remote_buffer_ids.begin(), r.remote_buffer_ids.end());
        }
      }
    }
  }

  std::uint64_t group_size(std::uint32_t g, std::uint32_t t, std::uint32_t step,
                           const GroupInfo& group) const {
    if (group.tbg_size == 0 || group.tb_id >= group.tbg_size)
      refuse(g, t, step,
             "tbg_info: tb_id " + std::to_string(group.tb_id) + " of a group of " +
                 std::to_string(group.tbg_size));
    return group.tbg_size;
  }

  /// The flattened ops (as the executor numbers them), the cell grid and the memory charge.
  void flatten() {
    x.flat_.resize(gpus);
    std::uint64_t q = 1;
    std::uint64_t per_call = 0;
    bool pipelines = false;
    for (std::uint32_t g = 0; g < gpus; ++g) {
      const Gpu& gpu = plan.gpus[g];
      x.flat_[g].resize(gpu.threadblocks.size());
      for (std::uint32_t t = 0; t < gpu.threadblocks.size(); ++t) {
        auto& flat = x.flat_[g][t];
        const auto& ops = gpu.threadblocks[t].ops;
        for (std::uint32_t i = 0; i < ops.size(); ++i) {
          flat.push_back({&ops[i], i, kNone});
          check_op(g, t, static_cast<std::uint32_t>(flat.size() - 1), ops[i], false);
          if (ops[i].kind != OpKind::pipeline) {
            per_call +=
                1 + ops[i].channel_ids.size() + ops[i].dst.size() + ops[i].semaphore_ids.size();
            if (ops[i].group)
              q = std::lcm(
                  q, group_size(g, t, static_cast<std::uint32_t>(flat.size() - 1), *ops[i].group));
            if (q > kMaxCellsPerChunk) break;
            continue;
          }
          pipelines = true;
          const std::uint64_t iterations =
              2 * std::uint64_t{ops[i].iter ? ops[i].iter->num_chunks : 0};
          for (std::uint32_t j = 0; j < ops[i].ops.size(); ++j) {
            const Op& inner = ops[i].ops[j];
            flat.push_back({&inner, i, j});
            const auto step = static_cast<std::uint32_t>(flat.size() - 1);
            check_op(g, t, step, inner, true);
            per_call += iterations * (1 + inner.channel_ids.size() + inner.dst.size() +
                                      inner.semaphore_ids.size());
            if (inner.group) q = std::lcm(q, 2 * group_size(g, t, step, *inner.group));
            if (q > kMaxCellsPerChunk) break;
          }
        }
        if (q > kMaxCellsPerChunk) break;
      }
    }
    if (pipelines) q = std::lcm(q, std::uint64_t{2});
    if (q > kMaxCellsPerChunk)
      throw InputError(x.source_ + ": the threadblock groups and pipelines need " +
                       std::to_string(q) + " cells per chunk or more; the model builds at most " +
                       std::to_string(kMaxCellsPerChunk));
    x.q_ = static_cast<std::uint32_t>(q);
    x.calls_ = plan.use_double_scratch_buffer ? 3 : 2;
    for (std::uint32_t g = 0; g < gpus; ++g) {
      const Gpu& gpu = plan.gpus[g];
      const std::uint64_t halves = plan.use_double_scratch_buffer ? 2 : 1;
      for (const std::uint64_t chunks :
           {std::uint64_t{gpu.input_chunks}, std::uint64_t{gpu.output_chunks},
            halves * gpu.scratch_chunks})
        if (chunks * q > kMaxSlots)
          throw InputError(x.source_ + ": gpus[" + std::to_string(g) +
                           "]: " + std::to_string(chunks) + " chunks of " + std::to_string(q) +
                           " cells pass the " + std::to_string(kMaxSlots) +
                           " cells a buffer may have");
    }
    const auto bytes = checked_mul(checked_mul(per_call + 4 * gpus, x.calls_), kBytesPerEvent);
    check_memory(bytes, x.source_ + ": the execution model (" + std::to_string(x.calls_) +
                            " calls; " + std::to_string(kBytesPerEvent) +
                            " bytes per op, channel and buffer)");
    if (bytes) x.charged_ = *bytes;
  }

  void lanes() {
    block_lane.resize(gpus);
    tb_state.resize(gpus);
    barrier_lane.resize(gpus);
    for (std::uint32_t g = 0; g < gpus; ++g) {
      const auto tbs = plan.gpus[g].threadblocks.size();
      tb_state[g].resize(tbs);
      for (std::size_t t = 0; t < tbs; ++t) {
        leader_lane(g, static_cast<std::uint32_t>(t), 0);
        block_lane[g].push_back(new_lane(true));
      }
      boundary_lane.push_back(new_lane());
    }
  }

  void walk() {
    for (std::uint32_t call = 0; call < x.calls_; ++call)
      for (std::uint32_t g = 0; g < gpus; ++g) {
        if (call > 0) boundary(g, call);
        for (std::uint32_t t = 0; t < x.flat_[g].size(); ++t) {
          const auto& flat = x.flat_[g][t];
          for (std::uint32_t step = 0; step < flat.size(); ++step) {
            const FlatOp& f = flat[step];
            if (f.inner != kNone) continue;  // run by its pipeline
            if (f.op->kind != OpKind::pipeline) {
              op(g, t, step, call, *f.op, kNone);
              continue;
            }
            const std::uint32_t iterations = 2 * (f.op->iter ? f.op->iter->num_chunks : 0);
            for (std::uint32_t it = 0; it < iterations; ++it)
              for (std::uint32_t j = 0; j < f.op->ops.size(); ++j)
                op(g, t, step + 1 + j, call, f.op->ops[j], it);
          }
        }
      }
    for (std::uint32_t g = 0; g < gpus; ++g) boundary(g, x.calls_);
  }

  /// Call `call` starts on gpu g once call - 1 ended there (every lane of its threadblocks, not
  /// the proxies: a port channel's put may still be in flight). In between, the caller reads the
  /// output and writes the next input (the same cells in place); after the last call
  /// (`call` == calls) it reads the output.
  void boundary(std::uint32_t g, std::uint32_t call) {
    const std::uint32_t b = event(EventKind::boundary, boundary_lane[g], g, kNone, 0, call);
    for (std::uint32_t t = 0; t < tb_state[g].size(); ++t) {
      TbState& s = tb_state[g][t];
      for (std::uint32_t lane : s.leaders)
        if (lane_last[lane] != kNone) edge(lane_last[lane], b, EdgeKind::boundary, true);
      if (s.last_block != kNone) edge(s.last_block, b, EdgeKind::boundary, true);
      s.sync = b;
      s.last_block = kNone;
      ++s.epoch;
    }
    const Gpu& gpu = plan.gpus[g];
    caller(b, {{g, Buffer::output, false}, 0, std::uint64_t{gpu.output_chunks} * x.q_}, false);
    if (call < x.calls_ && gpu.input_chunks > 0)
      caller(b, {{g, Buffer::input, false}, 0, std::uint64_t{gpu.input_chunks} * x.q_}, true);
  }
  void caller(std::uint32_t e, Cells cells, bool write) {
    Access a;
    if (resolve(cells, x.events_[e].call, false, a)) return;  // (declared: never outside)
    a.write = write;
    x.accesses_.push_back(a);
    ++x.events_[e].access_count;
  }

  void pair_signals() {
    for (const auto& [key, p] : pairs) {
      // Which signal a wait observes is fixed only when one threadblock signals and one waits on
      // the channel: otherwise it depends on timing, the pairing orders nothing (it is kept for
      // the layering alone) and the channel is a fault of its own.
      const bool exclusive = p.signallers.size() <= 1 && p.waiters.size() <= 1;
      if (!exclusive) {
        const bool waiters = p.waiters.size() > 1;
        const auto& tbs = waiters ? p.waiters : p.signallers;
        std::string list;
        for (const auto& [gpu, tb] : tbs) list += (list.empty() ? "" : ", ") + std::to_string(tb);
        const std::string type = key.type == 1 ? "port" : "memory";
        x.shared_.push_back(
            {p.signals.empty() ? kNone : p.signals.front(),
             p.waits.empty() ? kNone : p.waits.front(),
             "gpu " + std::to_string(waiters ? key.to : key.from) +
                 (waiters ? " waits on" : " signals") + " its " + ordinal(key.ordinal + 1) + " " +
                 type + " channel " +
                 (waiters ? "from gpu " + std::to_string(key.from)
                          : "to gpu " + std::to_string(key.to)) +
                 " in threadblocks " + list +
                 ": which signal releases which wait depends on timing, so it orders nothing"});
      }
      for (std::size_t k = 0; k < p.waits.size(); ++k) {
        const std::uint32_t w = p.waits[k];
        if (k >= p.signals.size()) {
          x.unreleased_.push_back(
              {w, x.describe(w) + " is the " + ordinal(k + 1) + " wait on its channel over " +
                      std::to_string(x.calls_) + " calls, and gpu " + std::to_string(key.from) +
                      " signals it " + times(p.signals.size()) + ": it waits forever"});
          continue;
        }
        const std::uint32_t s = p.signals[k];
        edge(s, w, EdgeKind::signal, exclusive && !x.events_[s].relaxed && !x.events_[w].relaxed,
             exclusive);
      }
      // Per call (the calls are alike): signals and waits that differ in number.
      std::uint64_t signals = 0, waits = 0;
      for (std::uint32_t s : p.signals) signals += x.events_[s].call == 0;
      for (std::uint32_t w : p.waits) waits += x.events_[w].call == 0;
      if (signals == waits) continue;
      const std::uint32_t se = p.signals.empty() ? kNone : p.signals.front();
      const std::uint32_t we = p.waits.empty() ? kNone : p.waits.front();
      const std::string type = key.type == 1 ? "port" : "memory";
      x.imbalances_.push_back(
          {se, we,
           "gpu " + std::to_string(key.from) + " signals gpu " + std::to_string(key.to) +
               " on its " + ordinal(key.ordinal + 1) + " " + type + " channel there " +
               times(signals) + " per call and gpu " + std::to_string(key.to) + " waits " +
               times(waits) +
               (signals > waits ? ": the surplus releases a wait of the next call early" : "")});
    }
  }

  void pair_semaphores() {
    for (const auto& [key, s] : sems) {
      const std::int64_t init = plan.gpus[key.first].semaphores[key.second].init_value;
      const bool exclusive = s.releasers.size() <= 1 && s.acquirers.size() <= 1;
      for (std::size_t j = 0; j < s.acquires.size(); ++j) {
        const std::int64_t k = static_cast<std::int64_t>(j) - init;
        if (k < 0) continue;  // the initial value lets it through
        if (static_cast<std::size_t>(k) >= s.releases.size()) {
          x.unreleased_.push_back(
              {s.acquires[j],
               x.describe(s.acquires[j]) + " acquires semaphore " + std::to_string(key.second) +
                   " for the " + ordinal(j + 1) + " time over " + std::to_string(x.calls_) +
                   " calls; it starts at " + std::to_string(init) + " and is released " +
                   times(s.releases.size()) + ": it waits forever"});
          continue;
        }
        edge(s.releases[static_cast<std::size_t>(k)], s.acquires[j], EdgeKind::semaphore, exclusive,
             exclusive);
      }
    }
  }

  void meet_barriers() {
    for (const auto& [key, members] : barriers) {
      const auto [call, g, id] = key;
      std::size_t instances = 0;
      for (const auto& [t, arrivals] : members) instances = std::max(instances, arrivals.size());
      for (std::size_t k = 0; k < instances; ++k) {
        std::vector<const Arrival*> here;
        std::uint32_t wanted = 0;
        for (const auto& [t, arrivals] : members)
          if (k < arrivals.size()) {
            here.push_back(&arrivals[k]);
            wanted = std::max(wanted, arrivals[k].members);
          }
        if (here.size() != wanted) {
          for (const Arrival* a : here)
            x.unreleased_.push_back(
                {a->depart, x.describe(a->arrive) + " is the " + ordinal(k + 1) +
                                " meeting at barrier " + std::to_string(id) +
                                " (num_threadblocks " + std::to_string(wanted) + "), which " +
                                std::to_string(here.size()) + " threadblocks of gpu " +
                                std::to_string(g) + " reach: it never completes"});
          continue;
        }
        const auto [lane, fresh] = barrier_lane[g].try_emplace(id, 0);
        if (fresh) lane->second = new_lane();
        const std::uint32_t m = event(EventKind::meet, lane->second, g, kNone, 0, call);
        for (const Arrival* a : here) {
          edge(a->arrive, m, EdgeKind::barrier, true);
          edge(m, a->depart, EdgeKind::barrier, true);
        }
      }
    }
  }

  /// A packet read waits for its call's packet of each cell it reads. With one writer per cell
  /// that write comes first and orders data; with several, the first one to land releases the
  /// reader: it waits for the first written in the plan's order, which orders nothing (and the
  /// writes themselves race, or are ordered, in the race check).
  void connect_packets() {
    for (std::uint32_t e : packet_readers) {
      const Event& ev = x.events_[e];
      std::vector<std::pair<std::uint32_t, bool>> writers;  // (event, the only writer of a cell)
      bool missing = false;
      for (std::uint32_t a = ev.accesses; a < ev.accesses + ev.access_count && !missing; ++a) {
        const Access& r = x.accesses_[a];
        if (r.write || !r.packet) continue;
        for (std::uint32_t k = 0; k < r.count && !missing; ++k) {
          const auto it =
              packet_writers.find(packet_key(ev.call, r.gpu, r.slot.buffer, r.slot.index + k));
          if (it == packet_writers.end()) {
            missing = true;
            x.unreleased_.push_back(
                {e, x.describe(e) + " reads the packets of " +
                        to_string(Slot{r.slot.buffer, r.slot.index + k}) + " of gpu " +
                        std::to_string(r.gpu) +
                        ", which no op of its call writes: it spins on their flag forever"});
          } else if (it->second.front() != e) {
            writers.emplace_back(it->second.front(), it->second.size() == 1);
          }
        }
      }
      std::sort(writers.begin(), writers.end());
      writers.erase(std::unique(writers.begin(), writers.end()), writers.end());
      for (const auto& [w, only] : writers) edge(w, e, EdgeKind::packet, only, only);
    }
  }

  /// Kahn's algorithm: a data event lands one layer after the latest data event it waits for.
  void layer() {
    const auto n = static_cast<std::uint32_t>(x.events_.size());
    std::vector<std::uint32_t> indegree(n, 0), first(n + 1, 0), succ(x.edges_.size());
    for (const Edge& e : x.edges_) ++first[e.from + 1];
    for (std::uint32_t i = 0; i < n; ++i) first[i + 1] += first[i];
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
    for (const Edge& e : x.edges_) {
      succ[fill[e.from]++] = e.to;
      ++indegree[e.to];
    }
    std::vector<bool> stuck(n, false);
    for (const Unreleased& u : x.unreleased_) stuck[u.event] = true;
    x.level_.assign(n, kUnreached);
    std::vector<std::uint32_t> base(n, 0);  // the layer an event can run in at the earliest
    for (std::uint32_t i = 0; i < n; ++i)
      if (indegree[i] == 0 && !stuck[i]) x.order_.push_back(i);
    for (std::size_t h = 0; h < x.order_.size(); ++h) {
      const std::uint32_t e = x.order_[h];
      x.level_[e] = base[e];
      const bool moves = x.events_[e].kind == EventKind::data && !x.events_[e].outside;
      const std::uint32_t next = base[e] + (moves ? 1 : 0);
      for (std::uint32_t i = first[e]; i < first[e + 1]; ++i) {
        const std::uint32_t v = succ[i];
        base[v] = std::max(base[v], next);
        if (--indegree[v] == 0 && !stuck[v]) x.order_.push_back(v);
      }
    }
    std::uint32_t top = 0;
    for (std::uint32_t e : x.order_) top = std::max(top, x.level_[e] + 1);
    // Only the first call is lowered: its layers that move data are its phases.
    std::vector<bool> moves(top, false);
    for (std::uint32_t e : x.order_) {
      const Event& ev = x.events_[e];
      if (ev.call == 0 && ev.kind == EventKind::data && !ev.outside) moves[x.level_[e]] = true;
    }
    x.phase_of_level_.assign(top, 0);
    std::size_t phases = 0;
    for (std::uint32_t l = 0; l < top; ++l) {
      x.phase_of_level_[l] = phases;
      phases += moves[l];
    }
  }
};

Execution::Execution(const Plan& plan, std::string_view source) : plan_(plan), source_(source) {
  if (plan.collective == "alltoall")
    collective_ = Collective::alltoall;
  else if (plan.collective == "allgather")
    collective_ = Collective::allgather;
  else
    throw InputError(source_ + ": collective: \"" + plan.collective +
                     "\" is not modelled (alltoall and allgather are)");
  if (plan.gpus.empty()) throw InputError(source_ + ": gpus: the plan has no gpu");
  const auto p = static_cast<std::uint32_t>(plan.gpus.size());
  const Gpu& g0 = plan.gpus[0];
  if (collective_ == Collective::alltoall || g0.input_chunks == 0 || plan.inplace)
    chunks_ = g0.output_chunks / p;
  else
    chunks_ = g0.input_chunks;
  if (chunks_ == 0)
    throw InputError(source_ + ": gpus[0]: output_chunks " + std::to_string(g0.output_chunks) +
                     " hold less than a chunk per gpu");
  // In place, an allgather's input is the gpu's part of its output: it must lie inside it.
  if (plan.inplace && collective_ == Collective::allgather)
    for (std::uint32_t g = 0; g < p; ++g)
      if (std::uint64_t{plan.gpus[g].input_chunks} * p > plan.gpus[g].output_chunks)
        throw InputError(
            source_ + ": gpus[" + std::to_string(g) + "]: an allgather in place needs " +
            std::to_string(p) + " x input_chunks (" + std::to_string(plan.gpus[g].input_chunks) +
            ") within output_chunks (" + std::to_string(plan.gpus[g].output_chunks) + ")");
  Builder b(*this);
  b.names_and_checks();
  b.flatten();
  b.lanes();
  b.walk();
  b.pair_signals();
  b.pair_semaphores();
  b.meet_barriers();
  b.connect_packets();
  b.layer();
}

bool Execution::on_block_lane(std::uint32_t e) const { return block_lane_[events_[e].lane]; }

StepRef Execution::ref(std::uint32_t e) const {
  const Event& ev = events_[e];
  return {ev.gpu, ev.tb == kNone ? 0 : ev.tb, ev.step};
}

std::string Execution::path(std::uint32_t gpu, std::uint32_t tb, std::uint32_t step) const {
  std::string s = "gpus[" + std::to_string(gpu) + "].threadblocks[" + std::to_string(tb) + "]";
  if (gpu < flat_.size() && tb < flat_[gpu].size() && step < flat_[gpu][tb].size()) {
    const FlatOp& f = flat_[gpu][tb][step];
    s += ".ops[" + std::to_string(f.outer) + "]";
    if (f.inner != kNone) s += ".ops[" + std::to_string(f.inner) + "]";
  } else {
    s += ".ops";
  }
  return s;
}

std::string Execution::describe(std::uint32_t e) const {
  const Event& ev = events_[e];
  const std::string call = ev.call == 0 ? "" : ", call " + std::to_string(ev.call + 1);
  if (ev.kind == EventKind::boundary)
    return ev.call == calls_
               ? "the caller after the last call on gpu " + std::to_string(ev.gpu) +
                     " (it reads the output)"
               : "the caller between calls " + std::to_string(ev.call) + " and " +
                     std::to_string(ev.call + 1) + " on gpu " + std::to_string(ev.gpu) +
                     " (it reads the output and writes the next input)";
  if (ev.kind == EventKind::meet)
    return "a barrier meeting on gpu " + std::to_string(ev.gpu) + call;
  const Op& op = *flat_[ev.gpu][ev.tb][ev.step].op;
  std::string what(to_string(op.kind));
  if (ev.kind == EventKind::data && ev.to != kNone && ev.to != ev.gpu)
    what += (op.kind == OpKind::get ? " from gpu " : " to gpu ") + std::to_string(ev.to);
  if (ev.kind == EventKind::signal && !on_block_lane(e) && op.kind != OpKind::signal &&
      op.kind != OpKind::relaxed_signal)
    what += "'s signal";
  return to_string(ref(e)) + " (" + what + call + ")";
}

Schedule Execution::emit(std::vector<ExecutionFault> faults) const {
  std::vector<std::vector<std::uint32_t>> by_phase;
  for (std::uint32_t e : order_) {
    const Event& ev = events_[e];
    if (ev.call != 0 || ev.kind != EventKind::data || ev.outside) continue;
    const std::size_t phase = phase_of_level_[level_[e]];
    if (by_phase.size() <= phase) by_phase.resize(phase + 1);
    by_phase[phase].push_back(e);
  }
  Schedule s;
  ScheduleHeader& h = s.header;
  h.algorithm = plan_.name.empty() ? "mscclpp" : plan_.name;
  h.collective = collective_;
  const auto ranks = static_cast<Rank>(plan_.gpus.size());
  h.topology = FullyConnected(ranks, std::max<Rank>(1, ranks - 1));
  h.parts = chunks_ * q_;
  BufferLayout layout;
  layout.chunks = chunks_ * q_;
  layout.inplace = plan_.inplace;
  for (const Gpu& g : plan_.gpus) {
    if (!layout.inplace) layout.input = std::max<std::uint32_t>(layout.input, g.input_chunks * q_);
    layout.output = std::max<std::uint32_t>(layout.output, g.output_chunks * q_);
    // A double scratch buffer's second half is used by the second call only.
    layout.scratch = std::max<std::uint32_t>(layout.scratch, g.scratch_chunks * q_);
  }
  h.buffers = layout;
  Imported imported;
  for (auto& events : by_phase) {
    std::sort(events.begin(), events.end());
    Phase phase("phase " + std::to_string(s.phases.size()));
    std::vector<OpOrigin> origins;
    for (std::uint32_t e : events) {
      const Event& ev = events_[e];
      for (std::uint32_t a = ev.accesses; a + 1 < ev.accesses + ev.access_count; a += 2) {
        const Access& r = accesses_[a];
        const Access& w = accesses_[a + 1];
        phase.add(BufferOp{r.gpu, w.gpu, r.slot, w.slot, w.count});
        origins.push_back({ref(e), ref(e)});
      }
    }
    if (phase.ops().empty()) continue;
    s.phases.push_back(std::move(phase));
    imported.ops.push_back(std::move(origins));
  }
  std::uint64_t ops = 0, threadblocks = 0;
  for (std::size_t g = 0; g < flat_.size(); ++g) {
    threadblocks += flat_[g].size();
    for (const auto& tb : flat_[g]) ops += tb.size();
  }
  imported.format = "mscclpp";
  imported.summary =
      std::to_string(ops) + (ops == 1 ? " op in " : " ops in ") + std::to_string(threadblocks) +
      " threadblocks on " + std::to_string(plan_.gpus.size()) + " gpus, " +
      (plan_.inplace ? "in place" : "out of place") + ", " + std::to_string(calls_) + " calls" +
      (q_ > 1 ? ", " + std::to_string(q_) + " cells per chunk" : std::string());
  imported.faults = std::move(faults);
  h.imported = std::move(imported);
  if (const auto problem = layout_problem(*h.buffers, collective_, ranks))
    throw InputError(source_ + ": buffers: " + *problem);
  return s;
}

}  // namespace phasecheck::mscclpp
