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
/// an empty phase for each of the registered table's phases that does not communicate; every
/// phase labelled "step i" by its new index. `moved_to[t]` is recorded phase t's new index (a
/// phase of handshakes only goes with the communicating phase before it).
Schedule align(Schedule recorded, const Schedule& registered, std::vector<std::uint32_t>& moved_to) {
  Schedule out;
  out.header = recorded.header;
  moved_to.assign(recorded.phases.size(), 0);
  std::size_t next = 0;
  for (const Phase& phase : registered.phases) {
    const auto index = static_cast<std::uint32_t>(out.phases.size());
    if (!communicates(phase)) {
      out.phases.emplace_back();
    } else {
      while (!communicates(recorded.phases[next])) moved_to[next++] = index > 0 ? index - 1 : 0;
      moved_to[next] = index;
      out.phases.push_back(std::move(recorded.phases[next++]));
    }
    out.phases.back().set_label("step " + std::to_string(index));
  }
  for (; next < recorded.phases.size(); ++next)
    moved_to[next] = out.phases.empty() ? 0 : static_cast<std::uint32_t>(out.phases.size() - 1);
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
      if (shape(registered) == target) {
        Identified found{std::string(a.name), {}, {}};
        found.aligned = align(recorded, registered, found.moved_to);
        return found;
      }
    } catch (const InputError&) {
      // The algorithm does not apply to this collective or this p: not a candidate.
    }
  }
  return std::nullopt;
}

}  // namespace phasecheck::record
