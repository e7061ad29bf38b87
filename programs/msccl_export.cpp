#include "programs/msccl_export.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/error.hpp"
#include "programs/local_copies.hpp"

namespace phasecheck::programs {

namespace {

using msccl::Step;
using msccl::StepType;
using msccl::Threadblock;

enum class Role : std::uint8_t { local, send, receive };

/// Builds one gpu's threadblocks and the waits between them.
class GpuBuilder {
 public:
  explicit GpuBuilder(msccl::Gpu& gpu) : gpu_(gpu) {}

  /// Appends a step of `type` to the threadblock (role, peer, channel), after waits for every
  /// other threadblock's last access that conflicts with reading `read` and writing `write`.
  void add(Role role, std::int32_t peer, std::uint32_t channel, Step step, std::optional<Slot> read,
           std::optional<Slot> write) {
    const std::uint32_t t = threadblock(role, peer, channel);
    std::map<std::uint32_t, std::uint32_t> waits;  // threadblock -> latest step to wait for
    const auto need = [&](std::uint32_t tb, std::uint32_t s) {
      if (tb == t) return;  // earlier in the same threadblock: in order anyway
      auto [it, fresh] = waits.emplace(tb, s);
      if (!fresh) it->second = std::max(it->second, s);
    };
    for (std::uint32_t k = 0; k < step.count; ++k) {
      if (read)
        if (const auto it = slots_.find(key(*read, k)); it != slots_.end() && it->second.writer)
          need(it->second.writer->first, it->second.writer->second);
      if (write)
        if (const auto it = slots_.find(key(*write, k)); it != slots_.end()) {
          if (it->second.writer) need(it->second.writer->first, it->second.writer->second);
          for (const auto& [tb, s] : it->second.readers) need(tb, s);
        }
    }
    Threadblock& block = gpu_.threadblocks[t];
    std::size_t left = waits.size();
    for (const auto& [tb, s] : waits) {
      Threadblock& other = gpu_.threadblocks[tb];
      other.steps[s].signals = true;
      if (--left == 0) {  // the step itself waits for the last one
        step.depend_threadblock = static_cast<std::int32_t>(other.id);
        step.depend_step = static_cast<std::int32_t>(s);
        break;
      }
      Step nop;
      nop.index = static_cast<std::uint32_t>(block.steps.size());
      nop.type = StepType::nop;
      nop.count = 0;
      nop.depend_threadblock = static_cast<std::int32_t>(other.id);
      nop.depend_step = static_cast<std::int32_t>(s);
      block.steps.push_back(nop);
    }
    step.index = static_cast<std::uint32_t>(block.steps.size());
    block.steps.push_back(step);
    for (std::uint32_t k = 0; k < step.count; ++k) {
      if (read) {
        auto& readers = slots_[key(*read, k)].readers;
        readers[t] = std::max(readers[t], step.index);
      }
      if (write) {
        Use& u = slots_[key(*write, k)];
        u.writer = std::pair{t, step.index};
        u.readers.clear();
      }
    }
  }

 private:
  struct Use {
    std::optional<std::pair<std::uint32_t, std::uint32_t>> writer;  // threadblock, step
    std::map<std::uint32_t, std::uint32_t> readers;  // since the last write: threadblock -> step
  };
  static std::uint64_t key(Slot s, std::uint32_t k) {
    return std::uint64_t(s.buffer) << 32 | (s.index + k);
  }
  std::uint32_t threadblock(Role role, std::int32_t peer, std::uint32_t channel) {
    const auto [it, fresh] =
        index_.emplace(std::tuple{role, peer, channel}, std::uint32_t(gpu_.threadblocks.size()));
    if (fresh) {
      Threadblock tb;
      tb.id = it->second;
      tb.send = role == Role::send ? peer : -1;
      tb.recv = role == Role::receive ? peer : -1;
      tb.channel = channel;
      gpu_.threadblocks.push_back(std::move(tb));
    }
    return it->second;
  }

  msccl::Gpu& gpu_;
  std::map<std::tuple<Role, std::int32_t, std::uint32_t>, std::uint32_t> index_;
  std::unordered_map<std::uint64_t, Use> slots_;
};

/// The local copies of one gpu in one phase in an order one threadblock runs them.
std::vector<const BufferOp*> order_copies(const std::vector<const BufferOp*>& copies,
                                          std::size_t phase) {
  auto order = order_local_copies(copies);
  if (!order)
    throw InputError("phase " + std::to_string(phase) + ": the local copies of rank " +
                     std::to_string(copies.front()->src) +
                     " read each other's destinations in a cycle (a swap); MSCCL runs a "
                     "threadblock's copies one after the other, so this phase needs a scratch "
                     "slot to be exported");
  return std::move(*order);
}

}  // namespace

msccl::Program to_msccl(const Schedule& program, const MscclExportOptions& options) {
  const ScheduleHeader& h = program.header;
  if (!h.buffers) throw InputError("export needs a buffer program (format 3)");
  if (options.protocol != "Simple" && options.protocol != "LL" && options.protocol != "LL128")
    throw InputError("--proto " + options.protocol + ": expected Simple, LL or LL128");
  if (options.channels < 1 || options.channels > msccl::kMaxChannels)
    throw InputError("--channels " + std::to_string(options.channels) + ": expected 1 to " +
                     std::to_string(msccl::kMaxChannels));
  if (options.min_bytes < 0 || options.max_bytes < 0 ||
      (options.max_bytes != 0 && options.min_bytes > options.max_bytes))
    throw InputError("--min-bytes " + std::to_string(options.min_bytes) + " --max-bytes " +
                     std::to_string(options.max_bytes) +
                     ": expected 0 <= min <= max (max 0: no upper limit)");
  const BufferLayout& layout = *h.buffers;
  const Rank p = h.ranks();

  msccl::Program out;
  out.name = options.name.empty() ? h.algorithm : options.name;
  out.protocol = options.protocol;
  out.coll = std::string(to_string(h.collective));
  out.ngpus = p;
  out.nchunksperloop = p * layout.chunks;
  out.nchannels = options.channels;
  out.inplace = layout.inplace;
  out.outofplace = !layout.inplace;
  out.min_bytes = options.min_bytes;
  out.max_bytes = options.max_bytes;
  out.gpus.resize(p);
  std::vector<GpuBuilder> builders;
  builders.reserve(p);
  for (Rank r = 0; r < p; ++r) {
    msccl::Gpu& g = out.gpus[r];
    g.id = r;
    g.input_chunks = layout.input;
    g.output_chunks = layout.output;
    g.scratch_chunks = layout.scratch;
    builders.emplace_back(g);
  }

  for (std::size_t t = 0; t < program.phases.size(); ++t) {
    const auto ops = program.phases[t].ops();
    // Sends first (pure reads), with the channel of each, then copies, then the receives in the
    // same order as their sends so that both sides of a connection agree.
    std::map<std::pair<Rank, Rank>, std::uint32_t> nth;  // ops between a pair so far
    std::vector<std::uint32_t> channel(ops.size(), 0);
    std::vector<std::vector<const BufferOp*>> copies(p);
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const BufferOp& op = ops[i];
      if (op.local()) {
        copies[op.src].push_back(&op);
        continue;
      }
      channel[i] = nth[{op.src, op.dst}]++ % options.channels;
      for (std::uint32_t done = 0; done < op.count; done += msccl::kMaxCount) {
        Step s;
        s.type = StepType::send;
        s.count = std::min(msccl::kMaxCount, op.count - done);
        s.src = Slot{op.from.buffer, op.from.index + done};
        s.remote = Slot{op.to.buffer, op.to.index + done};
        builders[op.src].add(Role::send, static_cast<std::int32_t>(op.dst), channel[i], s, s.src,
                             std::nullopt);
      }
    }
    for (Rank r = 0; r < p; ++r) {
      if (copies[r].empty()) continue;
      for (const BufferOp* op : order_copies(copies[r], t))
        for (std::uint32_t done = 0; done < op->count; done += msccl::kMaxCount) {
          Step s;
          s.type = StepType::copy;
          s.count = std::min(msccl::kMaxCount, op->count - done);
          s.src = Slot{op->from.buffer, op->from.index + done};
          s.dst = Slot{op->to.buffer, op->to.index + done};
          builders[r].add(Role::local, -1, 0, s, s.src, s.dst);
        }
    }
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const BufferOp& op = ops[i];
      if (op.local()) continue;
      for (std::uint32_t done = 0; done < op.count; done += msccl::kMaxCount) {
        Step s;
        s.type = StepType::receive;
        s.count = std::min(msccl::kMaxCount, op.count - done);
        s.dst = Slot{op.to.buffer, op.to.index + done};
        s.remote = Slot{op.from.buffer, op.from.index + done};
        builders[op.dst].add(Role::receive, static_cast<std::int32_t>(op.src), channel[i], s,
                             std::nullopt, s.dst);
      }
    }
  }

  for (const msccl::Gpu& g : out.gpus) {
    if (g.threadblocks.size() > msccl::kMaxThreadblocks)
      throw InputError("gpu " + std::to_string(g.id) + " would run " +
                       std::to_string(g.threadblocks.size()) + " threadblocks; RCCL runs at most " +
                       std::to_string(msccl::kMaxThreadblocks) + " (use fewer --channels)");
    for (const Threadblock& tb : g.threadblocks)
      if (tb.steps.size() > msccl::kMaxSteps)
        throw InputError("gpu " + std::to_string(g.id) + " threadblock " + std::to_string(tb.id) +
                         " would run " + std::to_string(tb.steps.size()) +
                         " steps; RCCL runs at most " + std::to_string(msccl::kMaxSteps) +
                         " per threadblock (more --channels spread a connection's steps)");
  }
  return out;
}

void check_threadblock_room(const Schedule& schedule) {
  const Rank p = schedule.header.ranks();
  if (2 * std::uint64_t{p - (p > 0)} <= msccl::kMaxThreadblocks) return;  // every pair fits
  std::vector<std::vector<Rank>> to(p), from(p);
  const auto pair = [&](Rank src, Rank dst) {
    if (src == dst) return;
    to[src].push_back(dst);
    from[dst].push_back(src);
  };
  for (const Phase& phase : schedule.phases) {
    for (const Transfer& t : phase.transfers()) pair(t.src, t.dst);
    for (const BufferOp& op : phase.ops()) pair(op.src, op.dst);
  }
  const auto distinct = [](std::vector<Rank>& v) {
    std::sort(v.begin(), v.end());
    return static_cast<std::uint64_t>(std::unique(v.begin(), v.end()) - v.begin());
  };
  for (Rank r = 0; r < p; ++r) {
    const std::uint64_t sends = distinct(to[r]), receives = distinct(from[r]);
    if (sends + receives > msccl::kMaxThreadblocks)
      throw InputError("rank " + std::to_string(r) + " sends to " + std::to_string(sends) +
                       " peers and receives from " + std::to_string(receives) + ": gpu " +
                       std::to_string(r) + " would run at least " +
                       std::to_string(sends + receives) +
                       " threadblocks (one per peer and direction); RCCL runs at most " +
                       std::to_string(msccl::kMaxThreadblocks));
  }
}

}  // namespace phasecheck::programs
