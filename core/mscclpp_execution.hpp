#pragma once
/// The execution model of an MSCCL++ plan (core/mscclpp.hpp; docs/mscclpp.md states every rule,
/// decided from the executor's source at mscclpp 1f5f065): the plan's ops as events on lanes,
/// what waits for what, which of those waits order data, the buffer cells each event reads and
/// writes, and the graph layered into the phases of a format-3 buffer program. It holds no
/// verdict: verify/mscclpp_execution.hpp judges it (never released, deadlock, count mismatch,
/// race, outside buffer) and emit() writes the program with those faults.
///
/// Lanes (the threads of the happens-before engine, core/happens_before.hpp): each threadblock
/// has a leader lane (the first threads: signal, wait, flush, semaphores, pushing port-channel
/// puts) and a block lane (all threads: memory-channel put and get, copy, packets); a nop or
/// barrier joins them. Each port channel has a proxy lane (the proxy's FIFO: puts, then the
/// signals behind them). Each gpu has a lane for the kernel boundaries between calls, and one per
/// barrier id for the barrier's meetings. The model runs two consecutive calls (three with a
/// double scratch buffer) so that what a call leaves behind (a signal too many, a scratch cell
/// still being read) meets the next one.
///
/// Cells: a chunk is Q cells, Q the least common multiple of the threadblock-group sizes and 2
/// when the plan pipelines (a pipeline runs 2 * num_chunks iterations of half a chunk each).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffers.hpp"
#include "core/imported.hpp"
#include "core/mscclpp.hpp"
#include "core/schedule.hpp"

namespace phasecheck::mscclpp {

class Execution {
 public:
  static constexpr std::uint32_t kNone = ~0u;

  enum class EventKind : std::uint8_t {
    data,     ///< moves data: put, get, copy, packets (on the block lane, or a proxy's)
    join,     ///< nop, or a barrier's arrival: the block and the leader meet
    signal,   ///< a signal (or a port put's signal) reaching the paired channel
    wait,     ///< a wait on a channel
    flush,    ///< a flush: the port channel's earlier puts are complete
    push,     ///< a port-channel put or signal handed to the proxy
    release,  ///< sem_release
    acquire,  ///< sem_acquire
    depart,   ///< a barrier's departure, after every member arrived
    meet,     ///< a barrier meeting (its own lane)
    boundary  ///< the kernel boundary between two calls on a gpu (its own lane)
  };

  /// One access of an event: `count` consecutive cells of one buffer of one gpu (in the lowered
  /// program's names: an in-place alltoall's input is its output).
  struct Access {
    std::uint32_t gpu = 0;
    Slot slot;  ///< the first cell (index in cells)
    std::uint32_t count = 0;
    bool write = false;
    bool packet = false;  ///< packets (LL): a write carries the call's flag, a read waits for it
  };

  struct Event {
    EventKind kind = EventKind::data;
    std::uint32_t gpu = 0, tb = kNone, step = 0, call = 0;
    std::uint32_t lane = 0, position = 0;
    std::uint32_t epoch = 0;  ///< block lane: the number of joins before it in its threadblock
    std::uint32_t accesses = 0, access_count = 0;  ///< its range in accesses()
    std::uint32_t to = kNone;  ///< send: the gpu written (put, packets) or read (get)
    bool relaxed = false;      ///< signal, wait: orders no data
    bool outside = false;      ///< names a cell beyond its gpu's declared buffers: moves nothing
  };

  /// Why one event waits for another. `ordering` says whether it orders data: a relaxed signal
  /// or a signal on a channel several threadblocks share releases a wait without it.
  enum class EdgeKind : std::uint8_t {
    lane,       ///< the event before it on its lane
    join,       ///< a nop or barrier: the other lane of the threadblock
    signal,     ///< the signal that releases a wait
    semaphore,  ///< the release an acquire takes
    barrier,    ///< a barrier meeting
    proxy,      ///< the push behind a proxy's put or signal, or the puts a flush waits for
    packet,     ///< the packet write a packet read waits for
    boundary    ///< the kernel boundary between calls
  };
  /// `orders_data`: a release and its acquire (what came before the source is visible after
  /// the target); `orders_execution`: the source is done before the target starts (so a read
  /// before it comes before a write after it). An edge neither is kept for the layering and
  /// the deadlock search only: which event releases the target depends on timing.
  struct Edge {
    std::uint32_t from = 0, to = 0;
    EdgeKind kind = EdgeKind::lane;
    bool orders_data = true;
    bool orders_execution = true;
  };

  /// A wait, acquire, barrier or packet read that nothing ever releases.
  struct Unreleased {
    std::uint32_t event = 0;
    std::string why;
  };
  /// A channel pair whose signals and waits differ in number in one call.
  struct Imbalance {
    std::uint32_t signal_event = kNone, wait_event = kNone;  ///< one of each, when any
    std::string why;
  };

  static constexpr std::uint32_t kUnreached = ~0u;

  /// Builds the model. Throws InputError for what it cannot express (not an alltoall or allgather,
  /// reducing or NVLS ops, port-channel packets, too fine a cell grid, buffers too small for the
  /// collective) and for memory beyond the limit (core/limits.hpp), naming `source` and the op.
  Execution(const Plan& plan, std::string_view source);

  const Plan& plan() const { return plan_; }
  const std::string& source() const { return source_; }
  std::uint32_t calls() const { return calls_; }
  std::uint32_t cells_per_chunk() const { return q_; }
  std::uint32_t lanes() const { return lanes_; }
  const std::vector<Event>& events() const { return events_; }
  const std::vector<Access>& accesses() const { return accesses_; }
  const std::vector<Edge>& edges() const { return edges_; }
  const std::vector<Unreleased>& unreleased() const { return unreleased_; }
  const std::vector<Imbalance>& imbalances() const { return imbalances_; }
  /// Channel pairs signalled or waited on by several threadblocks of a gpu.
  const std::vector<Imbalance>& shared() const { return shared_; }
  /// Events that name cells beyond their buffers, with the first such range.
  struct Outside {
    std::uint32_t event = 0;
    std::string why;
  };
  const std::vector<Outside>& outside() const { return outside_; }
  /// The layer of event e, kUnreached when it never runs.
  std::uint32_t level(std::uint32_t e) const { return level_[e]; }
  /// The phase of the lowered program that layer `level` becomes, or would be followed by when
  /// it moves no data.
  std::size_t phase_of_level(std::uint32_t level) const { return phase_of_level_[level]; }
  /// The events that run, each after every event it waits for.
  const std::vector<std::uint32_t>& order() const { return order_; }
  /// Whether e is on a threadblock's block lane.
  bool on_block_lane(std::uint32_t e) const;
  std::uint64_t charged_bytes() const { return charged_; }

  StepRef ref(std::uint32_t e) const;
  /// "gpu 0 tb 1 step 5 (put to gpu 2)", with ", call 2" after the first call.
  std::string describe(std::uint32_t e) const;
  /// "gpus[0].threadblocks[1].ops[5]" (".ops[j]" after a pipeline's index for its inner ops).
  std::string path(std::uint32_t gpu, std::uint32_t tb, std::uint32_t step) const;

  /// The first call lowered: a phase per layer that moves data, the faults in header.imported.
  Schedule emit(std::vector<ExecutionFault> faults) const;

 private:
  struct Builder;
  friend struct Builder;

  const Plan& plan_;
  std::string source_;
  Collective collective_ = Collective::alltoall;
  std::uint32_t chunks_ = 1;  // c: chunks per message or contribution
  std::uint32_t q_ = 1;
  std::uint32_t calls_ = 2;
  std::uint32_t lanes_ = 0;
  std::vector<Event> events_;
  std::vector<Access> accesses_;
  std::vector<Edge> edges_;
  std::vector<Unreleased> unreleased_;
  std::vector<Imbalance> imbalances_;
  std::vector<Imbalance> shared_;
  std::vector<Outside> outside_;
  std::vector<std::uint32_t> level_, order_;
  std::vector<std::size_t> phase_of_level_;
  // Per gpu and threadblock: the flattened ops (pointers into plan_) and their file paths.
  struct FlatOp {
    const Op* op = nullptr;
    std::uint32_t outer = 0;      // its index in the threadblock's `ops`
    std::uint32_t inner = kNone;  // its index in the pipeline's `ops`, or kNone
  };
  std::vector<std::vector<std::vector<FlatOp>>> flat_;
  std::vector<bool> block_lane_;
  std::uint64_t charged_ = 0;
};

}  // namespace phasecheck::mscclpp
