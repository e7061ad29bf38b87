#include "core/schedule.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <ostream>
#include <sstream>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace phasecheck {

std::string_view to_string(Collective c) {
  return c == Collective::alltoall ? "alltoall" : "allgather";
}

Collective parse_collective(std::string_view name) {
  if (name == "alltoall") return Collective::alltoall;
  if (name == "allgather") return Collective::allgather;
  throw InputError("unknown collective '" + std::string(name) +
                   "' (expected alltoall or allgather)");
}

namespace {

/// A vector's capacity once it holds `needed` elements: as it is, or grown at least twofold (as
/// the standard library grows it on an append).
std::uint64_t capacity_for(std::uint64_t capacity, std::uint64_t needed) {
  return needed <= capacity ? capacity : std::max(needed, 2 * capacity);
}

}  // namespace

void Phase::charge(std::uint64_t transfers, std::uint64_t blocks, std::uint64_t ops) const {
  if (blocks > std::numeric_limits<std::uint32_t>::max())
    throw InputError("one phase carries at most 2^32 - 1 blocks; this one " +
                     std::to_string(blocks));
  check_memory(
      checked_add(
          checked_add(checked_mul(transfers, sizeof(Transfer)), checked_mul(blocks, sizeof(Block))),
          checked_mul(ops, sizeof(BufferOp))),
      "one phase of " + std::to_string(std::max(transfers, ops)) +
          (ops > transfers ? " ops" : " transfers") + " (" + std::to_string(blocks) + " blocks)");
}

void Phase::add(Rank src, Rank dst, std::span<const Block> blocks) {
  const std::uint64_t block_end = std::uint64_t{blocks_.size()} + blocks.size();
  if (transfers_.size() == transfers_.capacity() || block_end > blocks_.capacity())
    charge(capacity_for(transfers_.capacity(), transfers_.size() + 1),
           capacity_for(blocks_.capacity(), block_end), ops_.capacity());
  transfers_.push_back({src, dst, static_cast<std::uint32_t>(blocks_.size()),
                        static_cast<std::uint32_t>(blocks.size())});
  blocks_.insert(blocks_.end(), blocks.begin(), blocks.end());
  own_ &= blocks.size() == 1 ? own_message_of(src, dst, blocks[0]) : std::uint8_t{0};
  most_rank_ = std::max({most_rank_, src, dst});
}

void numbered_label(std::string& label, std::string_view prefix, std::uint64_t number) {
  char digits[20];  // 2^64 - 1 has 20
  const char* end = std::to_chars(digits, digits + sizeof digits, number).ptr;
  label.assign(prefix);
  label.append(digits, static_cast<std::size_t>(end - digits));
}

void Phase::add_direct(std::span<const DirectTransfer> pairs, Collective collective) {
  const std::size_t t0 = transfers_.size(), b0 = blocks_.size();
  const std::uint64_t block_end = std::uint64_t{b0} + pairs.size();
  if (t0 + pairs.size() > transfers_.capacity() || block_end > blocks_.capacity())
    charge(capacity_for(transfers_.capacity(), t0 + pairs.size()),
           capacity_for(blocks_.capacity(), block_end), ops_.capacity());
  transfers_.resize(t0 + pairs.size());
  blocks_.resize(block_end);
  // Through plain pointers: the vectors' own members would be stored back at every element.
  Transfer* t = transfers_.data() + t0;
  Block* b = blocks_.data() + b0;
  const auto first = static_cast<std::uint32_t>(b0);
  bool to_everyone = true;  // [src, kEveryRank] is then both collectives' own message
  Rank most = most_rank_;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto [src, dst] = pairs[i];
    t[i] = {src, dst, first + static_cast<std::uint32_t>(i), 1};
    b[i] = direct_block(collective, src, dst);
    to_everyone &= dst == kEveryRank;
    most = std::max({most, src, dst});
  }
  own_ &= to_everyone ? kOwnBoth : own_bit(collective);
  most_rank_ = most;
}

void Phase::add(const BufferOp& op) {
  if (ops_.size() == ops_.capacity())
    charge(transfers_.capacity(), blocks_.capacity(),
           capacity_for(ops_.capacity(), ops_.size() + 1));
  ops_.push_back(op);
}

void Phase::clear() {
  label_.clear();
  transfers_.clear();
  blocks_.clear();
  ops_.clear();
  own_ = kOwnBoth;
  most_rank_ = 0;
}

void DirectPhase::fill(Phase& phase) const {
  std::string text(label);  // before clear(): the label may be the phase's own
  phase.clear();
  phase.set_label(std::move(text));
  phase.add_direct(transfers, collective);
}

DirectSink filling(PhaseSink out) {
  return [out = std::move(out), phase = Phase()](const DirectPhase& d) mutable {
    d.fill(phase);
    out(phase);
  };
}

void Phase::clear_transfers() {
  transfers_.clear();
  blocks_.clear();
  own_ = kOwnBoth;
  most_rank_ = 0;
}

void Phase::reserve(std::size_t transfers, std::size_t blocks) {
  charge(std::max<std::uint64_t>(transfers, transfers_.capacity()),
         std::max<std::uint64_t>(blocks, blocks_.capacity()), ops_.capacity());
  transfers_.reserve(transfers);
  blocks_.reserve(blocks);
}

namespace {

/// An alltoallv's part of transfer_problem, for a transfer of well-formed alltoall blocks.
std::optional<std::string> message_problem(const Phase& phase, const Transfer& t,
                                           const Traffic& traffic, Pieces pieces) {
  for (const Block& b : phase.blocks(t)) {
    const std::uint64_t count = traffic.count(b.origin, b.dest);
    const std::uint64_t n = pieces.of(count);
    if (b.part < n) continue;
    const std::string cell =
        "counts[" + std::to_string(b.origin) + "][" + std::to_string(b.dest) + "]";
    if (count == 0) return "block " + to_string(b) + ": " + cell + " is 0: no message, no block";
    return "block " + to_string(b) + ": " + cell + " is " + std::to_string(count) +
           " elements, " + std::to_string(n) + (n == 1 ? " piece" : " pieces") + " of at most " +
           std::to_string(pieces.piece_elements) + " (the last is piece " +
           std::to_string(n - 1) + ")";
  }
  return std::nullopt;
}

}  // namespace

bool transfers_well_formed(const Phase& phase, Collective collective, Rank ranks,
                           std::uint32_t parts) {
  // Largest and smallest fields, then one comparison each: reductions without a branch per
  // element, which the compiler vectorizes. Ranks are below kEveryRank, so an alltoall block's
  // dest < ranks excludes it too; an allgather's dest is kEveryRank exactly.
  Rank most_rank = 0;
  if (phase.carries_own_messages(collective) && parts > 0)
    // Every block is [src, dst] (or [src]), part 0, one a transfer: the ranks say it all, and
    // the phase kept the largest as it was built.
    return phase.empty() || phase.most_rank() < ranks;
  std::uint32_t fewest_blocks = std::numeric_limits<std::uint32_t>::max();
  for (const Transfer& t : phase.transfers()) {
    most_rank = std::max({most_rank, t.src, t.dst});
    fewest_blocks = std::min(fewest_blocks, t.block_count);
  }
  Rank most_origin = 0, most_dest = 0, least_dest = kEveryRank;
  std::uint32_t most_part = 0;
  for (const Block& b : phase.blocks()) {
    most_origin = std::max(most_origin, b.origin);
    most_dest = std::max(most_dest, b.dest);
    least_dest = std::min(least_dest, b.dest);
    most_part = std::max(most_part, b.part);
  }
  const bool dests = collective == Collective::alltoall
                         ? phase.blocks().empty() || most_dest < ranks
                         : phase.blocks().empty() || least_dest == kEveryRank;
  return (phase.empty() || (most_rank < ranks && fewest_blocks != 0)) &&
         (phase.blocks().empty() || (most_origin < ranks && most_part < parts)) && dests;
}

std::optional<std::string> transfer_problem(const Phase& phase, const Transfer& t,
                                            Collective collective, Rank ranks,
                                            std::uint32_t parts, const Traffic* traffic,
                                            Pieces pieces) {
  if (t.src >= ranks || t.dst >= ranks)
    return "rank " + std::to_string(std::max(t.src, t.dst)) +
           " does not exist (ranks: " + std::to_string(ranks) + ")";
  if (t.block_count == 0) return "carries no block";
  for (const Block& b : phase.blocks(t)) {
    const bool ok = b.origin < ranks && b.part < parts &&
                    (collective == Collective::alltoall ? b.dest != kEveryRank && b.dest < ranks
                                                        : b.dest == kEveryRank);
    if (!ok) {
      const std::string part = "part < " + std::to_string(parts) + "]";
      std::string shape = parts > 1 ? "[origin] or [origin, null, " + part : "[origin]";
      if (collective == Collective::alltoall)
        shape = parts > 1 ? "[origin, destination, " + part : "[origin, destination]";
      return "block " + to_string(b) + " is not a block of an " +
             std::string(to_string(collective)) + " over " + std::to_string(ranks) + " ranks (" +
             shape + ")";
    }
  }
  if (traffic) return message_problem(phase, t, *traffic, pieces);
  return std::nullopt;
}

std::string_view ScheduleHeader::collective_name() const {
  return traffic ? "alltoallv" : to_string(collective);
}

PhaseSink collect_into(std::vector<Phase>& phases) {
  return [&phases](const Phase& p) { phases.push_back(p); };
}

std::optional<std::uint64_t> held_table_bytes(const ScheduleHeader& header) {
  const std::uint64_t p = header.ranks();
  return checked_mul(checked_mul(p * (p == 0 ? 0 : p - 1), header.parts),
                     sizeof(Transfer) + sizeof(Block));
}

std::ostream& operator<<(std::ostream& os, Collective c) { return os << to_string(c); }

std::ostream& operator<<(std::ostream& os, const Block& b) {
  if (b.dest == kEveryRank)  // as a file writes it: part 0 is the contribution itself
    return b.part == 0 ? os << '[' << b.origin << ']'
                       : os << '[' << b.origin << ",null," << b.part << ']';
  os << '[' << b.origin << ',' << b.dest;
  if (b.part > 0) os << ',' << b.part;
  return os << ']';
}

std::string to_string(const Block& b) {
  std::ostringstream os;
  os << b;
  return os.str();
}

std::string describe_transfer(const Phase& phase, const Transfer& t, Collective c) {
  std::ostringstream os;
  os << t.src << " -> " << t.dst;
  const auto blocks = phase.blocks(t);
  if (!(blocks.size() == 1 && blocks[0] == direct_block(c, t.src, t.dst)))
    for (const Block& b : blocks) os << ' ' << b;
  return os.str();
}

std::ostream& operator<<(std::ostream& os, const Phase& p) {
  os << "phase \"" << p.label() << "\":";
  for (const Transfer& t : p.transfers()) {
    os << ' ' << t.src << "->" << t.dst;
    for (const Block& b : p.blocks(t)) os << b;
  }
  return os;
}

std::ostream& operator<<(std::ostream& os, const Schedule& s) {
  os << s.header.algorithm << " (" << s.header.collective << ") on " << s.header.topology << ", "
     << s.phases.size() << " phases\n";
  for (const Phase& p : s.phases) os << "  " << p << '\n';
  return os;
}

}  // namespace phasecheck
