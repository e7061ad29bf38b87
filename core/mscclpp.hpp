#pragma once
/// MSCCL++ execution plans (the JSON that mscclpp's DSL writes and its executor loads,
/// microsoft/mscclpp at 1f5f065, August 2026): the plan as data, as the file says it.
/// io/mscclpp_plan reads and writes it; core/mscclpp_execution.hpp is its execution model; verify/
/// judges it; docs/mscclpp.md states every rule.
///
/// A plan gives each gpu its buffers (input, output and scratch, in chunks), its channels (each
/// a list of peers: memory channels are NVLink/xGMI load-store, port channels proxy-driven RDMA),
/// the remote buffers it may write or read through them, device semaphores, and threadblocks
/// that run concurrently, each a list of ops in order. An op names channels and remote buffers
/// by their index in its threadblock's own lists (`channels`, `remote_buffer_refs`), which name
/// the gpu's: the executor resolves them so, and so does core/mscclpp_execution.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffers.hpp"

namespace phasecheck::mscclpp {

/// The executor's op names (execution_plan.cc getOpType), one enumerator each.
enum class OpKind : std::uint8_t {
  nop,                        ///< "nop": a block-wide barrier (__syncthreads)
  barrier,                    ///< "barrier": threadblocks of the gpu meet (barrier_id)
  put,                        ///< "put"
  put_with_signal,            ///< "pws"
  put_with_signal_and_flush,  ///< "pwsf"
  get,                        ///< "get"
  copy,                       ///< "copy"
  signal,                     ///< "signal": data-ordered
  wait,                       ///< "wait"
  relaxed_signal,             ///< "rlxsignal": orders no data
  relaxed_wait,               ///< "rlxwait"
  flush,                      ///< "flush": completes the port channels' puts
  put_packets,                ///< "ppkt"
  read_put_packets,           ///< "rppkt"
  copy_packets,               ///< "cpkt"
  unpack_packets,             ///< "upkt"
  pipeline,                   ///< "pipeline": its `ops` run `iter_context` times over slices
  sem_acquire,                ///< "sem_acquire"
  sem_release,                ///< "sem_release"
  reduce,                     ///< "re"  (this and the next seven reduce: read, never lowered)
  reduce_send,                ///< "res"
  read_reduce,                ///< "rre"
  read_reduce_send,           ///< "rres"
  reduce_send_packets,        ///< "respkt"
  reduce_packets,             ///< "repkt"
  reduce_copy_packets,        ///< "recpkt"
  reduce_copy_send_packets,   ///< "recspkt"
  multi_load_reduce_store,    ///< "glres" (NVLS: switch channels, not modelled)
  multi_store,                ///< "gstore"
  multi_store_packets         ///< "gstorepkt"
};
/// The file's name of `k` ("nop", "pws", ...).
std::string_view to_string(OpKind k);
/// The op of a file's name, empty for a name the executor does not know.
std::optional<OpKind> parse_op_kind(std::string_view name);
/// The ops that reduce (an allreduce's, a reduce-scatter's) and the NVLS ones.
bool reduces(OpKind k);
bool uses_switch(OpKind k);
/// The ops that move packets (data and flag, LL) and do not reduce: ppkt, rppkt, cpkt, upkt.
bool moves_packets(OpKind k);

enum class ChannelType : std::uint8_t { memory, port, switch_channel, none };
/// "memory", "port", "switch", "none".
std::string_view to_string(ChannelType t);
std::optional<ChannelType> parse_channel_type(std::string_view name);

/// A buffer an op reads or writes: a local one (`type`), a remote one (`buffer_id`, an index into
/// the threadblock's remote buffers reachable by the op's channel type) or a switch channel's
/// (NVLS, refused). `index` and `size` are in chunks.
struct BufferRef {
  std::optional<Buffer> type;
  std::optional<std::uint32_t> buffer_id;
  std::optional<std::uint32_t> switch_channel_id;
  std::uint32_t index = 0;
  std::uint32_t size = 0;
  friend bool operator==(const BufferRef&, const BufferRef&) = default;
};

/// A threadblock group: the op moves slice `tb_id` of `tbg_size` equal slices of its buffers.
struct GroupInfo {
  std::uint32_t tb_id = 0;
  std::uint32_t tbg_size = 1;
  friend bool operator==(const GroupInfo&, const GroupInfo&) = default;
};

/// A pipeline's iterations: `unit_size` bytes of each buffer per iteration over `num_chunks`.
struct IterContext {
  std::uint64_t unit_size = 0;
  std::uint32_t num_chunks = 0;
  friend bool operator==(const IterContext&, const IterContext&) = default;
};

struct Op {
  OpKind kind = OpKind::nop;
  std::optional<ChannelType> channel_type;
  std::vector<std::uint32_t> channel_ids;  ///< indices into the threadblock's channels of the type
  std::vector<BufferRef> src, dst;         ///< src_buff, dst_buff
  std::optional<std::uint32_t> barrier_id, num_threadblocks;
  std::vector<std::uint32_t> semaphore_ids;  ///< indices into the gpu's semaphores
  std::optional<GroupInfo> group;            ///< tbg_info
  std::optional<IterContext> iter;           ///< pipeline: iter_context
  std::vector<Op> ops;                       ///< pipeline: the ops of one iteration
  friend bool operator==(const Op&, const Op&) = default;
};

/// A threadblock's channels of one type: indices into the gpu's channels of that type, in the
/// order the gpu's `channels` list their peers (flattened).
struct ThreadblockChannels {
  ChannelType type = ChannelType::memory;
  std::optional<Buffer> buffer;  ///< "buff" (switch channels)
  std::vector<std::uint32_t> channel_ids;
  friend bool operator==(const ThreadblockChannels&, const ThreadblockChannels&) = default;
};

/// The remote buffers a threadblock reaches by channels of one type: indices into the gpu's
/// remote_buffers.
struct RemoteBufferRefs {
  ChannelType access = ChannelType::memory;
  std::vector<std::uint32_t> remote_buffer_ids;
  friend bool operator==(const RemoteBufferRefs&, const RemoteBufferRefs&) = default;
};

struct Threadblock {
  std::uint32_t id = 0;  ///< its position among the gpu's threadblocks (the executor's blockIdx)
  std::vector<Op> ops;
  std::vector<ThreadblockChannels> channels;
  std::vector<RemoteBufferRefs> remote_buffer_refs;
  friend bool operator==(const Threadblock&, const Threadblock&) = default;
};

/// One entry of a gpu's `channels`: a channel to each peer of `connected_to` (a peer listed
/// twice gets two channels). Switch channels (NVLS) are kept only to be refused by name.
struct Channel {
  ChannelType type = ChannelType::memory;
  std::vector<std::uint32_t> connected_to;
  friend bool operator==(const Channel&, const Channel&) = default;
};

/// A buffer of gpu `rank` that this gpu reaches through channels of the listed types.
struct RemoteBuffer {
  std::uint32_t rank = 0;
  Buffer type = Buffer::input;
  std::vector<ChannelType> access_channel_types;
  friend bool operator==(const RemoteBuffer&, const RemoteBuffer&) = default;
};

struct Semaphore {
  std::int64_t init_value = 0;
  friend bool operator==(const Semaphore&, const Semaphore&) = default;
};

struct Gpu {
  std::uint32_t id = 0;
  std::uint32_t input_chunks = 0, output_chunks = 0, scratch_chunks = 0;
  std::vector<Threadblock> threadblocks;
  std::vector<Channel> channels;
  std::vector<RemoteBuffer> remote_buffers;
  std::vector<Semaphore> semaphores;
  friend bool operator==(const Gpu&, const Gpu&) = default;
};

/// The whole plan. Fields the executor defaults (obj.value(...)) are defaulted here the same way.
struct Plan {
  std::string name;
  std::string collective;  ///< as written; only "alltoall" and "allgather" are lowered
  std::string protocol;    ///< "Simple" or "LL" (packets)
  bool inplace = false;
  bool reuse_resources = false;
  bool use_double_scratch_buffer = false;
  std::uint32_t num_threads_per_block = 1024;
  std::uint32_t buffer_alignment = 16;
  std::uint64_t min_message_size = 0;
  std::uint64_t max_message_size = ~std::uint64_t{0};
  std::vector<Gpu> gpus;  ///< gpus[i].id == i
  friend bool operator==(const Plan&, const Plan&) = default;
};

/// The executor's fixed arrays (execution_common.hpp): what a plan may use at most.
inline constexpr std::uint32_t kMaxChannelsPerThreadblock = 16;  ///< MAX_CHANNEL, per type
inline constexpr std::uint32_t kMaxChannelsPerOp = 8;            ///< MAX_CHANNEL_PER_OPERATION
inline constexpr std::uint32_t kMaxBuffersPerOp = 10;  ///< MAX_LOCAL_BUFFER + MAX_CHANNEL per op
inline constexpr std::uint32_t kMaxOpsPerThreadblock = 64;  ///< MAX_OPERATION (flattened)
inline constexpr std::uint32_t kMaxSemaphoresPerOp = 16;    ///< MAX_DEVICE_SEMAPHORES
inline constexpr std::uint32_t kMaxBarriers = 16;           ///< MAX_DEVICE_SYNCERS
inline constexpr std::uint32_t kMaxThreadsPerBlock = 1024;

}  // namespace phasecheck::mscclpp
