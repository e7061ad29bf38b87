#pragma once
/// Happens-before between the events of a dependence graph whose events run on threads: the
/// ordering behind core/msccl.hpp's race check, where a thread is one threadblock of one gpu, and
/// behind any later execution model whose threads synchronise across gpus (one-sided puts). An
/// event happens before another when a chain of edges leads from the first to the second; the
/// events of one thread are ordered by their positions.
///
/// Vector clocks (Lamport, Mattern), one entry per thread, visited in a topological order as
/// FastTrack (Flanagan and Freund, PLDI 2009) does: the caller advances the events one by one and
/// asks, for the current event, whether an earlier event happens before it. Only the current
/// clock of each thread is kept, plus a snapshot of the clock at every event with an edge to
/// another thread until all those edges are consumed. Clocks are sparse (sorted (thread,
/// position) pairs: a clock only holds the threads that reach it) and shared between a thread and
/// its snapshots until the thread learns something new, so that a snapshot costs nothing; an edge
/// whose source the target's thread already knows (its clock entry is at or past it) costs one
/// lookup and no join.
///
/// Cost: O(E log T) for E events and edges plus, for every edge that brings news, a merge of the
/// two clocks (at most T entries each, for T threads). Memory: 24 bytes per event, 4 per edge
/// between threads and 20 per thread, charged to the memory limit (core/limits.hpp) before the
/// engine is built; then 8 bytes per clock entry plus 64 per clock alive (a thread's current clock
/// and the snapshots not yet consumed), charged before each clock is allocated. A refusal is
/// InputError naming `what`.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace phasecheck {

class HappensBefore {
 public:
  /// An edge of the dependence graph: `from` happens before `to`.
  struct Arc {
    std::uint32_t from = 0, to = 0;
  };

  /// Event e runs on `thread[e]` (< `threads`) at `position[e]`: the events of one thread have
  /// positions 0, 1, 2, ... in the order they run. `arcs` are the other edges; those between two
  /// events of one thread are implied by the positions and ignored. `what` names the input in
  /// refusals ("x.xml: the race check"). Throws InputError when the engine's fixed memory passes
  /// the limit.
  ///
  /// `anchors` (optional, ascending) are events that many threads wait for, such as a kernel
  /// boundary that every threadblock of the next call follows: an anchor's arcs carry only the
  /// anchor itself (its successors' clocks get one entry, not the anchor's whole clock, which
  /// would make every clock after it as large as the anchor's), and the anchor's own clock is
  /// kept; `ordered` then asks the anchors a clock knows (and the anchors they know) about what
  /// it does not know itself. Same answers, clocks that stay small.
  ///
  /// The memory limit is checked against everything charged: `base` (what the caller holds),
  /// this engine's, and a `sibling` engine's that runs beside it over the same events.
  HappensBefore(std::span<const std::uint32_t> thread, std::span<const std::uint32_t> position,
                std::span<const Arc> arcs, std::uint32_t threads, std::string what,
                std::span<const std::uint32_t> anchors = {}, const HappensBefore* sibling = nullptr,
                std::uint64_t base = 0);
  HappensBefore(const HappensBefore&) = delete;
  HappensBefore& operator=(const HappensBefore&) = delete;
  ~HappensBefore();

  /// Makes `e` the current event. Precondition (std::logic_error otherwise): every event with an
  /// arc to e, and the event before e on its thread, was advanced before, each event once (a
  /// topological order of the graph; events that never run may be left out, with all that
  /// follows them). Throws InputError when a clock it allocates passes the memory limit.
  void advance(std::uint32_t e);

  /// Whether `a` happens before the current event or is it. Precondition: `a` was advanced.
  bool ordered(std::uint32_t a) const;

  /// Counts `other`'s memory against the limit too (two engines over the same events).
  void share_limit_with(const HappensBefore& other) { sibling_ = &other; }

  /// Bytes the clocks hold now (for tests and the documentation's formula).
  std::uint64_t clock_bytes() const { return live_; }

 private:
  struct Entry {
    std::uint32_t thread = 0;
    std::uint32_t next = 0;  // 1 + the position of the latest event of `thread` known
  };
  struct Clock;
  using Shared = std::shared_ptr<const Clock>;

  /// The entry of `thread` in the current clock of thread `t` (0: nothing known).
  std::uint32_t known(std::uint32_t t, std::uint32_t thread) const;
  /// The clock of thread t joined with snapshot `s` and the epoch (thread u, position p).
  void join(std::uint32_t t, const Shared& s, std::uint32_t u, std::uint32_t p);
  /// The clock of thread t joined with the clocks of `preds` (events of other threads) and their
  /// epochs, in one merge.
  void join_all(std::uint32_t t, const std::vector<std::uint32_t>& preds);
  /// The bytes charged besides this engine's clocks: base, fixed, and the sibling's.
  std::uint64_t charged() const;
  /// The entry of `thread` in clock c (0: nothing known).
  static std::uint32_t known_in(const Clock* c, std::uint32_t thread);
  /// Whether `a` comes before an anchor that clock c of thread t (at `next`, its position + 1)
  /// knows, directly or through the anchors those know.
  bool through_anchors(const Clock* c, std::uint32_t t, std::uint32_t next, std::uint32_t a) const;

  struct Anchor {
    std::uint32_t position = 0;
    Shared clock;  // the anchor's thread's clock when it ran
  };

  std::span<const std::uint32_t> thread_, position_;
  std::string what_;
  const HappensBefore* sibling_ = nullptr;
  std::uint64_t base_ = 0;
  std::uint64_t fixed_ = 0, live_ = 0;
  std::vector<std::uint32_t> first_, preds_;  // cross-thread predecessors per event (CSR)
  std::vector<std::uint32_t> pending_;        // per event: cross-thread successors not yet advanced
  std::vector<Shared> snapshot_;              // per event: its thread's clock when it ran
  std::vector<Shared> clock_;                 // per thread: its current clock (other threads)
  std::vector<std::uint32_t> next_;           // per thread: the position of its next event
  std::uint32_t current_ = ~0u;
  std::vector<bool> anchor_;                   // per event: an anchor
  std::vector<std::uint32_t> anchor_threads_;  // the threads anchors run on, ascending
  std::vector<std::vector<Anchor>> anchored_;  // per anchor thread: its anchors that ran, in order
};

}  // namespace phasecheck
