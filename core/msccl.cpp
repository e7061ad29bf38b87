#include "core/msccl.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace phasecheck::msccl {

std::string_view to_string(Dialect d) { return d == Dialect::step ? "step" : "op"; }

std::string_view to_string(StepType t) {
  switch (t) {
    case StepType::send:
      return "s";
    case StepType::receive:
      return "r";
    case StepType::receive_copy_send:
      return "rcs";
    case StepType::copy:
      return "cpy";
    case StepType::nop:
      return "nop";
    case StepType::receive_reduce_send:
      return "rrs";
    case StepType::receive_reduce_copy:
      return "rrc";
    case StepType::receive_reduce_copy_send:
      return "rrcs";
    case StepType::reduce:
      return "re";
  }
  return "?";
}

bool reduces(StepType t) {
  return t == StepType::receive_reduce_send || t == StepType::receive_reduce_copy ||
         t == StepType::receive_reduce_copy_send || t == StepType::reduce;
}

Collective collective_of(const Program& p, std::string_view where) {
  if (p.coll == "alltoall") return Collective::alltoall;
  if (p.coll == "allgather") return Collective::allgather;
  throw InputError(std::string(where) + ": coll=\"" + p.coll +
                   "\": not an alltoall or allgather schedule (phasecheck checks those two "
                   "collectives; reductions are not modelled)");
}

std::uint32_t chunks_per_pair(const Program& p, std::string_view where) {
  if (p.ngpus == 0 || p.nchunksperloop == 0 || p.nchunksperloop % p.ngpus != 0)
    throw InputError(std::string(where) + ": nchunksperloop=" + std::to_string(p.nchunksperloop) +
                     " is not a positive multiple of ngpus=" + std::to_string(p.ngpus) +
                     ": the chunks per pair (nchunksperloop / ngpus) are undefined");
  const std::uint32_t c = p.nchunksperloop / p.ngpus;
  if (c > kMaxParts)
    throw InputError(std::string(where) + ": " + std::to_string(c) +
                     " chunks per pair (nchunksperloop / ngpus); at most " +
                     std::to_string(kMaxParts));
  return c;
}

std::uint32_t declared_chunks(const Gpu& gpu, Buffer b) {
  switch (b) {
    case Buffer::input:
      return gpu.input_chunks;
    case Buffer::output:
      return gpu.output_chunks;
    case Buffer::scratch:
      return gpu.scratch_chunks;
  }
  return 0;  // not a Buffer
}

Placement default_placement(const Program& p) {
  const bool in = p.inplace.value_or(false);
  const bool out = p.outofplace.value_or(!in);
  return (in && !out) ? Placement::in_place : Placement::out_of_place;
}

namespace {

/// What the model keeps per step at most, the race check's clocks and slots aside: two events
/// (a recv-copy-send is two) of 32 bytes, five edges of 12 (order, dependency, data, buffer)
/// with a vector's slack, the layering's and the deadlock search's arrays and lists, and the race
/// check's threads, positions and edges between threadblocks.
constexpr std::uint64_t kBytesPerStep = 512;

}  // namespace

using EventKind = Execution::EventKind;
using EdgeKind = Execution::EdgeKind;
using Event = Execution::Event;

Execution::Execution(const Program& p, std::string_view source, Placement placement)
    : p_(p), source_(source), placement_(placement) {
  collective_ = collective_of(p_, source_);
  chunks_ = chunks_per_pair(p_, source_);
  if (placement_ == Placement::in_place && collective_ == Collective::alltoall)
    throw InputError(source_ + ": an alltoall cannot be judged in place (inplace=\"1\" only)");
  charge_steps();
  build_events();
  check_buffers();
  match();
  depend();
  layer();
}

Slot Execution::local_slot(std::uint32_t g, Slot s) const {
  if (placement_ == Placement::in_place && s.buffer == Buffer::input)
    return {Buffer::output, g * chunks_ + s.index};
  return s;
}

bool Execution::inside(std::uint32_t g, Slot s, std::uint32_t count) const {
  return std::uint64_t{s.index} + count <= declared_chunks(p_.gpus[g], s.buffer);
}

std::optional<Slot> Execution::outside_slot(std::uint32_t e) const {
  const Event& ev = events_[e];
  if (ev.kind == EventKind::nop) return std::nullopt;
  const Step& st = step(ev);
  // The declared slot an event names, checked against its own gpu's buffers.
  const std::optional<Slot> declared =
      ev.kind == EventKind::receive ? st.dst
                                    : (st.type == StepType::receive_copy_send ? st.dst : st.src);
  const std::optional<Slot> second = ev.kind == EventKind::copy ? st.dst : std::nullopt;
  for (const std::optional<Slot>& d : {declared, second}) {
    if (!d) continue;
    // In place, i[k] is o[g*c + k]: only the gpu's own c chunks are its input.
    const bool fits = inside(ev.gpu, *d, st.count) &&
                      !(placement_ == Placement::in_place && d->buffer == Buffer::input &&
                        std::uint64_t{d->index} + st.count > chunks_);
    if (!fits) return d;
  }
  return std::nullopt;
}

void Execution::check_buffers() {
  // Before anything is sized by a step's count: a step beyond its buffers moves nothing (emit
  // reports it), so neither a connection's buffer nor the race check's state grows with it.
  for (std::uint32_t e = 0; e < events_.size(); ++e)
    events_[e].outside = outside_slot(e).has_value();
}

void Execution::charge_steps() {
  std::uint64_t steps = 0;
  for (const Gpu& g : p_.gpus)
    for (const Threadblock& t : g.threadblocks) steps += t.steps.size();
  charged_ = checked_mul(steps, kBytesPerStep).value_or(~std::uint64_t{0});
  check_memory(charged_, source_ + ": the execution model of " + std::to_string(steps) +
                             " steps (" + std::to_string(kBytesPerStep) + " bytes a step)");
}

void Execution::build_events() {
  step_events_.resize(p_.gpus.size());
  for (std::uint32_t g = 0; g < p_.gpus.size(); ++g) {
    const Gpu& gpu = p_.gpus[g];
    inbox_base_ = std::max(inbox_base_, gpu.scratch_chunks);
    step_events_[g].resize(gpu.threadblocks.size());
    for (std::uint32_t t = 0; t < gpu.threadblocks.size(); ++t) {
      const Threadblock& block = gpu.threadblocks[t];
      auto& firsts = step_events_[g][t];
      std::uint32_t local = 0;
      for (std::uint32_t s = 0; s < block.steps.size(); ++s) {
        firsts.push_back(static_cast<std::uint32_t>(events_.size()));
        const auto add = [&](EventKind k) {
          Event e;
          e.gpu = g;
          e.tb = t;
          e.step = s;
          e.local = local++;
          e.kind = k;
          events_.push_back(e);
        };
        switch (block.steps[s].type) {
          case StepType::send:
            add(EventKind::send);
            break;
          case StepType::receive:
            add(EventKind::receive);
            break;
          case StepType::receive_copy_send:
            add(EventKind::receive);
            add(EventKind::send);
            break;
          case StepType::copy:
            add(EventKind::copy);
            break;
          case StepType::nop:
            add(EventKind::nop);
            break;
          case StepType::receive_reduce_send:
          case StepType::receive_reduce_copy:
          case StepType::receive_reduce_copy_send:
          case StepType::reduce:
            throw InputError(source_ + ":" + std::to_string(block.steps[s].line) + ": type=\"" +
                             std::string(to_string(block.steps[s].type)) +
                             "\" reduces: not an alltoall or allgather program (reductions "
                             "are not modelled)");
        }
      }
      firsts.push_back(static_cast<std::uint32_t>(events_.size()));
    }
  }
}

void Execution::match() {
  // Connection (from, to, channel): the sends of `from`'s threadblocks, the receives of `to`'s,
  // in event order (threadblock order).
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, Connection> connections;
  for (std::uint32_t e = 0; e < events_.size(); ++e) {
    const Event& ev = events_[e];
    if (ev.kind != EventKind::send && ev.kind != EventKind::receive) continue;
    const Threadblock& block = threadblock(ev);
    const bool send = ev.kind == EventKind::send;
    const auto peer = static_cast<std::uint32_t>(send ? block.send : block.recv);
    Connection& c = connections[send ? std::tuple{ev.gpu, peer, block.channel}
                                     : std::tuple{peer, ev.gpu, block.channel}];
    (send ? c.sends : c.receives).push_back(e);
  }
  connections_.reserve(connections.size());
  std::vector<std::uint32_t> inbox_used(p_.gpus.size(), 0);
  for (auto& [key, c] : connections) {
    std::tie(c.from, c.to, c.channel) = key;
    const std::uint32_t to = c.to;
    // The connection's buffer: one message, as wide as its widest that moves data.
    std::uint32_t width = 0, widest = kNone;
    for (const auto* list : {&c.sends, &c.receives})
      for (std::uint32_t e : *list)
        if (!events_[e].outside && step(events_[e]).count > width) {
          width = step(events_[e]).count;
          widest = e;
        }
    for (std::uint32_t e : c.sends) events_[e].inbox = inbox_used[to];
    for (std::uint32_t e : c.receives) events_[e].inbox = inbox_used[to];
    // Checked as it grows: the buffers are scratch slots of the lowered program.
    if (std::uint64_t{inbox_base_} + inbox_used[to] + width > kMaxSlots)
      throw InputError(source_ + ": " + name(widest) + ": the connection buffers of gpu " +
                       std::to_string(to) + " (one message of cnt=\"" + std::to_string(width) +
                       "\" each) and its scratch pass " + std::to_string(kMaxSlots) + " slots");
    inbox_used[to] += width;
    inbox_slots_ = std::max(inbox_slots_, inbox_used[to]);

    // The k-th send meets the k-th receive; what is left over waits forever.
    const std::size_t matched = std::min(c.sends.size(), c.receives.size());
    for (std::size_t k = 0; k < matched; ++k) {
      const std::uint32_t s = c.sends[k], r = c.receives[k];
      events_[s].partner = r;
      events_[r].partner = s;
      edges_.push_back({s, r, EdgeKind::data});
      // The connection buffers one message: send k waits until receive k - 1 took its data.
      if (k > 0) edges_.push_back({c.receives[k - 1], s, EdgeKind::buffer});
    }
    for (const auto* list : {&c.sends, &c.receives})
      for (std::size_t k = matched; k < list->size(); ++k) events_[(*list)[k]].blocked = true;
    connections_.push_back(std::move(c));
  }
}

void Execution::depend() {
  for (std::uint32_t g = 0; g < p_.gpus.size(); ++g) {
    const Gpu& gpu = p_.gpus[g];
    std::unordered_map<std::uint32_t, std::uint32_t> index_of;  // threadblock id -> index
    for (std::uint32_t t = 0; t < gpu.threadblocks.size(); ++t)
      index_of[gpu.threadblocks[t].id] = t;
    for (std::uint32_t t = 0; t < gpu.threadblocks.size(); ++t) {
      const auto& firsts = step_events_[g][t];
      for (std::uint32_t e = firsts.front(); e + 1 < firsts.back(); ++e)
        edges_.push_back({e, e + 1, EdgeKind::order});
      const Threadblock& block = gpu.threadblocks[t];
      for (std::uint32_t s = 0; s < block.steps.size(); ++s) {
        const Step& st = block.steps[s];
        if (st.depend_threadblock < 0) continue;
        // The reader validated that the threadblock and the step exist.
        const std::uint32_t dt = index_of.at(static_cast<std::uint32_t>(st.depend_threadblock));
        const Threadblock& other = gpu.threadblocks[dt];
        std::optional<std::uint32_t> signal;
        for (auto x = static_cast<std::uint32_t>(st.depend_step); x < other.steps.size(); ++x)
          if (other.steps[x].signals && other.steps[x].type != StepType::nop) {
            signal = x;
            break;
          }
        const std::uint32_t waiter = firsts[s];
        if (!signal) {
          events_[waiter].blocked = true;
          unreleased_.push_back(
              {waiter, {g, other.id, static_cast<std::uint32_t>(st.depend_step)}});
          continue;
        }
        edges_.push_back({step_events_[g][dt][*signal + 1] - 1, waiter, EdgeKind::depends});
      }
    }
  }
}

void Execution::layer() {
  const auto n = static_cast<std::uint32_t>(events_.size());
  std::vector<std::uint32_t> indegree(n, 0), first(n + 1, 0), out(edges_.size());
  for (const Edge& e : edges_) ++first[e.from + 1];
  for (std::uint32_t i = 0; i < n; ++i) first[i + 1] += first[i];
  {
    std::vector<std::uint32_t> at(first.begin(), first.end() - 1);
    for (std::uint32_t i = 0; i < edges_.size(); ++i) out[at[edges_[i].from]++] = i;
  }
  for (const Edge& e : edges_) ++indegree[e.to];
  level_.assign(n, 0);
  std::vector<std::uint32_t> ready;
  for (std::uint32_t i = 0; i < n; ++i)
    if (indegree[i] == 0 && !events_[i].blocked) ready.push_back(i);
  std::vector<bool> reached(n, false);
  for (std::size_t head = 0; head < ready.size(); ++head) {
    const std::uint32_t u = ready[head];
    reached[u] = true;
    order_.push_back(u);
    for (std::uint32_t k = first[u]; k < first[u + 1]; ++k) {
      const Edge& e = edges_[out[k]];
      level_[e.to] = std::max(level_[e.to], level_[u] + 1);
      if (--indegree[e.to] == 0 && !events_[e.to].blocked) ready.push_back(e.to);
    }
  }
  for (std::uint32_t i = 0; i < n; ++i)
    if (!reached[i]) level_[i] = kUnreached;
  // A layer becomes a phase when it moves data: not when it holds only nops or faulty ops.
  std::uint32_t levels = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    if (level_[i] != kUnreached) levels = std::max(levels, level_[i] + 1);
  std::vector<bool> moves(levels, false);
  for (std::uint32_t i = 0; i < n; ++i)
    if (level_[i] != kUnreached && events_[i].kind != EventKind::nop && !events_[i].outside)
      moves[level_[i]] = true;
  phase_of_level_.resize(levels);
  std::size_t phases = 0;
  for (std::uint32_t l = 0; l < levels; ++l) {
    phase_of_level_[l] = phases;
    phases += moves[l];
  }
}

std::string Execution::describe(std::uint32_t e) const {
  const Event& a = events_[e];
  switch (a.kind) {
    case EventKind::send:
      return name(e) + " (send to gpu " + std::to_string(threadblock(a).send) + ")";
    case EventKind::receive:
      return name(e) + " (receive from gpu " + std::to_string(threadblock(a).recv) + ")";
    case EventKind::copy:
      return name(e) + " (copy)";
    case EventKind::nop:
      return name(e) + " (nop)";
  }
  return name(e);
}

Execution::Access Execution::access(std::uint32_t e) const {
  const Event& ev = events_[e];
  const Step& s = step(ev);
  Access a;
  a.count = s.count;
  a.read_gpu = a.write_gpu = ev.gpu;
  switch (ev.kind) {
    case EventKind::send:
      // A recv-copy-send forwards what its receive wrote.
      a.read = local_slot(ev.gpu, s.type == StepType::receive_copy_send ? *s.dst : *s.src);
      a.write = inbox(ev);
      a.write_gpu = static_cast<std::uint32_t>(threadblock(ev).send);
      break;
    case EventKind::receive:
      a.read = inbox(ev);
      a.write = local_slot(ev.gpu, *s.dst);
      break;
    case EventKind::copy:
      a.read = local_slot(ev.gpu, *s.src);
      a.write = local_slot(ev.gpu, *s.dst);
      break;
    case EventKind::nop:
      break;
  }
  return a;
}

Schedule Execution::emit(std::vector<ExecutionFault> faults) const {
  std::vector<std::vector<std::uint32_t>> by_level(phase_of_level_.size());
  for (std::uint32_t e = 0; e < events_.size(); ++e)
    if (level_[e] != kUnreached) by_level[level_[e]].push_back(e);

  Schedule s;
  Imported imported;
  ScheduleHeader& h = s.header;
  h.algorithm = p_.name.empty() ? "msccl" : p_.name;
  h.collective = collective_;
  const auto ranks = static_cast<Rank>(p_.ngpus);
  h.topology = FullyConnected(ranks, std::max<Rank>(1, ranks - 1));
  h.parts = chunks_;
  BufferLayout layout;
  layout.chunks = chunks_;
  layout.inplace = placement_ == Placement::in_place;
  for (const Gpu& g : p_.gpus) {
    if (!layout.inplace) layout.input = std::max(layout.input, g.input_chunks);
    layout.output = std::max(layout.output, g.output_chunks);
  }
  if (const auto total = checked_add(inbox_base_, inbox_slots_); !total || *total > kMaxSlots)
    throw InputError(source_ + ": scratch and connection buffers pass " +
                     std::to_string(kMaxSlots) + " slots");
  layout.scratch = inbox_base_ + inbox_slots_;
  h.buffers = layout;

  std::uint64_t step_count = 0, threadblocks = 0;
  std::uint32_t channels = 0;
  for (const Gpu& g : p_.gpus) {
    threadblocks += g.threadblocks.size();
    for (const Threadblock& t : g.threadblocks) {
      step_count += t.steps.size();
      channels = std::max(channels, t.channel + 1);
    }
  }
  for (const auto& events : by_level) {
    Phase phase("level " + std::to_string(s.phases.size()));
    std::vector<OpOrigin> origins;
    for (std::uint32_t e : events) {
      const Event& ev = events_[e];
      if (ev.kind == EventKind::nop) continue;
      if (ev.outside) continue;  // the op moves nothing (verify/msccl_execution.hpp says so)
      const Access a = access(e);
      phase.add(BufferOp{a.read_gpu, a.write_gpu, *a.read, *a.write, a.count});
      if (ev.kind == EventKind::send && ev.partner != kNone)
        origins.push_back({ref(ev), ref(events_[ev.partner])});
      else
        origins.push_back({ref(ev), ref(ev)});
    }
    if (phase.ops().empty()) continue;  // only nops, or only faulty ops: no data moves
    s.phases.push_back(std::move(phase));
    imported.ops.push_back(std::move(origins));
  }
  imported.format = "msccl";
  imported.summary = std::to_string(step_count) + (step_count == 1 ? " step in " : " steps in ") +
                     std::to_string(threadblocks) + " threadblocks on " + std::to_string(p_.ngpus) +
                     " gpus, " + std::to_string(channels) +
                     (channels == 1 ? " channel" : " channels") + ", " +
                     (placement_ == Placement::in_place ? "in place" : "out of place");
  imported.faults = std::move(faults);
  h.imported = std::move(imported);
  if (const auto problem = layout_problem(*h.buffers, collective_, p_.ngpus))
    throw InputError(source_ + ": buffers: " + *problem);
  return s;
}

}  // namespace phasecheck::msccl
