#pragma once
/// The shared vocabulary of phasecheck: ranks, blocks, transfers, phases and phase tables.
///
/// A schedule is an ordered list of phases; a phase is a set of transfers {src, dst, blocks}.
/// For the alltoall collective ("index") block [o,d] is the message m_od, which rank o holds at the
/// start and rank d must end with. For allgather ("concatenation") block [o] is rank o's
/// contribution, which every rank must end with. Senders keep what they send; a block received in
/// phase t can be forwarded from phase t+1 on. A transfer with src == dst is a free local copy.
///
/// Phases are stored flat (one array of transfers, one pool of blocks) so a million-transfer
/// phase costs two allocations, and are consumed one at a time through PhaseSink, so neither a
/// generator nor a checker ever needs the whole table.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/buffers.hpp"
#include "core/imported.hpp"
#include "core/parameters.hpp"
#include "core/topology.hpp"
#include "core/traffic.hpp"

namespace phasecheck {

enum class Collective { alltoall, allgather };

std::string_view to_string(Collective c);
/// Throws InputError on anything but "alltoall" / "allgather".
Collective parse_collective(std::string_view name);

/// A unit of data. alltoall: [origin, dest]; allgather: [origin] (dest == kEveryRank). When the
/// schedule cuts every message into `parts` segments (ScheduleHeader::parts), `part` says which:
/// [origin, dest, part], or for an allgather [origin, null, part] (null: every rank).
struct Block {
  Rank origin = 0;
  Rank dest = 0;
  std::uint32_t part = 0;
  friend bool operator==(const Block&, const Block&) = default;
};
/// Segments per message, at most: enough for a 16 KiB message in 16-byte blocks.
inline constexpr std::uint32_t kMaxParts = 1024;
inline constexpr Rank kEveryRank = std::numeric_limits<Rank>::max();

/// The block a direct message src -> dst carries: [src,dst] for alltoall, [src] for allgather.
constexpr Block direct_block(Collective c, Rank src, Rank dst) {
  return c == Collective::alltoall ? Block{src, dst} : Block{src, kEveryRank};
}

/// One transfer; its blocks live in the owning Phase's block pool.
struct Transfer {
  Rank src = 0;
  Rank dst = 0;
  std::uint32_t first_block = 0;
  std::uint32_t block_count = 0;
  bool local() const { return src == dst; }
  friend bool operator==(const Transfer&, const Transfer&) = default;
};

/// A transfer of one block, part 0 of its sender's own message to its receiver (direct_block):
/// all that a transfer of a direct phase says (Phase::add_direct, DirectPhase), in 8 bytes.
struct DirectTransfer {
  Rank src = 0;
  Rank dst = 0;
  bool local() const { return src == dst; }
  friend bool operator==(const DirectTransfer&, const DirectTransfer&) = default;
};

class Phase {
 public:
  Phase() = default;
  explicit Phase(std::string label) : label_(std::move(label)) {}

  const std::string& label() const { return label_; }
  void set_label(std::string label) { label_ = std::move(label); }

  /// Appends a transfer src -> dst carrying `blocks` (in that order). Growing the phase is charged
  /// against the memory limit (core/limits.hpp) before it allocates, and a phase carries at most
  /// 2^32 - 1 blocks: InputError otherwise (one phase of a million ranks' linear alltoall holds
  /// 2^40 transfers).
  void add(Rank src, Rank dst, std::span<const Block> blocks);
  void add(Rank src, Rank dst, Block block) {
    // Within the capacity already charged: no charge, no call (generators add billions).
    if (transfers_.size() < transfers_.capacity() && blocks_.size() < blocks_.capacity()) {
      transfers_.push_back({src, dst, static_cast<std::uint32_t>(blocks_.size()), 1});
      blocks_.push_back(block);
      own_ &= own_message_of(src, dst, block);
      most_rank_ = std::max({most_rank_, src, dst});
      return;
    }
    add(src, dst, std::span<const Block>(&block, 1));
  }

  /// Appends one transfer per (src, dst) pair, each carrying the pair's own message
  /// (direct_block): add() of each in bulk, charged once for all of them (DirectPhase::fill).
  void add_direct(std::span<const DirectTransfer> pairs, Collective collective);

  /// Whether every transfer carries exactly one block, part 0 of its sender's own message to its
  /// receiver in `collective`: direct_block(collective, src, dst) (true for an empty phase). Kept
  /// as the phase is built, so asking is O(1): the checkers judge such a phase without reading
  /// its blocks (validation, delivery's one pass, the counts).
  bool carries_own_messages(Collective collective) const { return own_ & own_bit(collective); }
  /// The largest rank a transfer names (0 for an empty phase), kept as the phase is built like
  /// the bit above: validation of a phase of own messages is then one comparison.
  Rank most_rank() const { return most_rank_; }

  std::size_t size() const { return transfers_.size(); }
  bool empty() const { return transfers_.empty(); }
  std::span<const Transfer> transfers() const { return transfers_; }
  const Transfer& operator[](std::size_t i) const { return transfers_[i]; }
  std::span<const Block> blocks(const Transfer& t) const {
    return std::span<const Block>(blocks_).subspan(t.first_block, t.block_count);
  }
  /// Every block of the phase: its transfers' blocks one after another, in transfer order.
  std::span<const Block> blocks() const { return blocks_; }

  /// Format 3: the phase's buffer program (core/buffers.hpp). Its transfers are then the table
  /// its sends form (BufferState::apply derives them).
  /// Charged against the memory limit as add() above.
  void add(const BufferOp& op);
  std::span<const BufferOp> ops() const { return ops_; }
  /// Removes the transfers and keeps the ops and the label.
  void clear_transfers();

  /// Keeps the capacity, so a generator can reuse one Phase for every phase it emits.
  void clear();
  /// Charged against the memory limit as add() above.
  void reserve(std::size_t transfers, std::size_t blocks);

  friend bool operator==(const Phase&, const Phase&) = default;

 private:
  std::string label_;
  std::vector<Transfer> transfers_;
  std::vector<Block> blocks_;
  std::vector<BufferOp> ops_;
  /// carries_own_messages, one bit per collective: a function of the transfers and blocks, so
  /// equal phases have equal bits.
  std::uint8_t own_ = kOwnBoth;
  Rank most_rank_ = 0;

  static constexpr std::uint8_t kOwnBoth = 3;
  static constexpr std::uint8_t own_bit(Collective c) { return c == Collective::alltoall ? 1 : 2; }
  /// The collectives in which `block`, alone on src -> dst, is the sender's own message.
  static constexpr std::uint8_t own_message_of(Rank src, Rank dst, Block block) {
    if (block.origin != src || block.part != 0) return 0;
    return (block.dest == dst ? own_bit(Collective::alltoall) : 0) |
           (block.dest == kEveryRank ? own_bit(Collective::allgather) : 0);
  }

  /// Before the vectors grow to these capacities: InputError when the phase would pass the
  /// memory limit or 2^32 - 1 blocks.
  void charge(std::uint64_t transfers, std::uint64_t blocks, std::uint64_t ops) const;
};

/// Everything about a schedule except its phases.
struct ScheduleHeader {
  std::string algorithm;
  Collective collective = Collective::alltoall;
  Topology topology =
      FullyConnected(1, 1);  ///< the machine it was made for; ranks = ranks(topology)
  Parameters parameters;     ///< the algorithm's parameters, as given to `generate`
  /// Segments per message: block [o, d] (alltoall) or [o] (allgather) is delivered as its parts
  /// 0 .. parts-1 ([o, d, k]; [o, null, k] in a file).
  std::uint32_t parts = 1;
  /// A phase table of a collective called in place (MPI_IN_PLACE, format 4): the output buffer
  /// starts with the input's layout. Delivery is the same (a rank holds its own blocks from the
  /// start); the lowering to buffers and the reports differ. A program says it in
  /// buffers->inplace instead: in_place() reads either.
  bool inplace = false;
  /// Format 3: the buffers every rank has; its phases are buffer programs (Phase::ops), and
  /// parts == buffers->chunks. Absent for a phase table (formats 1 and 2).
  std::optional<BufferLayout> buffers;
  /// Read from another tool's format (MSCCL XML): the source of each op and the faults of the
  /// source program's execution. Absent for phasecheck's own formats.
  std::optional<Imported> imported;
  /// An alltoallv (collective "alltoallv" in a file): the alltoall whose message [o, d] has
  /// traffic->count(o, d) elements (core/traffic.hpp). Absent for every other collective. Only
  /// with Collective::alltoall.
  SharedTraffic traffic;
  /// An alltoallv cut into pieces of this many elements (format 2, "piece_elements"): block
  /// [o, d, k] is piece k, and parts is the most pieces of any message. 0: whole messages.
  std::uint64_t piece_elements = 0;
  Rank ranks() const { return phasecheck::ranks(topology); }
  /// Whether the collective runs in place: buffers->inplace for a program, inplace for a table.
  bool in_place() const { return buffers ? buffers->inplace : inplace; }
  /// "alltoallv" for an alltoall with a traffic matrix, else the collective's name.
  std::string_view collective_name() const;
  /// The pieces an alltoallv's messages are cut into.
  Pieces pieces() const { return Pieces{piece_elements}; }
  friend bool operator==(const ScheduleHeader&, const ScheduleHeader&) = default;
};

struct Schedule {
  ScheduleHeader header;
  std::vector<Phase> phases;
  friend bool operator==(const Schedule&, const Schedule&) = default;
};

/// What is wrong with transfer `t` of `phase` in a schedule of `collective` over `ranks` ranks: a
/// rank that does not exist, no block at all, or a block of the wrong shape; for an alltoallv
/// (`traffic` given, cut by `pieces`) also a block whose message has no elements, or a piece
/// beyond its message's last ("block [3,7,2]: counts[3][7] is 5 elements, 2 pieces of at most 4
/// (the last is piece 1)"). Nothing when it is well-formed. O(blocks of t).
std::optional<std::string> transfer_problem(const Phase& phase, const Transfer& t,
                                            Collective collective, Rank ranks,
                                            std::uint32_t parts = 1,
                                            const Traffic* traffic = nullptr, Pieces pieces = {});

/// Whether every transfer of `phase` is well-formed for an even collective (no traffic matrix):
/// transfer_problem finds nothing in any of them. One branch-free pass over the transfers and
/// the blocks, for the common case; a caller that gets false asks transfer_problem which
/// transfer is wrong and why.
bool transfers_well_formed(const Phase& phase, Collective collective, Rank ranks,
                           std::uint32_t parts = 1);

/// Receives phases one at a time, in order. The phase is only valid during the call.
using PhaseSink = std::function<void(const Phase&)>;

/// A phase of own messages as its generator holds it: every transfer carries one block, part 0 of
/// its sender's own message (direct_block), so the label and the (src, dst) pairs say it all, in
/// 8 bytes a transfer where a Phase keeps 28. The checks judge it as they judge the Phase it
/// stands for (fill), and build that Phase only to draw a counterexample (verify/verifier.hpp);
/// what they report is the same to the byte.
struct DirectPhase {
  std::string_view label;
  Collective collective = Collective::alltoall;
  std::span<const DirectTransfer> transfers;
  std::size_t size() const { return transfers.size(); }
  /// The Phase it stands for, in `phase` (cleared first; its capacity is kept): the label, then
  /// the transfers by add_direct. Charged against the memory limit as add_direct is.
  void fill(Phase& phase) const;
};

/// Receives direct phases one at a time, in order, as PhaseSink receives phases.
using DirectSink = std::function<void(const DirectPhase&)>;

/// Phases first .. last - 1 of a schedule: the part one process of a check split by phase range
/// makes and judges (pipeline/check.hpp). The default is every phase.
struct PhaseRange {
  std::uint64_t first = 0;
  std::uint64_t last = UINT64_MAX;
  bool contains(std::uint64_t p) const { return first <= p && p < last; }
  friend bool operator==(const PhaseRange&, const PhaseRange&) = default;
};

/// The Phase a direct phase stands for, built at the first call and only then: what a check that
/// judges the pairs hands the code that draws a counterexample. `direct` must outlive it.
class PhaseOnDemand {
 public:
  explicit PhaseOnDemand(const DirectPhase& direct) : direct_(direct) {}
  const Phase& operator()() const {
    if (!phase_) direct_.fill(phase_.emplace());
    return *phase_;
  }

 private:
  const DirectPhase& direct_;
  mutable std::optional<Phase> phase_;  // none until drawn: a flag to set up per phase
};
/// A direct sink that hands `out` the Phase each direct phase stands for (DirectPhase::fill, into
/// one Phase it reuses): how a generator of direct phases serves a PhaseSink.
DirectSink filling(PhaseSink out);

/// Writes `prefix` and `number` in decimal into `label` ("phase 12"), in its own storage: for
/// generators that label millions of phases.
void numbered_label(std::string& label, std::string_view prefix, std::uint64_t number);

/// A sink that appends to `phases`.
PhaseSink collect_into(std::vector<Phase>& phases);

/// The memory a whole table of `header` takes at least when a command holds it rather than
/// streams it (gate's generated cases, generate --buffers): every block of the collective travels
/// at least once, each as a transfer and a block of a phase, so p (p - 1) x parts x
/// (sizeof(Transfer) + sizeof(Block)) bytes. Empty when that overflows 64 bits. For
/// check_memory (core/limits.hpp) before generating.
std::optional<std::uint64_t> held_table_bytes(const ScheduleHeader& header);

std::ostream& operator<<(std::ostream& os, Collective c);
/// "[3,5]", "[3,5,2]", "[3]" or "[3,null,2]" (an allgather's part 2), as a file writes them.
std::ostream& operator<<(std::ostream& os, const Block& b);
std::ostream& operator<<(std::ostream& os, const Phase& p);  ///< label and one line per transfer
std::ostream& operator<<(std::ostream& os, const Schedule& s);
std::string to_string(const Block& b);
/// "3 -> 5" for a direct message, "3 -> 5 [3,7] [1,7]" when it carries other blocks.
std::string describe_transfer(const Phase& phase, const Transfer& t, Collective c);

}  // namespace phasecheck
