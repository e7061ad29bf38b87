#include "record/identify.hpp"

#include <algorithm>
#include <tuple>

#include "core/error.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::record {
namespace {

using Pair = std::pair<Rank, Rank>;
using Move = std::tuple<Rank, Rank, std::vector<Pair>>;  // src, dst, blocks carried
using Shape = std::vector<std::vector<Move>>;

/// The table as sets: what identify compares.
Shape shape(const Schedule& s) {
  Shape out;
  for (const Phase& phase : s.phases) {
    std::vector<Move> moves;
    for (const Transfer& t : phase.transfers()) {
      if (t.local()) continue;
      std::vector<Pair> blocks;
      for (const Block& b : phase.blocks(t)) blocks.emplace_back(b.origin, b.dest);
      std::sort(blocks.begin(), blocks.end());
      blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
      moves.emplace_back(t.src, t.dst, std::move(blocks));
    }
    if (moves.empty()) continue;
    std::sort(moves.begin(), moves.end());
    out.push_back(std::move(moves));
  }
  return out;
}

/// Whether the phase moves anything between ranks (what shape() keeps).
bool communicates(const Phase& phase) {
  for (const Transfer& t : phase.transfers())
    if (!t.local() && t.block_count > 0) return true;
  return false;
}

/// `recorded` renumbered after `registered` (same shape): its communicating phases in order,
/// an empty phase for each of the registered table's phases that does not communicate.
Schedule align(const Schedule& recorded, const Schedule& registered) {
  Schedule out;
  out.header = recorded.header;
  std::size_t next = 0;
  for (const Phase& phase : registered.phases) {
    if (!communicates(phase)) {
      out.phases.emplace_back(phase.label());
      continue;
    }
    while (!communicates(recorded.phases[next])) ++next;
    out.phases.push_back(recorded.phases[next++]);
  }
  return out;
}

}  // namespace

std::optional<Identified> identify(const Schedule& recorded, std::string_view prefer) {
  const Shape target = shape(recorded);
  const Rank p = recorded.header.ranks();
  std::vector<const schedules::Algorithm*> order;
  for (std::size_t at = 0; at < prefer.size();) {
    const std::size_t comma = std::min(prefer.find(',', at), prefer.size());
    if (const auto* a = schedules::find_algorithm(prefer.substr(at, comma - at))) order.push_back(a);
    at = comma + 1;
  }
  for (const schedules::Algorithm& a : schedules::algorithms()) order.push_back(&a);
  for (const schedules::Algorithm* candidate : order) {
    const schedules::Algorithm& a = *candidate;
    Parameters parameters;
    parameters.set("collective", recorded.header.collective == Collective::alltoall ? "alltoall"
                                                                                      : "allgather");
    try {
      const Schedule registered = schedules::generate(a, FullyConnected(p, 1), parameters);
      if (shape(registered) == target) return Identified{std::string(a.name), align(recorded, registered)};
    } catch (const InputError&) {
      // The algorithm does not apply to this collective or this p: not a candidate.
    }
  }
  return std::nullopt;
}

}  // namespace phasecheck::record
