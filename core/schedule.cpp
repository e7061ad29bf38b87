#include "core/schedule.hpp"

#include <algorithm>
#include <ostream>
#include <sstream>

#include "core/error.hpp"

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

void Phase::add(Rank src, Rank dst, std::span<const Block> blocks) {
  transfers_.push_back({src, dst, static_cast<std::uint32_t>(blocks_.size()),
                        static_cast<std::uint32_t>(blocks.size())});
  blocks_.insert(blocks_.end(), blocks.begin(), blocks.end());
}

void Phase::clear() {
  label_.clear();
  transfers_.clear();
  blocks_.clear();
  ops_.clear();
}

void Phase::clear_transfers() {
  transfers_.clear();
  blocks_.clear();
}

void Phase::reserve(std::size_t transfers, std::size_t blocks) {
  transfers_.reserve(transfers);
  blocks_.reserve(blocks);
}

std::optional<std::string> transfer_problem(const Phase& phase, const Transfer& t,
                                            Collective collective, Rank ranks,
                                            std::uint32_t parts) {
  if (t.src >= ranks || t.dst >= ranks)
    return "rank " + std::to_string(std::max(t.src, t.dst)) +
           " does not exist (ranks: " + std::to_string(ranks) + ")";
  if (t.block_count == 0) return "carries no block";
  for (const Block& b : phase.blocks(t)) {
    const bool ok = b.origin < ranks && b.part < parts &&
                    (collective == Collective::alltoall ? b.dest != kEveryRank && b.dest < ranks
                                                        : b.dest == kEveryRank);
    if (!ok)
      return "block " + to_string(b) + " is not a block of an " +
             std::string(to_string(collective)) + " over " + std::to_string(ranks) + " ranks (" +
             (collective == Collective::alltoall
                  ? parts > 1 ? "[origin, destination, part < " + std::to_string(parts) + "]"
                              : std::string("[origin, destination]")
                  : std::string("[origin]")) +
             ")";
  }
  return std::nullopt;
}

PhaseSink collect_into(std::vector<Phase>& phases) {
  return [&phases](const Phase& p) { phases.push_back(p); };
}

std::ostream& operator<<(std::ostream& os, Collective c) { return os << to_string(c); }

std::ostream& operator<<(std::ostream& os, const Block& b) {
  if (b.dest == kEveryRank) return os << '[' << b.origin << ']';
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
