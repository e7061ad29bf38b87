#include "core/msccl.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "core/error.hpp"
#include "core/happens_before.hpp"
#include "core/limits.hpp"

namespace phasecheck {

std::string to_string(const StepRef& s) {
  return "gpu " + std::to_string(s.gpu) + " tb " + std::to_string(s.threadblock) + " step " +
         std::to_string(s.step);
}

std::string to_string(const OpOrigin& o) {
  if (o.sender == o.receiver) return to_string(o.sender);
  return to_string(o.sender) + " -> " + to_string(o.receiver);
}

}  // namespace phasecheck

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

Placement default_placement(const Program& p) {
  const bool in = p.inplace.value_or(false);
  const bool out = p.outofplace.value_or(!in);
  return (in && !out) ? Placement::in_place : Placement::out_of_place;
}

namespace {

/// One thing a threadblock does: a step is one event, a recv-copy-send two (receive, then send).
enum class EventKind : std::uint8_t { send, receive, copy, nop };

struct Event {
  std::uint32_t gpu = 0;
  std::uint32_t tb = 0;     // index in gpus[gpu].threadblocks
  std::uint32_t step = 0;   // index in the threadblock's steps
  std::uint32_t local = 0;  // position among the threadblock's events
  EventKind kind = EventKind::nop;
  bool blocked = false;  // can never run: unmatched, or waits for a step that never signals
  bool outside = false;  // names a slot beyond its gpu's declared buffers: moves nothing
  static constexpr std::uint32_t kNone = ~0u;
  std::uint32_t partner = kNone;  // the receive a send meets, the send a receive meets
  std::uint32_t inbox = 0;        // send/receive: the first inbox slot of its connection
};

enum class EdgeKind : std::uint8_t { order, depends, data, buffer };

struct Edge {
  std::uint32_t from = 0, to = 0;
  EdgeKind kind = EdgeKind::order;
};

class Lowering {
 public:
  Lowering(const Program& p, std::string_view source, Placement placement)
      : p_(p), source_(source), placement_(placement) {}

  Schedule run();

 private:
  const Threadblock& tb(const Event& e) const { return p_.gpus[e.gpu].threadblocks[e.tb]; }
  const Step& step(const Event& e) const { return tb(e).steps[e.step]; }
  StepRef ref(const Event& e) const { return {e.gpu, tb(e).id, step(e).index}; }
  std::string name(std::uint32_t e) const { return to_string(ref(events_[e])); }
  std::string describe(std::uint32_t e) const;
  void fault(std::string kind, std::string explanation, std::vector<StepRef> steps,
             std::optional<std::size_t> phase = std::nullopt) {
    imported_.faults.push_back({std::move(kind), std::move(explanation), std::move(steps), phase});
  }

  void charge_steps();
  void build_events();
  void check_buffers();
  void match();
  void depend();
  void layer();
  void report_stuck();
  void check_races();
  /// The slot `s` of gpu g as the lowered program names it (in place: input -> output[g*c + k]).
  Slot local_slot(std::uint32_t g, Slot s) const;
  /// Whether `count` slots from `s` lie inside gpu g's declared buffers.
  bool inside(std::uint32_t g, Slot s, std::uint32_t count) const;
  /// The first declared slot event e names whose chunks do not all lie in its gpu's buffers.
  std::optional<Slot> outside_slot(std::uint32_t e) const;
  /// The slots an event reads and writes, as the lowered program names them.
  struct Access {
    std::optional<Slot> read, write;
    std::uint32_t read_gpu = 0, write_gpu = 0, count = 0;
  };
  Access access(std::uint32_t e) const;
  Slot inbox(const Event& e) const { return {Buffer::scratch, inbox_base_ + e.inbox}; }
  Schedule emit();

  const Program& p_;
  std::string source_;
  Placement placement_;
  Collective collective_ = Collective::alltoall;
  std::uint32_t chunks_ = 1;
  Imported imported_;

  std::vector<Event> events_;
  // Per gpu and threadblock index: the first event of each step (and one past the last).
  std::vector<std::vector<std::vector<std::uint32_t>>> step_events_;
  std::vector<Edge> edges_;
  std::vector<std::uint32_t> level_;  // per event; kUnreached for events that never run
  std::vector<std::uint32_t> order_;  // events in the order they were layered
  static constexpr std::uint32_t kUnreached = ~0u;
  // Inboxes: scratch slots after every gpu's declared ones, a region per incoming connection.
  std::uint32_t inbox_base_ = 0;
  std::uint32_t inbox_slots_ = 0;  // the most any gpu needs
  // Bytes charged to the memory limit so far (core/limits.hpp).
  std::uint64_t charged_ = 0;
};

/// What the lowering keeps per step at most, the race check's clocks and slots aside: two events
/// (a recv-copy-send is two) of 32 bytes, five edges of 12 (order, dependency, data, buffer)
/// with a vector's slack, the layering's and the deadlock search's arrays and lists, and the race
/// check's threads, positions and edges between threadblocks.
constexpr std::uint64_t kBytesPerStep = 512;
/// The race check's state per chunk a step touches: a hash map entry, the slot's epochs and a
/// read since the slot's last write.
constexpr std::uint64_t kBytesPerAccess = 64;

Slot Lowering::local_slot(std::uint32_t g, Slot s) const {
  if (placement_ == Placement::in_place && s.buffer == Buffer::input)
    return {Buffer::output, g * chunks_ + s.index};
  return s;
}

bool Lowering::inside(std::uint32_t g, Slot s, std::uint32_t count) const {
  const Gpu& gpu = p_.gpus[g];
  const std::uint64_t size = s.buffer == Buffer::input    ? gpu.input_chunks
                             : s.buffer == Buffer::output ? gpu.output_chunks
                                                          : gpu.scratch_chunks;
  return std::uint64_t{s.index} + count <= size;
}

std::optional<Slot> Lowering::outside_slot(std::uint32_t e) const {
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

void Lowering::check_buffers() {
  // Before anything is sized by a step's count: a step beyond its buffers moves nothing (emit
  // reports it), so neither a connection's buffer nor the race check's state grows with it.
  for (std::uint32_t e = 0; e < events_.size(); ++e) events_[e].outside = outside_slot(e).has_value();
}

void Lowering::charge_steps() {
  std::uint64_t steps = 0;
  for (const Gpu& g : p_.gpus)
    for (const Threadblock& t : g.threadblocks) steps += t.steps.size();
  charged_ = checked_mul(steps, kBytesPerStep).value_or(~std::uint64_t{0});
  check_memory(charged_, source_ + ": the execution model of " + std::to_string(steps) +
                             " steps (" + std::to_string(kBytesPerStep) + " bytes a step)");
}

void Lowering::build_events() {
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

void Lowering::match() {
  // Connection (from, to, channel): the sends of `from`'s threadblock, the receives of `to`'s.
  struct Connection {
    std::vector<std::uint32_t> sends, receives;
    std::int64_t sender_tb = -1, receiver_tb = -1;  // event.tb of the first threadblock seen
  };
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, Connection> connections;
  std::set<std::tuple<std::uint32_t, std::uint32_t, bool>> reported;  // (gpu, tb, send)
  for (std::uint32_t e = 0; e < events_.size(); ++e) {
    const Event& ev = events_[e];
    if (ev.kind != EventKind::send && ev.kind != EventKind::receive) continue;
    const Threadblock& block = tb(ev);
    const bool send = ev.kind == EventKind::send;
    const auto peer = static_cast<std::uint32_t>(send ? block.send : block.recv);
    Connection& c = connections[send ? std::tuple{ev.gpu, peer, block.channel}
                                     : std::tuple{peer, ev.gpu, block.channel}];
    std::int64_t& owner = send ? c.sender_tb : c.receiver_tb;
    if (owner < 0) {
      owner = ev.tb;
    } else if (owner != ev.tb && reported.insert({ev.gpu, ev.tb, send}).second) {
      const Threadblock& first = p_.gpus[ev.gpu].threadblocks[static_cast<std::size_t>(owner)];
      fault("shared connection",
            "gpu " + std::to_string(ev.gpu) + ": threadblocks " + std::to_string(first.id) +
                " and " + std::to_string(block.id) + " both " +
                (send ? "send to gpu " : "receive from gpu ") + std::to_string(peer) +
                " on channel " + std::to_string(block.channel) +
                "; they share one connection, so which of their messages meets which one on "
                "the other side depends on timing (phasecheck pairs them in threadblock order)",
            {StepRef{ev.gpu, first.id, 0}, ref(ev)});
    }
    (send ? c.sends : c.receives).push_back(e);
  }
  std::vector<std::uint32_t> inbox_used(p_.gpus.size(), 0);
  for (auto& [key, c] : connections) {
    const auto [from, to, channel] = key;
    // The connection's buffer: one message, as wide as its widest that moves data.
    std::uint32_t width = 0, widest = Event::kNone;
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

    const std::size_t matched = std::min(c.sends.size(), c.receives.size());
    for (std::size_t k = 0; k < matched; ++k) {
      const std::uint32_t s = c.sends[k], r = c.receives[k];
      events_[s].partner = r;
      events_[r].partner = s;
      edges_.push_back({s, r, EdgeKind::data});
      // The connection buffers one message: send k waits until receive k - 1 took its data.
      if (k > 0) edges_.push_back({c.receives[k - 1], s, EdgeKind::buffer});
      const Step &a = step(events_[s]), &b = step(events_[r]);
      if (a.count != b.count)
        fault("count mismatch",
              name(s) + " sends " + std::to_string(a.count) + " chunks to gpu " +
                  std::to_string(to) + " on channel " + std::to_string(channel) +
                  "; that send (number " + std::to_string(k + 1) + " there) meets " + name(r) +
                  ", which receives " + std::to_string(b.count),
              {ref(events_[s]), ref(events_[r])});
    }
    const auto unmatched = [&](const std::vector<std::uint32_t>& list, bool send) {
      if (list.size() <= matched) return;
      const std::uint32_t e = list[matched];
      fault(send ? "unmatched send" : "unmatched receive",
            name(e) + (send ? " is send " : " is receive ") + std::to_string(matched + 1) +
                (send ? " from gpu " + std::to_string(from) + " to gpu " + std::to_string(to)
                      : " of gpu " + std::to_string(to) + " from gpu " + std::to_string(from)) +
                " on channel " + std::to_string(channel) + ", but gpu " +
                std::to_string(send ? to : from) + (send ? " receives only " : " sends only ") +
                std::to_string(matched) + (send ? " from gpu " : " to gpu ") +
                std::to_string(send ? from : to) + " there" +
                (list.size() > matched + 1
                     ? " (" + std::to_string(list.size() - matched - 1) + " more after it)"
                     : std::string()) +
                ": it waits forever, and so does everything after it",
            {ref(events_[e])});
      for (std::size_t k = matched; k < list.size(); ++k) events_[list[k]].blocked = true;
    };
    unmatched(c.sends, true);
    unmatched(c.receives, false);
  }
}

void Lowering::depend() {
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
        const StepRef waited{g, other.id, static_cast<std::uint32_t>(st.depend_step)};
        if (!signal) {
          events_[waiter].blocked = true;
          fault("never released",
                to_string(StepRef{g, block.id, st.index}) + " waits for " + to_string(waited) +
                    ", but neither that step nor a later one of threadblock " +
                    std::to_string(other.id) +
                    " signals (hasdep=\"1\"; a nop never signals): it waits forever",
                {StepRef{g, block.id, st.index}, waited});
          continue;
        }
        edges_.push_back({step_events_[g][dt][*signal + 1] - 1, waiter, EdgeKind::depends});
      }
    }
  }
}

void Lowering::layer() {
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
}

std::string Lowering::describe(std::uint32_t e) const {
  const Event& a = events_[e];
  switch (a.kind) {
    case EventKind::send:
      return name(e) + " (send to gpu " + std::to_string(tb(a).send) + ")";
    case EventKind::receive:
      return name(e) + " (receive from gpu " + std::to_string(tb(a).recv) + ")";
    case EventKind::copy:
      return name(e) + " (copy)";
    case EventKind::nop:
      return name(e) + " (nop)";
  }
  return name(e);
}

void Lowering::report_stuck() {
  const auto n = static_cast<std::uint32_t>(events_.size());
  std::uint32_t stuck = 0;
  for (std::uint32_t i = 0; i < n; ++i) stuck += level_[i] == kUnreached;
  if (stuck == 0) return;
  // Peel the stuck events that only wait on peeled ones; what is left lies on or behind a cycle
  // of waits: a deadlock.
  std::vector<std::uint32_t> indegree(n, 0);
  std::vector<std::vector<std::uint32_t>> preds(n), succ(n);
  for (std::uint32_t i = 0; i < edges_.size(); ++i) {
    const Edge& e = edges_[i];
    if (level_[e.from] != kUnreached || level_[e.to] != kUnreached) continue;
    ++indegree[e.to];
    preds[e.to].push_back(i);
    succ[e.from].push_back(e.to);
  }
  std::vector<std::uint32_t> ready;
  for (std::uint32_t i = 0; i < n; ++i)
    if (level_[i] == kUnreached && indegree[i] == 0) ready.push_back(i);
  std::vector<bool> peeled(n, false);
  for (std::size_t h = 0; h < ready.size(); ++h) {
    peeled[ready[h]] = true;
    for (std::uint32_t v : succ[ready[h]])
      if (--indegree[v] == 0) ready.push_back(v);
  }
  std::optional<std::uint32_t> start;
  for (std::uint32_t i = 0; i < n && !start; ++i)
    if (level_[i] == kUnreached && !peeled[i]) start = i;
  const std::string never =
      std::to_string(stuck) + (stuck == 1 ? " step never runs" : " steps never run");
  if (!start) {
    // Every stuck step waits, directly or not, on a fault already reported.
    if (!imported_.faults.empty()) imported_.faults.front().explanation += " (" + never + ")";
    return;
  }
  // Walk back along unpeeled predecessors until an event repeats: that is a cycle.
  std::vector<std::uint32_t> path, seen_at(n, ~0u);
  std::vector<EdgeKind> why;
  std::uint32_t at = *start;
  while (seen_at[at] == ~0u) {
    seen_at[at] = static_cast<std::uint32_t>(path.size());
    path.push_back(at);
    for (std::uint32_t i : preds[at])
      if (!peeled[edges_[i].from]) {
        why.push_back(edges_[i].kind);
        at = edges_[i].from;
        break;
      }
  }
  const std::vector<std::uint32_t> cycle(path.begin() + seen_at[at], path.end());
  const std::vector<EdgeKind> reasons(why.begin() + seen_at[at], why.end());
  std::string text = "these steps wait for each other in a cycle";
  std::vector<StepRef> steps;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    const std::uint32_t waiter = cycle[i], waited = cycle[(i + 1) % cycle.size()];
    const char* reason = reasons[i] == EdgeKind::order     ? " (earlier in its threadblock)"
                         : reasons[i] == EdgeKind::depends ? " (its depid/deps)"
                         : reasons[i] == EdgeKind::data    ? " (the send it receives)"
                                                           : " (the receive that empties the "
                                                             "connection's buffer)";
    text += std::string(i == 0 ? ": " : "; ") + describe(waiter) + " waits for " +
            describe(waited) + reason;
    steps.push_back(ref(events_[waiter]));
  }
  text += " (" + never + "; a connection buffers one message)";
  fault("deadlock", text, std::move(steps));
}

Lowering::Access Lowering::access(std::uint32_t e) const {
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
      a.write_gpu = static_cast<std::uint32_t>(tb(ev).send);
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

void Lowering::check_races() {
  // Threads are threadblocks, numbered across gpus; the engine orders events whatever gpus a
  // chain of dependencies passes through.
  std::vector<std::uint32_t> base(p_.gpus.size() + 1, 0);
  for (std::size_t g = 0; g < p_.gpus.size(); ++g)
    base[g + 1] = base[g] + static_cast<std::uint32_t>(p_.gpus[g].threadblocks.size());
  // Only the slots a gpu's own steps touch: a connection's buffer is written by the sending gpu
  // and read by the receiving one in an order the graph fixes (send k, receive k, send k + 1),
  // unless two threadblocks share the connection, which is a fault of its own.
  const auto declared = [&](const std::optional<Slot>& s) {
    return s && !(s->buffer == Buffer::scratch && s->index >= inbox_base_);
  };
  // The state per chunk, charged step by step before any of it is built: a step's cnt is a
  // number in the file, bounded here only by the gpu's declared buffers.
  std::uint64_t accesses = 0;
  for (std::uint32_t e = 0; e < events_.size(); ++e) {
    if (level_[e] == kUnreached || events_[e].outside) continue;
    const Access a = access(e);
    accesses += std::uint64_t{a.count} * (declared(a.read) + declared(a.write));
    const std::uint64_t total = charged_ + accesses * kBytesPerAccess;
    if (total > limits().max_memory_bytes)
      check_memory(total, source_ + ": the race check up to " + name(e) + " (cnt=\"" +
                              std::to_string(a.count) + "\"; " + std::to_string(kBytesPerAccess) +
                              " bytes per chunk a step reads or writes)");
  }
  charged_ += accesses * kBytesPerAccess;

  const auto n = static_cast<std::uint32_t>(events_.size());
  std::vector<std::uint32_t> thread(n), position(n);
  for (std::uint32_t e = 0; e < n; ++e) {
    thread[e] = base[events_[e].gpu] + events_[e].tb;
    position[e] = events_[e].local;
  }
  std::vector<HappensBefore::Arc> arcs;
  for (const Edge& x : edges_)
    if (thread[x.from] != thread[x.to]) arcs.push_back({x.from, x.to});
  HappensBefore hb(thread, position, arcs, base.back(), source_ + ": the race check");

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
  const std::size_t first_fault = imported_.faults.size();
  const auto race = [&](std::uint32_t g, Slot s, std::uint32_t earlier, bool earlier_writes,
                        std::uint32_t later, bool later_writes) {
    if (races++ > 0) return;
    const auto act = [&](std::uint32_t e, bool writes) {
      return describe(e) + (writes ? " writes it" : " reads it");
    };
    fault("race",
          "gpu " + std::to_string(g) + ": " + act(earlier, earlier_writes) + " and " +
              act(later, later_writes) + " touch " + to_string(s) +
              ", and no chain of dependencies orders them: which runs first depends on timing",
          {ref(events_[earlier]), ref(events_[later])});
  };
  // A topological order of the graph: every event after all it waits for.
  for (std::uint32_t e : order_) {
    hb.advance(e);
    if (events_[e].outside) continue;
    const Access a = access(e);
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
    imported_.faults[first_fault].explanation +=
        " (" + std::to_string(races - 1) +
        (races == 2 ? " more racing access)" : " more racing accesses)");
}

Schedule Lowering::emit() {
  std::uint32_t levels = 0;
  for (std::uint32_t e = 0; e < events_.size(); ++e)
    if (level_[e] != kUnreached) levels = std::max(levels, level_[e] + 1);
  std::vector<std::vector<std::uint32_t>> by_level(levels);
  for (std::uint32_t e = 0; e < events_.size(); ++e)
    if (level_[e] != kUnreached) by_level[level_[e]].push_back(e);

  Schedule s;
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
      const Step& st = step(ev);
      if (ev.outside) {
        const Slot d = *outside_slot(e);
        const std::uint32_t size = d.buffer == Buffer::input    ? p_.gpus[ev.gpu].input_chunks
                                   : d.buffer == Buffer::output ? p_.gpus[ev.gpu].output_chunks
                                                                 : p_.gpus[ev.gpu].scratch_chunks;
        fault("outside buffer",
              describe(e) + " names " + to_string(d) +
                  (st.count > 1 ? " and the " + std::to_string(st.count - 1) + " slots after it"
                                : std::string()) +
                  ", beyond the " + std::string(to_string(d.buffer)) + " buffer of gpu " +
                  std::to_string(ev.gpu) + " (" + std::string(1, to_string(d.buffer)[0]) +
                  "_chunks=\"" + std::to_string(size) + "\")",
              {ref(ev)}, s.phases.size());
        continue;  // the op moves nothing
      }
      const Access a = access(e);
      phase.add(BufferOp{a.read_gpu, a.write_gpu, *a.read, *a.write, a.count});
      if (ev.kind == EventKind::send && ev.partner != Event::kNone)
        origins.push_back({ref(ev), ref(events_[ev.partner])});
      else
        origins.push_back({ref(ev), ref(ev)});
    }
    if (phase.ops().empty()) continue;  // only nops, or only faulty ops: no data moves
    s.phases.push_back(std::move(phase));
    imported_.ops.push_back(std::move(origins));
  }
  imported_.format = "msccl";
  imported_.summary = std::to_string(step_count) + (step_count == 1 ? " step in " : " steps in ") +
                      std::to_string(threadblocks) + " threadblocks on " +
                      std::to_string(p_.ngpus) + " gpus, " + std::to_string(channels) +
                      (channels == 1 ? " channel" : " channels") + ", " +
                      (placement_ == Placement::in_place ? "in place" : "out of place");
  h.imported = std::move(imported_);
  return s;
}

Schedule Lowering::run() {
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
  report_stuck();
  check_races();
  Schedule s = emit();
  if (const auto problem = layout_problem(*s.header.buffers, collective_, p_.ngpus))
    throw InputError(source_ + ": buffers: " + *problem);
  return s;
}

}  // namespace

Schedule lower(const Program& p, std::string_view source, std::optional<Placement> placement) {
  return Lowering(p, source, placement.value_or(default_placement(p))).run();
}

}  // namespace phasecheck::msccl
