#pragma once
/// MSCCL programs (the XML that msccl-tools, RCCL and NCCL's MSCCL runtime load) and their
/// execution model: the program as events, what waits for what, and that graph layered into the
/// phases of a format-3 buffer program. docs/msccl.md states every rule; io/msccl_xml reads and
/// writes the XML; verify/msccl_execution.hpp judges the model (deadlock, race, matching) and
/// lowers a program with its faults.
///
/// An MSCCL program gives each gpu threadblocks that run concurrently; a threadblock has at most
/// one send peer and one receive peer on one channel and runs its steps in order. A step may wait
/// for a step of another threadblock of its gpu (depid, deps); it is released when that
/// threadblock completes a step at or after `deps` that signals (hasdep = 1), as the runtime's
/// flags work. The k-th send of gpu a to gpu b on channel c meets the k-th receive of b from a
/// on channel c.
///
/// Lowering: every send is merged with the receive it meets (a send completes together with its
/// receive, as it does once the data exceeds the connection's buffer: a schedule that deadlocks
/// here can hang at large sizes) and the dependence graph is layered as soon as possible: a
/// step's phase is one more than the latest phase of what it waits for (its predecessor in the
/// threadblock, the step it depends on, and for a transfer both sides). Phases with no data
/// movement are dropped. In that phase a send reads its source slot at the phase's start and the
/// receive's slot is written at its end; a recv-copy-send receives in one phase and forwards from
/// the next. Two steps of one gpu that touch the same slot (one of them writing) and are not
/// ordered by the dependence graph (through any gpus) race: the program's result depends on
/// timing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffers.hpp"
#include "core/imported.hpp"
#include "core/schedule.hpp"

namespace phasecheck::msccl {

/// How steps are written: `<step s type srcbuf srcoff dstbuf dstoff cnt depid deps hasdep>`
/// (msccl-tools, RCCL) or `<op step type buf off [cnt depid deps hasdep]>` (msccl-tools' newer
/// form: buf/off is the slot the step reads for a send, writes for a receive).
enum class Dialect { step, op };
std::string_view to_string(Dialect d);

/// The last four reduce (allreduce, reduce-scatter programs): read and linted, never lowered.
enum class StepType {
  send,
  receive,
  receive_copy_send,
  copy,
  nop,
  receive_reduce_send,
  receive_reduce_copy,
  receive_reduce_copy_send,
  reduce
};
std::string_view to_string(StepType t);  ///< "s", "r", "rcs", "cpy", "nop", "rrs", ...
bool reduces(StepType t);

struct Step {
  std::uint32_t index = 0;  ///< s: its position in the threadblock
  StepType type = StepType::nop;
  /// The local slot the step reads (s, cpy) and writes (r, rcs, cpy); the runtime ignores the
  /// others. `remote` is the slot the file names on the peer (a send's dstbuf/dstoff): kept so
  /// that a written file reads back the same, never used by the execution model.
  std::optional<Slot> src, dst, remote;
  std::uint32_t count = 1;
  std::int32_t depend_threadblock = -1;  ///< depid: -1 when the step waits for nothing
  std::int32_t depend_step = -1;         ///< deps
  bool signals = false;                  ///< hasdep: completing it releases waiting steps
  std::uint32_t line = 0;                ///< in the file (0: built, not read)
  bool sends() const {
    return type == StepType::send || type == StepType::receive_copy_send ||
           type == StepType::receive_reduce_send || type == StepType::receive_reduce_copy_send;
  }
  bool receives() const {
    return type == StepType::receive || type == StepType::receive_copy_send ||
           type == StepType::receive_reduce_send || type == StepType::receive_reduce_copy ||
           type == StepType::receive_reduce_copy_send;
  }
  friend bool operator==(const Step&, const Step&) = default;
};

struct Threadblock {
  std::uint32_t id = 0;
  std::int32_t send = -1;  ///< the gpu its sends go to, -1 for none
  std::int32_t recv = -1;  ///< the gpu its receives come from
  std::uint32_t channel = 0;
  std::vector<Step> steps;
  std::uint32_t line = 0;
  friend bool operator==(const Threadblock&, const Threadblock&) = default;
};

struct Gpu {
  std::uint32_t id = 0;
  std::uint32_t input_chunks = 0;  ///< i_chunks
  std::uint32_t output_chunks = 0;
  std::uint32_t scratch_chunks = 0;
  std::vector<Threadblock> threadblocks;  ///< in file order
  std::uint32_t line = 0;
  friend bool operator==(const Gpu&, const Gpu&) = default;
};

/// i_chunks, o_chunks or s_chunks of `gpu`: the slots it declares in buffer `b`.
std::uint32_t declared_chunks(const Gpu& gpu, Buffer b);

/// One `<algo>`. Attributes a runtime needs but a file may leave out are optional here, so that
/// `lint` can say which are missing.
struct Program {
  std::string name;
  std::optional<std::string> protocol;  ///< Simple, LL or LL128 (RCCL requires it)
  std::string coll;                     ///< as written; only alltoall and allgather are lowered
  std::uint32_t ngpus = 0;
  std::uint32_t nchunksperloop = 0;
  std::optional<std::uint32_t> nchannels;
  std::optional<bool> inplace, outofplace;
  std::optional<std::int64_t> min_bytes, max_bytes;
  std::vector<Gpu> gpus;  ///< gpus[i].id == i
  Dialect dialect = Dialect::step;
  std::uint32_t line = 0;
  friend bool operator==(const Program&, const Program&) = default;
};

/// RCCL's interpreter (msccl.h): a step moves fewer than 72 chunks, a threadblock runs at most
/// 256 steps, a gpu at most 216 threadblocks; NCCL has at most 32 channels.
inline constexpr std::uint32_t kMaxCount = 71;
inline constexpr std::uint32_t kMaxSteps = 256;
inline constexpr std::uint32_t kMaxThreadblocks = 216;
inline constexpr std::uint32_t kMaxChannels = 32;

/// The collective of `coll`; InputError (naming `where`) for anything but an alltoall or an
/// allgather.
Collective collective_of(const Program& p, std::string_view where);

/// c, the chunks of one message (alltoall) or contribution (allgather): nchunksperloop / ngpus.
/// InputError when ngpus does not divide it.
std::uint32_t chunks_per_pair(const Program& p, std::string_view where);

/// Which variant of an allgather to judge when both are declared: the one the runtime uses for
/// out-of-place calls (input separate) or for in-place calls (input = output[r*c ..]).
enum class Placement { out_of_place, in_place };
/// The variant `p` is judged as by default: out of place unless it declares only in place.
Placement default_placement(const Program& p);

/// The execution model of a program (the rules above): its steps as events, the graph of what
/// waits for what, and that graph layered into phases. It holds no verdict: the checkers in
/// verify/msccl_execution.hpp judge it (deadlock, race, matching), and emit() writes it as a
/// format-3 schedule with the faults they found. `p` must outlive it.
class Execution {
 public:
  /// One thing a threadblock does: a step is one event, a recv-copy-send two (receive, then send).
  enum class EventKind : std::uint8_t { send, receive, copy, nop };
  static constexpr std::uint32_t kNone = ~0u;
  struct Event {
    std::uint32_t gpu = 0;
    std::uint32_t tb = 0;     ///< index in gpus[gpu].threadblocks
    std::uint32_t step = 0;   ///< index in the threadblock's steps
    std::uint32_t local = 0;  ///< position among the threadblock's events
    EventKind kind = EventKind::nop;
    bool blocked = false;  ///< can never run: unmatched, or waits for a step that never signals
    bool outside = false;  ///< names a slot beyond its gpu's declared buffers: moves nothing
    std::uint32_t partner = kNone;  ///< the receive a send meets, the send a receive meets
    std::uint32_t inbox = 0;        ///< send/receive: the first inbox slot of its connection
  };
  /// Why one event waits for another.
  enum class EdgeKind : std::uint8_t {
    order,    ///< earlier in its threadblock
    depends,  ///< its depid/deps
    data,     ///< the send a receive meets
    buffer    ///< the receive that empties the connection's buffer
  };
  struct Edge {
    std::uint32_t from = 0, to = 0;
    EdgeKind kind = EdgeKind::order;
  };
  /// The sends of gpu `from` to gpu `to` on `channel` and the receives of `to` from `from`
  /// there, events in threadblock order; the k-th of each meet.
  struct Connection {
    std::uint32_t from = 0, to = 0, channel = 0;
    std::vector<std::uint32_t> sends, receives;
  };
  /// A step that waits (depid/deps) for a step after which nothing of that threadblock signals.
  struct Unreleased {
    std::uint32_t waiter = 0;  ///< its event
    StepRef waited;            ///< the step it names
  };
  /// The slots an event reads and writes, as the lowered program names them.
  struct Access {
    std::optional<Slot> read, write;
    std::uint32_t read_gpu = 0, write_gpu = 0, count = 0;
  };
  static constexpr std::uint32_t kUnreached = ~0u;

  /// Builds the model. Throws InputError for what the runtime would refuse to load or the model
  /// cannot express and for memory beyond the limit (see lower() in
  /// verify/msccl_execution.hpp). Linear in the steps.
  Execution(const Program& p, std::string_view source, Placement placement);

  const Program& program() const { return p_; }
  const std::string& source() const { return source_; }
  const std::vector<Event>& events() const { return events_; }
  const std::vector<Edge>& edges() const { return edges_; }
  /// In (from, to, channel) order.
  const std::vector<Connection>& connections() const { return connections_; }
  /// In gpu, threadblock and step order.
  const std::vector<Unreleased>& unreleased() const { return unreleased_; }
  /// The layer of event e, kUnreached when it never runs.
  std::uint32_t level(std::uint32_t e) const { return level_[e]; }
  /// The events that run, each after every event it waits for.
  const std::vector<std::uint32_t>& order() const { return order_; }
  /// The phase of the lowered schedule that layer `level` becomes, or would be followed by
  /// when it moves no data.
  std::size_t phase_of_level(std::uint32_t level) const { return phase_of_level_[level]; }
  /// The bytes charged to the memory limit so far (core/limits.hpp).
  std::uint64_t charged_bytes() const { return charged_; }

  const Threadblock& threadblock(const Event& e) const { return p_.gpus[e.gpu].threadblocks[e.tb]; }
  const Step& step(const Event& e) const { return threadblock(e).steps[e.step]; }
  StepRef ref(const Event& e) const { return {e.gpu, threadblock(e).id, step(e).index}; }
  std::string name(std::uint32_t e) const { return to_string(ref(events_[e])); }
  /// "gpu 0 tb 1 step 2 (send to gpu 3)".
  std::string describe(std::uint32_t e) const;
  Access access(std::uint32_t e) const;
  /// Whether `s` is a slot the program declares (not a connection's buffer).
  bool declared(const std::optional<Slot>& s) const {
    return s && !(s->buffer == Buffer::scratch && s->index >= inbox_base_);
  }
  /// The first declared slot event e names whose chunks do not all lie in its gpu's buffers.
  std::optional<Slot> outside_slot(std::uint32_t e) const;

  /// The lowered program: a phase per layer that moves data, the faults in header.imported.
  Schedule emit(std::vector<ExecutionFault> faults) const;

 private:
  void charge_steps();
  void build_events();
  void check_buffers();
  void match();
  void depend();
  void layer();
  /// The slot `s` of gpu g as the lowered program names it (in place: input -> output[g*c + k]).
  Slot local_slot(std::uint32_t g, Slot s) const;
  /// Whether `count` slots from `s` lie inside gpu g's declared buffers.
  bool inside(std::uint32_t g, Slot s, std::uint32_t count) const;
  Slot inbox(const Event& e) const { return {Buffer::scratch, inbox_base_ + e.inbox}; }

  const Program& p_;
  std::string source_;
  Placement placement_;
  Collective collective_ = Collective::alltoall;
  std::uint32_t chunks_ = 1;

  std::vector<Event> events_;
  // Per gpu and threadblock index: the first event of each step (and one past the last).
  std::vector<std::vector<std::vector<std::uint32_t>>> step_events_;
  std::vector<Edge> edges_;
  std::vector<Connection> connections_;
  std::vector<Unreleased> unreleased_;
  std::vector<std::uint32_t> level_;  // per event; kUnreached for events that never run
  std::vector<std::uint32_t> order_;  // events in the order they were layered
  std::vector<std::size_t> phase_of_level_;
  // Inboxes: scratch slots after every gpu's declared ones, a region per incoming connection.
  std::uint32_t inbox_base_ = 0;
  std::uint32_t inbox_slots_ = 0;  // the most any gpu needs
  std::uint64_t charged_ = 0;
};

}  // namespace phasecheck::msccl
