#include "verify/mscclpp_lint.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>

namespace phasecheck::verify {

namespace {

using mscclpp::BufferRef;
using mscclpp::ChannelType;
using mscclpp::Gpu;
using mscclpp::Op;
using mscclpp::OpKind;
using mscclpp::Plan;
using mscclpp::Threadblock;

/// PREDFINED_SCRATCH_SIZE (execution_common.hpp): the scratch a plan with reuse_resources gets.
constexpr std::uint64_t kReusedScratchBytes = std::uint64_t{1} << 26;
constexpr std::uint32_t kWarpSize = 32;

/// The channel types a threadblock lists and an op reaches remote buffers by; switch channels
/// (NVLS) have no per-type limit of their own here and are refused by the model by name.
constexpr std::array<ChannelType, 2> kLinkTypes{ChannelType::memory, ChannelType::port};

std::optional<std::size_t> link_index(std::optional<ChannelType> t) {
  if (!t) return std::nullopt;
  switch (*t) {
    case ChannelType::memory:
      return 0;
    case ChannelType::port:
      return 1;
    case ChannelType::switch_channel:
    case ChannelType::none:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string type_name(std::size_t link) { return std::string(to_string(kLinkTypes[link])); }

std::string indexed(const std::string& path, const char* key, std::size_t i) {
  return path + "." + key + "[" + std::to_string(i) + "]";
}

/// One channel of a gpu or of a threadblock, flattened per type: which list entry it comes from
/// and what it names (a peer for a gpu's channel, a gpu-level index for a threadblock's).
struct Flattened {
  std::uint32_t value = 0;
  std::size_t entry = 0;
};

struct SemaphoreUse {
  std::uint64_t acquires = 0, releases = 0;  // ops naming it (a pipeline's once)
  bool named = false;
  bool in_pipeline = false;  // then the count per call depends on the message size
};

/// The threadblock channels (indices into its list of the op's type) an op signals, waits or
/// pushes through, as the executor's kernel reads channelIndexes: signals and waits one per
/// channel id; port puts, packet puts and flushes one per destination buffer, the channel ids
/// first and then index 0 (channelIndexes is zero-initialised: handlePut, handleFlush,
/// handlePutPackets, handleReadPutPackets). Memory puts, gets, copies and reductions reach the
/// peer through remote buffers and use no channel, whatever channel_ids they carry.
std::vector<std::uint32_t> channels_used(const Op& op) {
  switch (op.kind) {
    case OpKind::signal:
    case OpKind::wait:
    case OpKind::relaxed_signal:
    case OpKind::relaxed_wait:
      return op.channel_ids;
    case OpKind::put:
    case OpKind::put_with_signal:
    case OpKind::put_with_signal_and_flush:
    case OpKind::put_packets:
    case OpKind::read_put_packets:
    case OpKind::flush: {
      if (op.channel_type != ChannelType::port) return {};
      std::vector<std::uint32_t> used(op.dst.size(), 0);
      std::copy_n(op.channel_ids.begin(), std::min(used.size(), op.channel_ids.size()),
                  used.begin());
      return used;
    }
    case OpKind::nop:
    case OpKind::barrier:
    case OpKind::get:
    case OpKind::copy:
    case OpKind::copy_packets:
    case OpKind::unpack_packets:
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
      return {};
  }
  return {};
}

/// Findings of one plan, in the order they are found.
class PlanLint {
 public:
  explicit PlanLint(const MscclppLintInput& input) : file_(input.file), p_(input.plan) {}

  std::vector<LintFinding> run() {
    plan_fields();
    for (std::size_t g = 0; g < p_.gpus.size(); ++g) gpu(g);
    return std::move(findings_);
  }

 private:
  void add(Severity severity, std::string code, std::string path, std::string message) {
    findings_.push_back({severity, std::move(code), file_, 0, std::move(message), std::move(path)});
  }
  void error(std::string code, std::string path, std::string message) {
    add(Severity::error, std::move(code), std::move(path), std::move(message));
  }
  void warning(std::string code, std::string path, std::string message) {
    add(Severity::warning, std::move(code), std::move(path), std::move(message));
  }

  void plan_fields() {
    if (p_.protocol != "Simple" && p_.protocol != "LL")
      error("protocol", "protocol",
            "\"" + p_.protocol +
                "\": the executor knows Simple and LL (packets) and runs every protocol but "
                "\"LL\" as Simple");
    if (p_.min_message_size > p_.max_message_size)
      error("inverted-size-range", "min_message_size",
            "min_message_size " + std::to_string(p_.min_message_size) + " > max_message_size " +
                std::to_string(p_.max_message_size) +
                ": no size selects this plan and the executor refuses every call");
    const std::uint32_t n = p_.num_threads_per_block;
    if (n == 0 || n > mscclpp::kMaxThreadsPerBlock)
      error("threads-per-block", "num_threads_per_block",
            std::to_string(n) + ": a GPU runs 1 to " +
                std::to_string(mscclpp::kMaxThreadsPerBlock) +
                " threads per block, the executor's kernel launch fails");
    else if (n % kWarpSize != 0)
      warning("threads-per-block", "num_threads_per_block",
              std::to_string(n) + " is not a multiple of " + std::to_string(kWarpSize) +
                  " (a warp): the last warp of every threadblock runs partly empty");
  }

  /// Per gpu: its fields, its threadblocks, then what none of them uses.
  void gpu(std::size_t g) {
    const Gpu& gpu = p_.gpus[g];
    const std::string path = indexed("", "gpus", g).substr(1);
    const std::string name = "gpu " + std::to_string(g);
    for (const auto& [chunks, key] : {std::pair{gpu.input_chunks, "input_chunks"},
                                      std::pair{gpu.output_chunks, "output_chunks"}})
      if (chunks == 0)
        error("zero-chunks", path + "." + key,
              name + ": " + key +
                  " is 0: the executor's size check (checkMessageSize) takes the buffer's size "
                  "in alignment units modulo " +
                  key + ", a division by zero, on every call");

    GpuUse use;
    for (const mscclpp::Channel& c : gpu.channels) {
      const std::optional<std::size_t> link = link_index(c.type);
      if (!link) continue;
      for (std::uint32_t peer : c.connected_to)
        use.channels[*link].push_back({peer, static_cast<std::size_t>(&c - gpu.channels.data())});
    }
    for (std::size_t link = 0; link < kLinkTypes.size(); ++link)
      use.channel_listed[link].assign(use.channels[link].size(), false);
    use.remote_buffers = &gpu.remote_buffers;
    use.buffer_listed.assign(gpu.remote_buffers.size(), false);
    use.buffer_used.assign(gpu.remote_buffers.size(), false);
    use.semaphores.assign(gpu.semaphores.size(), {});
    scratch_slot(gpu, use);

    for (std::size_t t = 0; t < gpu.threadblocks.size(); ++t) threadblock(g, t, use);

    for (std::size_t link = 0; link < kLinkTypes.size(); ++link)
      for (std::size_t j = 0; j < use.channels[link].size(); ++j)
        if (!use.channel_listed[link][j])
          warning("unused-channel", indexed(path, "channels", use.channels[link][j].entry),
                  name + "'s " + type_name(link) + " channel " + std::to_string(j) + " (to gpu " +
                      std::to_string(use.channels[link][j].value) +
                      ") is listed by no threadblock: the executor connects it for nothing");
    for (std::size_t r = 0; r < gpu.remote_buffers.size(); ++r)
      if (!use.buffer_used[r]) {
        const mscclpp::RemoteBuffer& b = gpu.remote_buffers[r];
        warning("unused-remote-buffer", indexed(path, "remote_buffers", r),
                name + "'s remote buffer " + std::to_string(r) + " (gpu " + std::to_string(b.rank) +
                    "'s " + std::string(to_string(b.type)) + ") is " +
                    (use.buffer_listed[r] ? "listed by threadblocks but named by no op"
                                          : "listed by no threadblock") +
                    ": the executor registers and exchanges it for nothing");
      }
    for (std::size_t s = 0; s < gpu.semaphores.size(); ++s)
      semaphore(indexed(path, "semaphores", s), name, s, gpu.semaphores[s], use.semaphores[s]);
    reuse_scratch(g, use);
  }

  /// What a gpu's threadblocks use of what the gpu declares.
  struct GpuUse {
    std::array<std::vector<Flattened>, 2> channels;  // peer of each flattened channel, per type
    std::array<std::vector<bool>, 2> channel_listed;
    const std::vector<mscclpp::RemoteBuffer>* remote_buffers = nullptr;
    std::vector<bool> buffer_listed, buffer_used;
    std::vector<SemaphoreUse> semaphores;
    std::optional<std::uint64_t> scratch_slot;  // reuse_resources, when some size outgrows it
    std::uint64_t scratch_chunks_from = 0;      // the first claimed size whose chunks outgrow it
    std::string scratch_op;                     // the first op that overlaps slots, its path
    std::string scratch_why;
  };

  /// A threadblock's own lists: flattened per type, as the executor indexes them.
  struct ThreadblockLists {
    std::array<std::vector<Flattened>, 2> channels;  // gpu-level index of each
    std::array<std::vector<bool>, 2> channel_used;
    std::array<std::vector<std::uint32_t>, 2> buffers;     // gpu-level remote buffer ids
    std::array<std::set<std::uint32_t>, 2> peers_reached;  // gpus whose buffers its ops reach
  };

  void threadblock(std::size_t g, std::size_t t, GpuUse& use) {
    const Threadblock& tb = p_.gpus[g].threadblocks[t];
    const std::string path = indexed(indexed("", "gpus", g).substr(1), "threadblocks", t);
    const std::string name = "threadblock " + std::to_string(t) + " of gpu " + std::to_string(g);
    ThreadblockLists lists;
    for (std::size_t e = 0; e < tb.channels.size(); ++e) {
      const std::optional<std::size_t> link = link_index(tb.channels[e].type);
      if (!link) continue;
      for (std::uint32_t id : tb.channels[e].channel_ids) {
        lists.channels[*link].push_back({id, e});
        if (id < use.channel_listed[*link].size()) use.channel_listed[*link][id] = true;
      }
    }
    for (const mscclpp::RemoteBufferRefs& refs : tb.remote_buffer_refs) {
      const std::optional<std::size_t> link = link_index(refs.access);
      if (!link) continue;
      for (std::uint32_t id : refs.remote_buffer_ids) {
        lists.buffers[*link].push_back(id);
        if (id < use.buffer_listed.size()) use.buffer_listed[id] = true;
      }
    }
    for (std::size_t link = 0; link < kLinkTypes.size(); ++link) {
      lists.channel_used[link].assign(lists.channels[link].size(), false);
      if (lists.channels[link].size() > mscclpp::kMaxChannelsPerThreadblock)
        error("too-many-channels", path + ".channels",
              name + " lists " + std::to_string(lists.channels[link].size()) + " " +
                  type_name(link) + " channels; the executor copies them into an array of " +
                  std::to_string(mscclpp::kMaxChannelsPerThreadblock) +
                  " (MAX_CHANNEL) without checking");
      if (lists.buffers[link].size() > mscclpp::kMaxChannelsPerThreadblock)
        error("too-many-remote-buffers", path + ".remote_buffer_refs",
              name + " lists " + std::to_string(lists.buffers[link].size()) +
                  " remote buffers reached by " + type_name(link) +
                  " channels; the executor copies them into an array of " +
                  std::to_string(mscclpp::kMaxChannelsPerThreadblock) +
                  " (MAX_CHANNEL) without checking");
    }

    std::size_t flattened = 0;
    for (std::size_t i = 0; i < tb.ops.size(); ++i) {
      const Op& op = tb.ops[i];
      const std::string op_path = indexed(path, "ops", i);
      ++flattened;
      this->op(op, op_path, nullptr, lists, use);
      for (std::size_t k = 0; k < op.ops.size(); ++k) {
        ++flattened;
        this->op(op.ops[k], indexed(op_path, "ops", k), &op, lists, use);
      }
    }
    if (flattened > mscclpp::kMaxOpsPerThreadblock)
      error("too-many-ops", path + ".ops",
            name + " runs " + std::to_string(flattened) +
                " ops (a pipeline's ops counted); the executor refuses more than " +
                std::to_string(mscclpp::kMaxOpsPerThreadblock) +
                " (MAX_OPERATION) when it sets the plan up for a call");

    for (std::size_t link = 0; link < kLinkTypes.size(); ++link)
      for (std::size_t k = 0; k < lists.channels[link].size(); ++k) {
        if (lists.channel_used[link][k]) continue;
        const Flattened& c = lists.channels[link][k];
        const std::vector<Flattened>& gpu_channels = use.channels[link];
        // The DSL lists the channel to every peer a threadblock writes or reads, also when the
        // executor reaches the peer's buffer directly (a memory put, get or packet put): such a
        // listing says which peer, and is not reported.
        if (c.value < gpu_channels.size() &&
            lists.peers_reached[link].contains(gpu_channels[c.value].value))
          continue;
        const std::string peer =
            c.value < gpu_channels.size()
                ? " (to gpu " + std::to_string(gpu_channels[c.value].value) + ")"
                : "";
        warning("unused-threadblock-channel", indexed(path, "channels", c.entry),
                name + " lists " + type_name(link) + " channel " + std::to_string(c.value) + peer +
                    " as its " + type_name(link) + " channel " + std::to_string(k) +
                    ", but none of its ops signals, waits or pushes through it, nor reaches a "
                    "buffer of that gpu");
      }
  }

  /// One op (`pipeline`: the pipeline it runs in, or null).
  void op(const Op& op, const std::string& path, const Op* pipeline, ThreadblockLists& lists,
          GpuUse& use) {
    if (op.channel_ids.size() > mscclpp::kMaxChannelsPerOp)
      error("too-many-op-channels", path + ".channel_ids",
            std::to_string(op.channel_ids.size()) + " channels in one op; the executor holds " +
                std::to_string(mscclpp::kMaxChannelsPerOp) + " (MAX_CHANNEL_PER_OPERATION)");
    for (const auto& [refs, key] : {std::pair{&op.src, "src_buff"}, std::pair{&op.dst, "dst_buff"}})
      if (refs->size() > mscclpp::kMaxBuffersPerOp)
        error("too-many-op-buffers", path + "." + key,
              std::to_string(refs->size()) + " buffers in one op's " + key +
                  "; the executor holds " + std::to_string(mscclpp::kMaxBuffersPerOp) +
                  " (MAX_LOCAL_BUFFER_PER_OPERATION + MAX_CHANNEL_PER_OPERATION)");
    if (op.semaphore_ids.size() > mscclpp::kMaxSemaphoresPerOp)
      error("too-many-op-semaphores", path + ".semaphore_ids",
            std::to_string(op.semaphore_ids.size()) + " semaphores in one op; the executor holds " +
                std::to_string(mscclpp::kMaxSemaphoresPerOp) + " (MAX_DEVICE_SEMAPHORES)");
    if (op.barrier_id && *op.barrier_id >= mscclpp::kMaxBarriers)
      error("barrier-id", path + ".barrier_id",
            "barrier_id " + std::to_string(*op.barrier_id) + ": the executor has " +
                std::to_string(mscclpp::kMaxBarriers) + " device barriers (MAX_DEVICE_SYNCERS)");

    const std::optional<std::size_t> link = link_index(op.channel_type);
    if (link)
      for (std::uint32_t id : channels_used(op))
        if (id < lists.channel_used[*link].size()) lists.channel_used[*link][id] = true;
    bool scratch = false;
    for (const std::vector<BufferRef>* refs : {&op.src, &op.dst})
      for (const BufferRef& ref : *refs) {
        if (ref.type == Buffer::scratch) scratch = true;
        if (!ref.buffer_id || !link || *ref.buffer_id >= lists.buffers[*link].size()) continue;
        const std::uint32_t r = lists.buffers[*link][*ref.buffer_id];
        if (r >= use.buffer_used.size()) continue;
        use.buffer_used[r] = true;
        lists.peers_reached[*link].insert((*use.remote_buffers)[r].rank);
        scratch = scratch || (*use.remote_buffers)[r].type == Buffer::scratch;
      }
    for (std::uint32_t s : op.semaphore_ids) {
      if (s >= use.semaphores.size()) continue;
      SemaphoreUse& u = use.semaphores[s];
      u.named = true;
      if (pipeline) u.in_pipeline = true;
      if (op.kind == OpKind::sem_acquire) ++u.acquires;
      if (op.kind == OpKind::sem_release) ++u.releases;
    }
    if (scratch && use.scratch_slot && use.scratch_op.empty())
      overlapping_slots(path, pipeline, use);
  }

  /// reuse_resources: the executor sizes scratch at a fixed 64 MiB (calScratchBufferSize) and a
  /// slot at S = align(ceil(64 MiB [/ 2 with double scratch] / scratch_chunks)) bytes
  /// (calMaxScratchChunkSize). When a call's chunk (its size / C chunks) is larger than S,
  /// getOffset lays scratch chunk i at i * S and the kernel takes pipeline offsets modulo S. Sets
  /// use.scratch_slot only when the plan claims such a size.
  void scratch_slot(const Gpu& gpu, GpuUse& use) const {
    if (!p_.reuse_resources || gpu.scratch_chunks == 0 || p_.buffer_alignment == 0) return;
    if (p_.min_message_size > p_.max_message_size) return;
    const std::uint64_t bytes = kReusedScratchBytes / (p_.use_double_scratch_buffer ? 2 : 1);
    const std::uint64_t align = p_.buffer_alignment;
    const std::uint64_t slot =
        ((bytes + gpu.scratch_chunks - 1) / gpu.scratch_chunks + align - 1) / align * align;
    // checkMessageSize compares the output size for allgather, the input size otherwise.
    const std::uint64_t chunks =
        p_.collective == "allgather" ? gpu.output_chunks : gpu.input_chunks;
    if (chunks == 0 || slot > std::numeric_limits<std::uint64_t>::max() / chunks) return;
    const std::uint64_t fits = chunks * slot;  // the largest size whose chunks fit a slot
    if (p_.max_message_size <= fits) return;
    use.scratch_slot = slot;
    use.scratch_chunks_from = std::max(p_.min_message_size, fits + 1);
  }

  /// An op that touches scratch, on a gpu whose claimed sizes outgrow the reused scratch slots.
  void overlapping_slots(const std::string& path, const Op* pipeline, GpuUse& use) const {
    const std::uint64_t slot = *use.scratch_slot;
    if (!pipeline) {
      use.scratch_op = path;
      use.scratch_why =
          "moves whole scratch chunks outside a pipeline, so it reaches into the "
          "next slot";
      return;
    }
    const std::uint64_t unit = pipeline->iter ? pipeline->iter->unit_size : 0;
    if (unit == 0 || (unit <= slot && slot % unit == 0)) return;
    use.scratch_op = path;
    use.scratch_why = "steps through scratch in its pipeline's units of " + std::to_string(unit) +
                      " bytes, " +
                      (unit > slot ? std::string("larger than a slot")
                                   : std::string("which the slot is not a multiple of")) +
                      ", so a unit reaches into the next slot";
  }

  void reuse_scratch(std::size_t g, const GpuUse& use) {
    if (use.scratch_op.empty()) return;
    const Gpu& gpu = p_.gpus[g];
    const std::uint64_t chunks =
        p_.collective == "allgather" ? gpu.output_chunks : gpu.input_chunks;
    warning("reuse-scratch", use.scratch_op,
            "gpu " + std::to_string(g) +
                ": with reuse_resources the executor gives scratch a fixed 64 MiB" +
                (p_.use_double_scratch_buffer ? " (half of it per call with double scratch)" : "") +
                ", a slot of " + std::to_string(*use.scratch_slot) + " bytes for each of its " +
                std::to_string(gpu.scratch_chunks) + " scratch chunks; from message size " +
                std::to_string(use.scratch_chunks_from) + " on a chunk (1/" +
                std::to_string(chunks) +
                " of it) is larger, and the executor lays scratch chunk i at i * " +
                std::to_string(*use.scratch_slot) +
                " and wraps pipeline offsets modulo it: this op " + use.scratch_why);
  }

  void semaphore(const std::string& path, const std::string& gpu, std::size_t s,
                 const mscclpp::Semaphore& sem, const SemaphoreUse& u) {
    const std::string name = gpu + "'s semaphore " + std::to_string(s);
    if (!u.named) {
      warning("unused-semaphore", path,
              name + " is named by no op: the executor allocates it for nothing");
      return;
    }
    const std::string carries = " The count carries over from call to call.";
    if (u.acquires > 0 && u.releases == 0)
      warning("semaphore-balance", path,
              name + " (init_value " + std::to_string(sem.init_value) +
                  ") is acquired but never released: once the calls have used up what it "
                  "starts with, an acquire waits forever." +
                  carries);
    else if (u.releases > 0 && u.acquires == 0)
      warning("semaphore-balance", path,
              name +
                  " is released but never acquired: its count grows every call and nothing "
                  "waits on it." +
                  carries);
    else if (!u.in_pipeline && u.acquires != u.releases)
      warning("semaphore-balance", path,
              name + " is acquired " + std::to_string(u.acquires) + " and released " +
                  std::to_string(u.releases) + " times per call: its count drifts by " +
                  (u.releases > u.acquires ? "+" + std::to_string(u.releases - u.acquires)
                                           : "-" + std::to_string(u.acquires - u.releases)) +
                  " every call." + carries);
  }

  const std::string& file_;
  const Plan& p_;
  std::vector<LintFinding> findings_;
};

/// mscclpp's NCCL shim (src/ext/nccl/nccl.cc algoSelector, algorithm_selector.cc
/// matchExecutionPlan): the first plan of its unordered map whose range holds the size.
constexpr SelectionWording kMscclppSelector{
    "mscclpp's selector takes whichever it meets first in its hash map of plans",
    "those calls fall back to mscclpp's own algorithms or to NCCL"};

}  // namespace

std::optional<SizeRange> size_range(const Plan& plan) {
  if (plan.min_message_size > plan.max_message_size) return std::nullopt;
  if (plan.max_message_size == std::numeric_limits<std::uint64_t>::max())
    return SizeRange{plan.min_message_size, std::nullopt};
  return SizeRange{plan.min_message_size, plan.max_message_size};
}

std::vector<LintFinding> lint_mscclpp_file(const MscclppLintInput& input) {
  return PlanLint(input).run();
}

LintReport lint_mscclpp(std::span<const MscclppLintInput> inputs) {
  LintReport report;
  report.tool = LintTool::mscclpp;
  std::map<std::string, const std::string*> first_of_name;
  for (const MscclppLintInput& in : inputs) {
    report.files.push_back(in.file);
    std::vector<LintFinding> f = lint_mscclpp_file(in);
    report.findings.insert(report.findings.end(), f.begin(), f.end());
    const auto [it, first] = first_of_name.emplace(in.plan.name, &in.file);
    if (!first)
      report.findings.push_back(
          {Severity::error, "duplicate-name", in.file, 0,
           in.file + " and " + *it->second + " are both named \"" + in.plan.name +
               "\": mscclpp registers plans by collective and name (one replaces the other) "
               "and caches a plan's setup by its name",
           "name"});
  }
  SizeCoverage coverage;
  for (const MscclppLintInput& in : inputs)
    if (const std::optional<SizeRange> range = size_range(in.plan))
      coverage.claim(in.plan.collective, static_cast<std::uint32_t>(in.plan.gpus.size()),
                     in.plan.inplace, in.file, *range);
  std::move(coverage).finish(kMscclppSelector, report);
  return report;
}

}  // namespace phasecheck::verify
