#include "properties/naive.hpp"

#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace phasecheck::properties {
namespace {

using Held = std::tuple<Rank, Rank, Rank, std::uint32_t>;  // rank, origin, dest, part

std::string block_name(Rank origin, Rank dest, std::uint32_t part) {
  return to_string(Block{origin, dest, part});
}

}  // namespace

NaiveDelivery naive_delivery(const Schedule& s) {
  const Rank p = s.header.ranks();
  const bool alltoall = s.header.collective == Collective::alltoall;
  NaiveDelivery out;
  const auto found = [&out](std::string problem) {
    if (out.problem.empty()) out.problem = std::move(problem);
  };
  std::set<Held> held;
  for (Rank o = 0; o < p; ++o)
    for (std::uint32_t part = 0; part < s.header.parts; ++part) {
      if (alltoall)
        for (Rank d = 0; d < p; ++d) held.insert({o, o, d, part});
      else
        held.insert({o, o, kEveryRank, part});
    }
  for (std::size_t t = 0; t < s.phases.size(); ++t) {
    const Phase& ph = s.phases[t];
    std::vector<Held> arrivals;
    for (const Transfer& tr : ph.transfers())
      for (const Block& b : ph.blocks(tr)) {
        if (!held.count({tr.src, b.origin, b.dest, b.part})) {
          found("phase " + std::to_string(t) + ": rank " + std::to_string(tr.src) + " sends " +
                to_string(b) + " without holding it");
          continue;
        }
        if (tr.src != tr.dst) arrivals.push_back({tr.dst, b.origin, b.dest, b.part});
      }
    for (const auto& a : arrivals) {
      const auto& [r, o, d, part] = a;
      const bool needs = !alltoall || r == d;
      if (!held.insert(a).second && needs)  // a second arrival where it is needed
        found("phase " + std::to_string(t) + ": " + block_name(o, d, part) +
              " arrives again at rank " + std::to_string(r));
    }
  }
  for (Rank o = 0; o < p; ++o)
    for (Rank d = 0; d < p; ++d) {
      if (o == d) continue;
      bool every_part = true;
      for (std::uint32_t part = 0; part < s.header.parts; ++part)
        if (!held.count({d, o, alltoall ? d : kEveryRank, part})) {
          found(block_name(o, alltoall ? d : kEveryRank, part) + " never reaches rank " +
                std::to_string(d));
          every_part = false;
        }
      if (every_part) out.delivered.insert({o, d});
    }
  return out;
}

namespace {

bool naive_contention_free(const Schedule& s, const Topology& model) {
  for (const Phase& ph : s.phases) {
    std::vector<const Transfer*> moving;
    for (const Transfer& t : ph.transfers())
      if (t.src != t.dst) moving.push_back(&t);
    if (const auto* f = std::get_if<FullyConnected>(&model)) {
      std::map<Rank, Rank> out, in;
      for (const Transfer* t : moving)
        if (++out[t->src] > f->ports || ++in[t->dst] > f->ports) return false;
    } else if (const auto* c = std::get_if<Cluster>(&model)) {
      std::map<std::uint32_t, std::vector<const Transfer*>> by_node;
      for (const Transfer* t : moving) {
        by_node[c->node_of(t->src)].push_back(t);
        if (c->node_of(t->dst) != c->node_of(t->src)) by_node[c->node_of(t->dst)].push_back(t);
      }
      for (const auto& [node, list] : by_node) {
        if (list.size() == 1) continue;
        const bool exchange = list.size() == 2 && list[0]->src == list[1]->dst &&
                              list[0]->dst == list[1]->src &&
                              c->node_of(list[0]->src) != c->node_of(list[0]->dst);
        if (!exchange) return false;
      }
    } else {
      std::map<LinkId, int> uses;
      for (const Transfer* t : moving)
        for_each_link(model, t->src, t->dst, [&](LinkId l) { ++uses[l]; });
      for (const auto& [link, n] : uses)
        if (n > static_cast<int>(link_capacity(model, link))) return false;
    }
  }
  return true;
}

/// The second simulation of a buffer program, from the semantics of core/buffers.hpp: per rank
/// and buffer a vector of slots, each holding a chunk or nothing; every op reads the slots as they
/// were at the phase's start and its writes land at the end. Stops at the first problem. The
/// sends of each phase, one transfer per pair, form the table its contention is counted on.
NaiveVerdict naive_program(const Schedule& s, const Topology& model) {
  const ScheduleHeader& h = s.header;
  const BufferLayout& layout = *h.buffers;
  const Rank p = h.ranks();
  const std::uint32_t c = layout.chunks;
  const bool alltoall = h.collective == Collective::alltoall;
  struct Cell {
    std::optional<Block> chunk;
    std::size_t written = 0;  // phase + 1 of its last write
  };
  // slots[r][b][i]: slot i of buffer b (input, output, scratch) of rank r.
  std::vector<std::array<std::vector<Cell>, 3>> slots(p);
  for (Rank r = 0; r < p; ++r)
    for (Buffer b : kBuffers) slots[r][static_cast<int>(b)].resize(layout.size(b));
  const auto cell = [&](Rank r, Buffer b, std::uint32_t i) -> Cell& {
    return slots[r][static_cast<int>(b)][i];
  };
  const auto slot_name = [](Rank r, Buffer b, std::uint64_t i) {
    return "rank " + std::to_string(r) + " " + std::string(to_string(b)) + "[" + std::to_string(i) +
           "]";
  };
  // Whether rank r has chunk (o, _, k) that it needs (alltoall: r is its destination), from the
  // start or by an earlier arrival: [(r * p + o) * c + k].
  std::vector<bool> has(std::size_t{p} * p * c, false);
  for (Rank r = 0; r < p; ++r)
    for (std::uint32_t k = 0; k < c; ++k) {
      has[(std::size_t{r} * p + r) * c + k] = true;
      if (alltoall) {  // in place, the output starts as the input would
        const Buffer start = layout.inplace ? Buffer::output : Buffer::input;
        for (Rank d = 0; d < p; ++d) cell(r, start, d * c + k).chunk = Block{r, d, k};
      } else if (layout.inplace) {
        cell(r, Buffer::output, r * c + k).chunk = Block{r, kEveryRank, k};
      } else {
        cell(r, Buffer::input, k).chunk = Block{r, kEveryRank, k};
      }
    }

  NaiveVerdict v{true, true, true, {}};
  const auto wrong = [&](bool NaiveVerdict::*what, std::string problem) {
    v.*what = false;
    v.problem = std::move(problem);
    return v;
  };
  ScheduleHeader table_header = h;
  table_header.buffers.reset();
  Schedule sends{table_header, {}};
  struct Write {
    Rank rank;
    Slot to;
    Block chunk;
  };
  std::vector<Write> writes;
  for (std::size_t t = 0; t < s.phases.size(); ++t) {
    const auto at = [t](std::size_t i) {
      return "phase " + std::to_string(t) + ", op " + std::to_string(i);
    };
    writes.clear();
    std::vector<std::pair<Rank, Rank>> pairs;  // in the order of their first send
    std::map<std::pair<Rank, Rank>, std::vector<Block>> moved;
    const auto ops = s.phases[t].ops();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const BufferOp& op = ops[i];
      for (std::uint32_t j = 0; j < op.count; ++j) {
        const std::uint64_t from = std::uint64_t{op.from.index} + j,
                            to = std::uint64_t{op.to.index} + j;
        if (from >= layout.size(op.from.buffer))
          return wrong(&NaiveVerdict::placed,
                       at(i) + " reads beyond: " + slot_name(op.src, op.from.buffer, from));
        if (to >= layout.size(op.to.buffer))
          return wrong(&NaiveVerdict::placed,
                       at(i) + " writes beyond: " + slot_name(op.dst, op.to.buffer, to));
        if (op.to.buffer == Buffer::input)
          return wrong(&NaiveVerdict::placed,
                       at(i) + " writes the input: " + slot_name(op.dst, op.to.buffer, to));
        const std::optional<Block> chunk =
            cell(op.src, op.from.buffer, static_cast<std::uint32_t>(from)).chunk;
        if (!chunk)
          return wrong(&NaiveVerdict::placed,
                       at(i) + " reads an empty slot: " + slot_name(op.src, op.from.buffer, from));
        writes.push_back({op.dst, {op.to.buffer, static_cast<std::uint32_t>(to)}, *chunk});
        if (op.src == op.dst) continue;
        auto [sent, added] = moved.try_emplace({op.src, op.dst});
        if (added) pairs.push_back({op.src, op.dst});
        sent->second.push_back(*chunk);
        if (alltoall && op.dst != chunk->dest) continue;  // a relay copy: not needed there
        const std::size_t k = (std::size_t{op.dst} * p + chunk->origin) * c + chunk->part;
        if (has[k])
          return wrong(&NaiveVerdict::delivered, at(i) + ": " + chunk_name(*chunk) +
                                                     " arrives again at rank " +
                                                     std::to_string(op.dst));
        has[k] = true;
      }
    }
    for (const Write& w : writes) {
      Cell& x = cell(w.rank, w.to.buffer, w.to.index);
      if (x.written == t + 1)
        return wrong(&NaiveVerdict::placed, "phase " + std::to_string(t) + ": " +
                                                slot_name(w.rank, w.to.buffer, w.to.index) +
                                                " is written twice");
      x.written = t + 1;
      x.chunk = w.chunk;
    }
    Phase table;
    for (const auto& pair : pairs) table.add(pair.first, pair.second, moved[pair]);
    sends.phases.push_back(std::move(table));
  }
  for (Rank r = 0; r < p; ++r)
    for (std::uint32_t i = 0; i < p * c; ++i) {
      const Block want{i / c, alltoall ? r : kEveryRank, i % c};
      const std::optional<Block>& got = cell(r, Buffer::output, i).chunk;
      if (got != want)
        return wrong(&NaiveVerdict::placed, slot_name(r, Buffer::output, i) + " holds " +
                                                (got ? chunk_name(*got) : "nothing") +
                                                " at the end, not " + chunk_name(want));
    }
  v.contention_free = naive_contention_free(sends, model);
  return v;
}

}  // namespace

NaiveVerdict naive_verdict(const Schedule& schedule, const Topology& model) {
  if (schedule.header.buffers) return naive_program(schedule, model);
  NaiveVerdict v;
  v.problem = naive_delivery(schedule).problem;
  v.delivered = v.problem.empty();
  v.contention_free = naive_contention_free(schedule, model);
  return v;
}

}  // namespace phasecheck::properties
