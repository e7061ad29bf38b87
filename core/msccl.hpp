#pragma once
/// MSCCL programs (the XML that msccl-tools, RCCL and NCCL's MSCCL runtime load) and their
/// execution model: the program lowered to a format-3 buffer program whose phases the checkers
/// judge. docs/msccl.md states every rule; io/msccl_xml reads and writes the XML.
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
/// timing. The race check compares each access with the slot's last write and the reads since it,
/// in a topological order, asking core/happens_before.hpp (a clock entry per threadblock).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffers.hpp"
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

/// The program as a format-3 schedule with header.imported set (docs/msccl.md). `source` names
/// the file in messages. Throws InputError only for what the runtime would refuse to load or
/// what the model cannot express (a collective other than alltoall/allgather, a step that
/// reduces, buffers too small for the collective) and for memory beyond the limit
/// (core/limits.hpp): 512 bytes per step, charged before the events are built, and 64 per chunk a
/// step reads or writes, charged step by step before the race check builds its state (the
/// refusal names `source` and the step); every step is checked against its gpu's declared
/// buffers before that, and one beyond them is a fault that sizes nothing. Every fault of the
/// program's execution is data in header.imported. Linear in the steps and the chunks they touch,
/// plus the happens-before engine's merges (core/happens_before.hpp).
Schedule lower(const Program& p, std::string_view source,
               std::optional<Placement> placement = std::nullopt);

}  // namespace phasecheck::msccl
