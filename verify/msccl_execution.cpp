#include "verify/msccl_execution.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"
#include "core/happens_before.hpp"
#include "core/limits.hpp"
#include "verify/wait_cycle.hpp"

namespace phasecheck::verify {

namespace {

using msccl::Execution;
using msccl::Gpu;
using msccl::Step;
using msccl::Threadblock;
using EdgeKind = Execution::EdgeKind;
using EventKind = Execution::EventKind;
using Edge = Execution::Edge;
using Event = Execution::Event;

/// The race check's state per chunk a step touches: a hash map entry, the slot's epochs and a
/// read since the slot's last write.
constexpr std::uint64_t kBytesPerAccess = 64;

std::string_view why_it_waits(EdgeKind k) {
  switch (k) {
    case EdgeKind::order:
      return " (earlier in its threadblock)";
    case EdgeKind::depends:
      return " (its depid/deps)";
    case EdgeKind::data:
      return " (the send it receives)";
    case EdgeKind::buffer:
      return " (the receive that empties the connection's buffer)";
  }
  return "";  // not an EdgeKind
}

class Checks {
 public:
  explicit Checks(const Execution& x) : x_(x) {}
  std::vector<ExecutionFault> run() {
    shared_connections();
    matching();
    releases();
    deadlock();
    races();
    outside_buffers();
    return std::move(faults_);
  }

 private:
  void fault(ExecutionFaultKind kind, std::string explanation, std::vector<StepRef> steps,
             std::optional<std::size_t> phase = std::nullopt) {
    faults_.push_back({kind, std::move(explanation), std::move(steps), phase});
  }
  void shared_connections();
  void matching();
  void releases();
  void deadlock();
  void races();
  void outside_buffers();

  const Execution& x_;
  std::vector<ExecutionFault> faults_;
};

void Checks::shared_connections() {
  // A connection has one threadblock on each side. A threadblock has one send peer and one
  // receive peer on one channel, so its sends (receives) lie on one connection, next to each
  // other in its list (events are numbered gpu by gpu, threadblock by threadblock).
  const auto& events = x_.events();
  struct Found {
    std::uint32_t event = 0, first = 0;  // the first event of the intruder, and of the owner
    bool send = false;
  };
  std::vector<Found> found;
  for (const Execution::Connection& c : x_.connections())
    for (const bool send : {true, false}) {
      const std::vector<std::uint32_t>& list = send ? c.sends : c.receives;
      for (std::size_t k = 1; k < list.size(); ++k)
        if (events[list[k]].tb != events[list[0]].tb &&
            events[list[k]].tb != events[list[k - 1]].tb)
          found.push_back({list[k], list[0], send});
    }
  // In the order of the events, as the runtime would meet them.
  std::sort(found.begin(), found.end(),
            [](const Found& a, const Found& b) { return a.event < b.event; });
  for (const Found& f : found) {
    const Event& ev = events[f.event];
    const Threadblock& block = x_.threadblock(ev);
    const Threadblock& first = x_.threadblock(events[f.first]);
    const std::int32_t peer = f.send ? block.send : block.recv;
    fault(ExecutionFaultKind::shared_connection,
          "gpu " + std::to_string(ev.gpu) + ": threadblocks " + std::to_string(first.id) + " and " +
              std::to_string(block.id) + " both " +
              (f.send ? "send to gpu " : "receive from gpu ") + std::to_string(peer) +
              " on channel " + std::to_string(block.channel) +
              "; they share one connection, so which of their messages meets which one on "
              "the other side depends on timing (phasecheck pairs them in threadblock order)",
          {StepRef{ev.gpu, first.id, 0}, x_.ref(ev)});
  }
}

void Checks::matching() {
  const auto& events = x_.events();
  for (const Execution::Connection& c : x_.connections()) {
    const std::size_t matched = std::min(c.sends.size(), c.receives.size());
    for (std::size_t k = 0; k < matched; ++k) {
      const std::uint32_t s = c.sends[k], r = c.receives[k];
      const Step &a = x_.step(events[s]), &b = x_.step(events[r]);
      if (a.count != b.count)
        fault(ExecutionFaultKind::count_mismatch,
              x_.name(s) + " sends " + std::to_string(a.count) + " chunks to gpu " +
                  std::to_string(c.to) + " on channel " + std::to_string(c.channel) +
                  "; that send (number " + std::to_string(k + 1) + " there) meets " + x_.name(r) +
                  ", which receives " + std::to_string(b.count),
              {x_.ref(events[s]), x_.ref(events[r])});
    }
    const auto unmatched = [&](const std::vector<std::uint32_t>& list, bool send) {
      if (list.size() <= matched) return;
      const std::uint32_t e = list[matched];
      const std::uint32_t from = c.from, to = c.to;
      fault(send ? ExecutionFaultKind::unmatched_send : ExecutionFaultKind::unmatched_receive,
            x_.name(e) + (send ? " is send " : " is receive ") + std::to_string(matched + 1) +
                (send ? " from gpu " + std::to_string(from) + " to gpu " + std::to_string(to)
                      : " of gpu " + std::to_string(to) + " from gpu " + std::to_string(from)) +
                " on channel " + std::to_string(c.channel) + ", but gpu " +
                std::to_string(send ? to : from) + (send ? " receives only " : " sends only ") +
                std::to_string(matched) + (send ? " from gpu " : " to gpu ") +
                std::to_string(send ? from : to) + " there" +
                (list.size() > matched + 1
                     ? " (" + std::to_string(list.size() - matched - 1) + " more after it)"
                     : std::string()) +
                ": it waits forever, and so does everything after it",
            {x_.ref(events[e])});
    };
    unmatched(c.sends, true);
    unmatched(c.receives, false);
  }
}

void Checks::releases() {
  for (const Execution::Unreleased& u : x_.unreleased()) {
    const StepRef waiter = x_.ref(x_.events()[u.waiter]);
    fault(ExecutionFaultKind::never_released,
          to_string(waiter) + " waits for " + to_string(u.waited) +
              ", but neither that step nor a later one of threadblock " +
              std::to_string(u.waited.threadblock) +
              " signals (hasdep=\"1\"; a nop never signals): it waits forever",
          {waiter, u.waited});
  }
}

void Checks::deadlock() {
  const auto n = static_cast<std::uint32_t>(x_.events().size());
  std::uint32_t stuck = 0;
  for (std::uint32_t i = 0; i < n; ++i) stuck += x_.level(i) == Execution::kUnreached;
  if (stuck == 0) return;
  const auto cycle = wait_cycle(
      n, x_.edges(), [&](std::uint32_t e) { return x_.level(e) == Execution::kUnreached; });
  const std::string never =
      std::to_string(stuck) + (stuck == 1 ? " step never runs" : " steps never run");
  if (!cycle) {
    // Every stuck step waits, directly or not, on a fault already reported.
    if (!faults_.empty()) faults_.front().explanation += " (" + never + ")";
    return;
  }
  std::string text = "these steps wait for each other in a cycle";
  std::vector<StepRef> steps;
  for (std::size_t i = 0; i < cycle->size(); ++i) {
    const std::uint32_t waiter = (*cycle)[i].event,
                        waited = (*cycle)[(i + 1) % cycle->size()].event;
    const std::string_view reason = why_it_waits(x_.edges()[(*cycle)[i].edge].kind);
    text += std::string(i == 0 ? ": " : "; ") + x_.describe(waiter) + " waits for " +
            x_.describe(waited) + std::string(reason);
    steps.push_back(x_.ref(x_.events()[waiter]));
  }
  text += " (" + never + "; a connection buffers one message)";
  fault(ExecutionFaultKind::deadlock, text, std::move(steps));
}

void Checks::races() {
  // Threads are threadblocks, numbered across gpus; the engine orders events whatever gpus a
  // chain of dependencies passes through.
  std::vector<std::uint32_t> base(x_.program().gpus.size() + 1, 0);
  for (std::size_t g = 0; g < x_.program().gpus.size(); ++g)
    base[g + 1] = base[g] + static_cast<std::uint32_t>(x_.program().gpus[g].threadblocks.size());
  // Only the slots a gpu's own steps touch: a connection's buffer is written by the sending gpu
  // and read by the receiving one in an order the graph fixes (send k, receive k, send k + 1),
  // unless two threadblocks share the connection, which is a fault of its own.
  const auto declared = [&](const std::optional<Slot>& s) { return x_.declared(s); };
  // The state per chunk, charged step by step before any of it is built: a step's cnt is a
  // number in the file, bounded here only by the gpu's declared buffers.
  std::uint64_t accesses = 0;
  for (std::uint32_t e = 0; e < x_.events().size(); ++e) {
    if (x_.level(e) == Execution::kUnreached || x_.events()[e].outside) continue;
    const Execution::Access a = x_.access(e);
    accesses += std::uint64_t{a.count} * (declared(a.read) + declared(a.write));
    const std::uint64_t total = x_.charged_bytes() + accesses * kBytesPerAccess;
    if (total > limits().max_memory_bytes)
      check_memory(total, x_.source() + ": the race check up to " + x_.name(e) + " (cnt=\"" +
                              std::to_string(a.count) + "\"; " + std::to_string(kBytesPerAccess) +
                              " bytes per chunk a step reads or writes)");
  }

  const auto n = static_cast<std::uint32_t>(x_.events().size());
  std::vector<std::uint32_t> thread(n), position(n);
  for (std::uint32_t e = 0; e < n; ++e) {
    thread[e] = base[x_.events()[e].gpu] + x_.events()[e].tb;
    position[e] = x_.events()[e].local;
  }
  std::vector<HappensBefore::Arc> arcs;
  for (const Edge& x : x_.edges())
    if (thread[x.from] != thread[x.to]) arcs.push_back({x.from, x.to});
  HappensBefore hb(thread, position, arcs, base.back(), x_.source() + ": the race check");

  // FastTrack's shadow state per chunk: the last write, and the reads since it. An access is
  // compared with those only: what came before the last write is ordered before it, or raced
  // with it and was reported then.
  constexpr std::uint32_t kNone = ~0u;
  struct Chunk {
    std::uint32_t write = kNone;  // the event that wrote it last
    std::uint32_t reads = kNone;  // the latest read since, a list through Read::next
  };
  struct Read {
    std::uint32_t event, next;
  };
  std::unordered_map<std::uint64_t, std::uint32_t> index;  // (gpu, buffer, slot) -> chunks
  std::vector<Chunk> chunks;
  std::vector<Read> reads;
  index.reserve(accesses);
  chunks.reserve(accesses);
  reads.reserve(accesses);
  const auto chunk = [&](std::uint32_t g, Slot s) -> Chunk& {
    const std::uint64_t key = (std::uint64_t{g} << 34) | (std::uint64_t(s.buffer) << 32) | s.index;
    const auto [it, fresh] = index.try_emplace(key, static_cast<std::uint32_t>(chunks.size()));
    if (fresh) chunks.emplace_back();
    return chunks[it->second];
  };

  std::uint64_t races = 0;
  const std::size_t first_fault = faults_.size();
  const auto race = [&](std::uint32_t g, Slot s, std::uint32_t earlier, bool earlier_writes,
                        std::uint32_t later, bool later_writes) {
    if (races++ > 0) return;
    const auto act = [&](std::uint32_t e, bool writes) {
      return x_.describe(e) + (writes ? " writes it" : " reads it");
    };
    fault(ExecutionFaultKind::race,
          "gpu " + std::to_string(g) + ": " + act(earlier, earlier_writes) + " and " +
              act(later, later_writes) + " touch " + to_string(s) +
              ", and no chain of dependencies orders them: which runs first depends on timing",
          {x_.ref(x_.events()[earlier]), x_.ref(x_.events()[later])});
  };
  // A topological order of the graph: every event after all it waits for.
  for (std::uint32_t e : x_.order()) {
    hb.advance(e);
    if (x_.events()[e].outside) continue;
    const Execution::Access a = x_.access(e);
    // Reads happen at the phase's start, writes at its end: an event reads before it writes.
    if (declared(a.read))
      for (std::uint32_t k = 0; k < a.count; ++k) {
        const Slot s{a.read->buffer, a.read->index + k};
        Chunk& c = chunk(a.read_gpu, s);
        if (c.write != kNone && c.write != e && !hb.ordered(c.write))
          race(a.read_gpu, s, c.write, true, e, false);
        reads.push_back({e, c.reads});
        c.reads = static_cast<std::uint32_t>(reads.size() - 1);
      }
    if (declared(a.write))
      for (std::uint32_t k = 0; k < a.count; ++k) {
        const Slot s{a.write->buffer, a.write->index + k};
        Chunk& c = chunk(a.write_gpu, s);
        std::optional<std::pair<std::uint32_t, bool>> with;  // the first access it races with
        if (c.write != kNone && c.write != e && !hb.ordered(c.write)) with = {c.write, true};
        for (std::uint32_t r = c.reads; r != kNone && !with; r = reads[r].next)
          if (reads[r].event != e && !hb.ordered(reads[r].event)) with = {reads[r].event, false};
        if (with) race(a.write_gpu, s, with->first, with->second, e, true);
        c.write = e;
        c.reads = kNone;
      }
  }
  if (races > 1)
    faults_[first_fault].explanation +=
        " (" + std::to_string(races - 1) +
        (races == 2 ? " more racing access)" : " more racing accesses)");
}

void Checks::outside_buffers() {
  // Rare: gathered, then put in the order of the phases they land in (events in index order
  // within a layer).
  const auto& events = x_.events();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> found;  // (layer, event)
  for (std::uint32_t e = 0; e < events.size(); ++e)
    if (events[e].outside && events[e].kind != EventKind::nop &&
        x_.level(e) != Execution::kUnreached)
      found.emplace_back(x_.level(e), e);
  std::sort(found.begin(), found.end());
  for (const auto& [level, e] : found) {
    const Event& ev = events[e];
    const Step& st = x_.step(ev);
    const Slot d = *x_.outside_slot(e);
    const Gpu& gpu = x_.program().gpus[ev.gpu];
    const std::uint32_t size = msccl::declared_chunks(gpu, d.buffer);
    fault(ExecutionFaultKind::outside_buffer,
          x_.describe(e) + " names " + to_string(d) +
              (st.count > 1 ? " and the " + std::to_string(st.count - 1) + " slots after it"
                            : std::string()) +
              ", beyond the " + std::string(to_string(d.buffer)) + " buffer of gpu " +
              std::to_string(ev.gpu) + " (" + std::string(1, to_string(d.buffer)[0]) +
              "_chunks=\"" + std::to_string(size) + "\")",
          {x_.ref(ev)}, x_.phase_of_level(level));
  }
}

}  // namespace

std::vector<ExecutionFault> execution_faults(const msccl::Execution& execution) {
  return Checks(execution).run();
}

}  // namespace phasecheck::verify

namespace phasecheck::msccl {

Schedule lower(const Program& p, std::string_view source, std::optional<Placement> placement) {
  const Execution execution(p, source, placement.value_or(default_placement(p)));
  return execution.emit(verify::execution_faults(execution));
}

}  // namespace phasecheck::msccl
