#include "verify/mscclpp_execution.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/error.hpp"
#include "core/happens_before.hpp"
#include "core/limits.hpp"
#include "core/mscclpp_execution.hpp"
#include "verify/wait_cycle.hpp"

namespace phasecheck::mscclpp {
namespace {

/// Bytes per cell access of the race check's shadow state, charged before it is built.
constexpr std::uint64_t kBytesPerAccess = 64;

using Event = Execution::Event;
using EventKind = Execution::EventKind;

/// The checkers of docs/mscclpp.md, in the order their faults are reported.
class Checks {
 public:
  explicit Checks(const Execution& x) : x_(x) {}

  std::vector<ExecutionFault> run() {
    channel_faults(ExecutionFaultKind::shared_connection, x_.shared());
    never_released();
    channel_faults(ExecutionFaultKind::count_mismatch, x_.imbalances());
    deadlock();
    races();
    outside();
    return std::move(faults_);
  }

 private:
  void fault(ExecutionFaultKind kind, std::string text, std::vector<std::uint32_t> events,
             std::optional<std::size_t> phase = std::nullopt) {
    std::vector<StepRef> steps;
    for (std::uint32_t e : events)
      if (x_.events()[e].tb != Execution::kNone) steps.push_back(x_.ref(e));
    faults_.push_back({kind, std::move(text), std::move(steps), phase});
  }

  /// One fault per op: the calls are alike, so an op stuck in one call is usually stuck in each.
  void never_released() {
    std::vector<StepRef> seen;
    for (const Execution::Unreleased& u : x_.unreleased()) {
      const StepRef r = x_.ref(u.event);
      if (std::find(seen.begin(), seen.end(), r) != seen.end()) continue;
      seen.push_back(r);
      fault(ExecutionFaultKind::never_released, u.why, {u.event});
    }
  }

  /// A fault per channel pair of `pairs`, naming a signal and a wait of it when there are.
  void channel_faults(ExecutionFaultKind kind, const std::vector<Execution::Imbalance>& pairs) {
    for (const Execution::Imbalance& i : pairs) {
      std::vector<std::uint32_t> events;
      if (i.signal_event != Execution::kNone) events.push_back(i.signal_event);
      if (i.wait_event != Execution::kNone) events.push_back(i.wait_event);
      fault(kind, i.why, std::move(events));
    }
  }

  /// Events that never run and are not behind a fault already found lie on or behind a cycle.
  void deadlock() {
    const auto n = static_cast<std::uint32_t>(x_.events().size());
    std::uint32_t stuck = 0;
    for (std::uint32_t i = 0; i < n; ++i) stuck += x_.level(i) == Execution::kUnreached;
    if (stuck == 0) return;
    const auto cycle = verify::wait_cycle(
        n, x_.edges(), [&](std::uint32_t e) { return x_.level(e) == Execution::kUnreached; });
    const std::string never =
        std::to_string(stuck) + (stuck == 1 ? " event never runs" : " events never run");
    if (!cycle) {
      if (!faults_.empty()) faults_.front().explanation += " (" + never + ")";
      return;
    }
    std::string text = "these ops wait for each other in a cycle";
    std::vector<std::uint32_t> events;
    for (std::size_t i = 0; i < cycle->size(); ++i) {
      const std::uint32_t waiter = (*cycle)[i].event;
      const std::uint32_t waited = (*cycle)[(i + 1) % cycle->size()].event;
      // Consecutive events of one lane are one op after the other: name the waits across.
      if (x_.events()[waiter].lane == x_.events()[waited].lane) continue;
      text += std::string(events.empty() ? ": " : "; ") + x_.describe(waiter) + " waits for " +
              x_.describe(waited);
      events.push_back(waiter);
    }
    if (events.empty()) events.push_back(cycle->front().event);
    text += " (" + never + ")";
    fault(ExecutionFaultKind::deadlock, text, std::move(events));
  }

  void races() {
    const auto& events = x_.events();
    const auto& accesses = x_.accesses();
    std::uint64_t cells = 0;
    for (std::uint32_t e : x_.order()) {
      const Event& ev = events[e];
      for (std::uint32_t a = ev.accesses; a < ev.accesses + ev.access_count; ++a)
        cells += accesses[a].count;
      const std::uint64_t total = x_.charged_bytes() + cells * kBytesPerAccess;
      if (total > limits().max_memory_bytes)
        check_memory(total, x_.source() + ": the race check up to " + x_.describe(e) + " (" +
                                std::to_string(kBytesPerAccess) +
                                " bytes per cell an op reads or writes)");
    }
    const auto n = static_cast<std::uint32_t>(events.size());
    std::vector<std::uint32_t> thread(n), position(n);
    for (std::uint32_t e = 0; e < n; ++e) {
      thread[e] = events[e].lane;
      position[e] = events[e].position;
    }
    std::vector<HappensBefore::Arc> all, data;
    for (const Execution::Edge& x : x_.edges()) {
      if (thread[x.from] == thread[x.to]) continue;
      if (x.orders_execution) all.push_back({x.from, x.to});
      if (x.orders_data) data.push_back({x.from, x.to});
    }
    // Two engines: writes need a chain that orders data (a release and its acquire); a read
    // before a later write needs only a chain of execution, relaxed signals included.
    // Every lane of a gpu follows its kernel boundaries: anchors, so that the clocks after one do
    // not all grow to the size of the whole previous call.
    std::vector<std::uint32_t> anchors;
    for (std::uint32_t e = 0; e < n; ++e)
      if (events[e].kind == EventKind::boundary) anchors.push_back(e);
    // Both engines and the model's own charge count against one limit.
    const std::uint64_t base = x_.charged_bytes() + cells * kBytesPerAccess;
    HappensBefore any(thread, position, all, x_.lanes(), x_.source() + ": the race check", anchors,
                      nullptr, base);
    HappensBefore ordered_data(thread, position, data, x_.lanes(), x_.source() + ": the race check",
                               anchors, &any, base);
    any.share_limit_with(ordered_data);
    const auto ordered = [&](const HappensBefore& hb, std::uint32_t a, std::uint32_t e) {
      if (a == e) return true;
      // The threads of a block split two ops' bytes differently: without a nop between them
      // (the same epoch), two ops of the block lane are not ordered.
      if (events[a].lane == events[e].lane && x_.on_block_lane(e) &&
          events[a].epoch == events[e].epoch)
        return false;
      return hb.ordered(a);
    };

    constexpr std::uint32_t kNone = ~0u;
    struct Cell {
      std::uint32_t write = kNone;
      std::uint32_t reads = kNone;
      bool packet = false;  // the last write wrote packets
    };
    struct Read {
      std::uint32_t event, next;
    };
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    std::vector<Cell> state;
    std::vector<Read> reads;
    index.reserve(cells);
    const auto cell = [&](std::uint32_t g, Buffer b, std::uint32_t i) -> Cell& {
      const std::uint64_t key = (std::uint64_t{g} << 34) | (std::uint64_t(b) << 32) | i;
      const auto [it, fresh] = index.try_emplace(key, static_cast<std::uint32_t>(state.size()));
      if (fresh) state.emplace_back();
      return state[it->second];
    };

    std::uint64_t races = 0, stale_reads = 0;
    const std::size_t first = faults_.size();
    const auto race = [&](std::uint32_t g, Slot s, std::uint32_t earlier, bool earlier_writes,
                          std::uint32_t later, bool later_writes) {
      if (races++ > 0) return;
      const auto act = [&](std::uint32_t e, bool writes) {
        return x_.describe(e) + (writes ? " writes it" : " reads it");
      };
      const bool relaxed_only = (earlier_writes || later_writes) && ordered(any, earlier, later);
      fault(ExecutionFaultKind::race,
            "gpu " + std::to_string(g) + " " + to_string(s) + ": " + act(earlier, earlier_writes) +
                ", " + act(later, later_writes) +
                (relaxed_only ? ", and only a relaxed signal, or a channel or semaphore several "
                                "threadblocks share, orders them, which orders no data"
                              : ", and nothing orders them") +
                ": which comes first depends on timing",
            {earlier, later});
    };
    for (std::uint32_t e : x_.order()) {
      any.advance(e);
      ordered_data.advance(e);
      const Event& ev = events[e];
      for (std::uint32_t a = ev.accesses; a < ev.accesses + ev.access_count; ++a) {
        const Execution::Access& acc = accesses[a];
        for (std::uint32_t k = 0; k < acc.count; ++k) {
          const Slot s{acc.slot.buffer, acc.slot.index + k};
          Cell& c = cell(acc.gpu, s.buffer, s.index);
          if (!acc.write) {
            // After the first call, a read of a cell its own call never wrote reads what a
            // previous call left (the caller's writes between calls count as its call's).
            const bool stale = ev.call > 0 && ev.kind != EventKind::boundary &&
                               (c.write == kNone || events[c.write].call != ev.call);
            if (stale && stale_reads++ == 0) {
              const std::string what = c.write == kNone
                                           ? "nothing wrote it in any call"
                                           : "it was last written by " + x_.describe(c.write);
              fault(ExecutionFaultKind::stale_read,
                    "gpu " + std::to_string(acc.gpu) + " " + to_string(s) + ": " + x_.describe(e) +
                        " reads it, but " + what + ": call " + std::to_string(ev.call + 1) +
                        " reads a previous call's data",
                    c.write == kNone ? std::vector<std::uint32_t>{e}
                                     : std::vector<std::uint32_t>{c.write, e});
            }
            // A packet read spins until the packets of its own call land: it is ordered after
            // such a write whatever the lanes.
            const bool flagged =
                acc.packet && c.packet && c.write != kNone && events[c.write].call == ev.call;
            if (c.write != kNone && !flagged && !ordered(ordered_data, c.write, e))
              race(acc.gpu, s, c.write, true, e, false);
            reads.push_back({e, c.reads});
            c.reads = static_cast<std::uint32_t>(reads.size() - 1);
            continue;
          }
          std::optional<std::pair<std::uint32_t, bool>> with;
          // A write that a read observed is complete: once those reads are ordered before this
          // write (checked next), so is the write. Only an unobserved write needs a chain that
          // orders data.
          if (c.write != kNone && c.reads == kNone && !ordered(ordered_data, c.write, e))
            with = {c.write, true};
          for (std::uint32_t r = c.reads; r != kNone && !with; r = reads[r].next)
            if (!ordered(any, reads[r].event, e)) with = {reads[r].event, false};
          if (with) race(acc.gpu, s, with->first, with->second, e, true);
          c.write = e;
          c.reads = kNone;
          c.packet = acc.packet;
        }
      }
    }
    if (races > 1)
      faults_[first].explanation +=
          " (" + std::to_string(races - 1) +
          (races == 2 ? " more racing access)" : " more racing accesses)");
  }

  void outside() {
    // Outside faults are of the first call, the one lowered: each names the phase it lands in
    // when it runs at all (it moves nothing).
    for (const Execution::Outside& o : x_.outside()) {
      std::optional<std::size_t> phase;
      if (x_.level(o.event) != Execution::kUnreached) phase = x_.phase_of_level(x_.level(o.event));
      fault(ExecutionFaultKind::outside_buffer, x_.describe(o.event) + " " + o.why, {o.event},
            phase);
    }
  }

  const Execution& x_;
  std::vector<ExecutionFault> faults_;
};

}  // namespace

Schedule lower(const Plan& plan, std::string_view source) {
  const Execution execution(plan, source);
  return execution.emit(Checks(execution).run());
}

}  // namespace phasecheck::mscclpp
