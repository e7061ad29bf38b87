#include "mutate.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <tuple>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::properties {
namespace {

using Held = std::tuple<Rank, Rank, Rank, std::uint32_t>;  // rank, origin, dest, part

std::string block_name(Rank origin, Rank dest, std::uint32_t part) {
  return to_string(Block{origin, dest, part});
}

/// The first delivery problem of a table, "" when every block arrives exactly once.
std::string naive_delivery(const Schedule& s) {
  const Rank p = s.header.ranks();
  const bool alltoall = s.header.collective == Collective::alltoall;
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
        if (!held.count({tr.src, b.origin, b.dest, b.part}))
          return "phase " + std::to_string(t) + ": rank " + std::to_string(tr.src) + " sends " +
                 to_string(b) + " without holding it";
        if (tr.src != tr.dst) arrivals.push_back({tr.dst, b.origin, b.dest, b.part});
      }
    for (const auto& a : arrivals) {
      const auto& [r, o, d, part] = a;
      const bool needs = !alltoall || r == d;
      if (!held.insert(a).second && needs)  // a second arrival where it is needed
        return "phase " + std::to_string(t) + ": " + block_name(o, d, part) +
               " arrives again at rank " + std::to_string(r);
    }
  }
  for (Rank o = 0; o < p; ++o)
    for (Rank d = 0; d < p; ++d)
      for (std::uint32_t part = 0; part < s.header.parts; ++part)
        if (o != d && !held.count({d, o, alltoall ? d : kEveryRank, part}))
          return block_name(o, alltoall ? d : kEveryRank, part) + " never reaches rank " +
                 std::to_string(d);
  return {};
}

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
      if (alltoall) {
        for (Rank d = 0; d < p; ++d) cell(r, Buffer::input, d * c + k).chunk = Block{r, d, k};
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

/// A copy of `phase` transformed transfer by transfer: `edit(i, src, dst, blocks)` may change
/// them and returns how many copies to keep (0 drops it, 2 duplicates it).
template <class Edit>
Phase rebuilt(const Phase& phase, Edit&& edit) {
  Phase out{std::string(phase.label())};
  for (std::size_t i = 0; i < phase.size(); ++i) {
    const Transfer& t = phase[i];
    Rank src = t.src, dst = t.dst;
    const auto b = phase.blocks(t);
    std::vector<Block> blocks(b.begin(), b.end());
    const int copies = edit(i, src, dst, blocks);
    for (int k = 0; k < copies; ++k) out.add(src, dst, blocks);
  }
  return out;
}

/// Counts one mutant: the naive method's verdict against the checkers'.
void judge(MutationClass& mc, const Schedule& m, const Topology& model, const Claims& claims,
           bool contention_counts, const std::string& fault) {
  ++mc.mutants;
  const NaiveVerdict naive = naive_verdict(m, model);
  const bool valid = naive.valid(contention_counts);
  mc.invalid += !valid;
  const auto defect = [&](const std::string& what) {
    if (mc.example.empty())
      mc.example = fault + ": " + what + " (naive: " +
                   (valid                   ? std::string("valid")
                    : naive.problem.empty() ? "contention"
                                            : naive.problem) +
                   ")";
  };
  verify::Report r;
  try {
    r = verify::verify(m, model, claims);
  } catch (const InputError& e) {
    // Malformed (a redirected rank, say): rejected before any check ran.
    mc.caught += !valid;
    mc.over_strict += valid;
    if (valid) defect(std::string("refused: ") + e.what());
    return;
  }
  const bool accepted = (!m.header.buffers || r.passed(CheckId::placement)) && r.passed(CheckId::delivery) &&
                        (!contention_counts || r.passed(CheckId::contention));
  if (!valid) {
    accepted ? ++mc.missed : ++mc.caught;
    if (accepted) defect("accepted by the checkers");
  } else if (!accepted) {
    ++mc.over_strict;
    defect("rejected: " + r.broken_claims(contention_counts));
  } else if (r.verdict() != verify::Verdict::pass) {
    ++mc.claims_only;
  }
}

MutationReport mutate_table(const Schedule& original, const Topology& model,
                            std::uint32_t per_class, std::uint64_t seed, const Claims& claims) {
  const Rank p = original.header.ranks();
  std::size_t transfers = 0;
  for (const Phase& ph : original.phases) transfers += ph.size();
  if (transfers == 0) throw InputError("mutate: the schedule has no transfer to mutate");

  MutationReport report;
  report.contention_counts = naive_contention_free(original, model);

  std::mt19937_64 rng(seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  // A random transfer: (phase, index), by position in the whole table.
  const auto any_transfer = [&] {
    std::size_t k = pick(transfers);
    for (std::size_t ph = 0;; ++ph) {
      if (k < original.phases[ph].size()) return std::pair{ph, k};
      k -= original.phases[ph].size();
    }
  };

  const char* names[] = {"drop a transfer",     "duplicate a transfer",   "move to another phase",
                         "redirect a transfer", "drop a forwarded block", "merge two phases"};
  for (int cls = 0; cls < 6; ++cls) {
    MutationClass mc{names[cls]};
    for (std::uint32_t n = 0; n < per_class; ++n) {
      Schedule m{original.header, original.phases};
      const auto [ph, at] = any_transfer();
      const auto only = [&, phase = ph, index = at](auto&& edit) {
        m.phases[phase] = rebuilt(original.phases[phase],
                                  [&](std::size_t i, Rank& s, Rank& d, std::vector<Block>& b) {
                                    return i == index ? edit(s, d, b) : 1;
                                  });
      };
      bool made = true;
      std::string fault = "phase " + std::to_string(ph) + ", transfer " + std::to_string(at);
      switch (cls) {
        case 0:
          only([](Rank&, Rank&, std::vector<Block>&) { return 0; });
          break;
        case 1:
          only([](Rank&, Rank&, std::vector<Block>&) { return 2; });
          break;
        case 2: {
          if (original.phases.size() < 2) {
            made = false;
            break;
          }
          std::size_t to = pick(original.phases.size() - 1);
          if (to >= ph) ++to;
          const Transfer& t = original.phases[ph][at];
          const auto b = original.phases[ph].blocks(t);
          only([](Rank&, Rank&, std::vector<Block>&) { return 0; });
          m.phases[to].add(t.src, t.dst, std::vector<Block>(b.begin(), b.end()));
          fault += " moved to phase " + std::to_string(to);
          break;
        }
        case 3:
          only([&](Rank&, Rank& d, std::vector<Block>&) {
            d = static_cast<Rank>((d + 1 + pick(std::max<Rank>(p - 1, 1))) % p);
            return 1;
          });
          break;
        case 4: {
          // A transfer with several blocks: lose one of them.
          std::vector<std::pair<std::size_t, std::size_t>> forwarded;
          for (std::size_t q = 0; q < original.phases.size(); ++q)
            for (std::size_t i = 0; i < original.phases[q].size(); ++i)
              if (original.phases[q][i].block_count > 1) forwarded.push_back({q, i});
          if (forwarded.empty()) {
            made = false;
            break;
          }
          const auto [q, i] = forwarded[pick(forwarded.size())];
          const std::size_t lose = pick(original.phases[q][i].block_count);
          m.phases[q] =
              rebuilt(original.phases[q], [&](std::size_t k, Rank&, Rank&, std::vector<Block>& b) {
                if (k == i) b.erase(b.begin() + static_cast<std::ptrdiff_t>(lose));
                return 1;
              });
          fault = "phase " + std::to_string(q) + ", transfer " + std::to_string(i) +
                  " loses block " + std::to_string(lose);
          break;
        }
        default: {
          if (original.phases.size() < 2) {
            made = false;
            break;
          }
          const std::size_t first = pick(original.phases.size() - 1);
          Phase merged = original.phases[first];
          for (const Transfer& t : original.phases[first + 1].transfers())
            merged.add(t.src, t.dst, original.phases[first + 1].blocks(t));
          m.phases[first] = merged;
          m.phases.erase(m.phases.begin() + static_cast<std::ptrdiff_t>(first) + 1);
          fault = "phases " + std::to_string(first) + " and " + std::to_string(first + 1);
        }
      }
      if (!made) break;
      judge(mc, m, model, claims, report.contention_counts, fault);
    }
    report.classes.push_back(mc);
  }
  return report;
}

// ---- Buffer programs ------------------------------------------------------------------------

/// One chunk an op moves: op `op` of a phase, its `offset`-th slot.
struct Unit {
  std::size_t op = 0;
  std::uint32_t offset = 0;
};

/// `ops` with every unit of `cut` (distinct) taken out of its op as an op of its own, in place:
/// the rest of that op stays in ranges, in order, so the program means the same. `at[k]`
/// receives the new position of cut[k].
std::vector<BufferOp> carve(std::span<const BufferOp> ops, const std::vector<Unit>& cut,
                            std::vector<std::size_t>& at) {
  at.assign(cut.size(), 0);
  std::vector<BufferOp> out;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::vector<std::pair<std::uint32_t, std::size_t>> here;  // offset, position in cut
    for (std::size_t k = 0; k < cut.size(); ++k)
      if (cut[k].op == i) here.push_back({cut[k].offset, k});
    std::sort(here.begin(), here.end());
    const BufferOp& op = ops[i];
    const auto piece = [&](std::uint32_t first, std::uint32_t count) {
      if (count == 0) return;
      BufferOp q = op;
      q.from.index += first;
      q.to.index += first;
      q.count = count;
      out.push_back(q);
    };
    std::uint32_t start = 0;
    for (const auto& [offset, k] : here) {
      piece(start, offset - start);
      at[k] = out.size();
      piece(offset, 1);
      start = offset + 1;
    }
    piece(start, op.count - start);
  }
  return out;
}

Phase with_ops(const Phase& phase, std::span<const BufferOp> ops) {
  Phase out{std::string(phase.label())};
  for (const BufferOp& op : ops) out.add(op);
  return out;
}

std::string unit_name(std::size_t phase, std::size_t op, const BufferOp& o, std::uint32_t offset) {
  BufferOp u = o;
  u.from.index += offset;
  u.to.index += offset;
  u.count = 1;
  return "phase " + std::to_string(phase) + ", op " + std::to_string(op) + " (" + describe_op(u) +
         ")";
}

MutationReport mutate_program(const Schedule& original, const Topology& model,
                              std::uint32_t per_class, std::uint64_t seed, const Claims& claims) {
  const Rank p = original.header.ranks();
  const BufferLayout& layout = *original.header.buffers;
  const std::uint32_t c = layout.chunks;
  const std::size_t phases = original.phases.size();

  // Where the faults can go: every op, every chunk an op moves, by kind.
  struct At {
    std::size_t phase;
    Unit unit;
  };
  std::vector<At> ops, sends, locals, send_units, wide, self_copies;
  std::vector<std::vector<At>> receivers;  // per (phase, receiving rank): its written slots
  for (std::size_t t = 0; t < phases; ++t) {
    const auto phase_ops = original.phases[t].ops();
    std::map<Rank, std::vector<At>> by_rank;
    for (std::size_t i = 0; i < phase_ops.size(); ++i) {
      const BufferOp& op = phase_ops[i];
      ops.push_back({t, {i, 0}});
      (op.local() ? locals : sends).push_back({t, {i, 0}});
      if (op.count > 1) wide.push_back({t, {i, 0}});
      // A local copy that writes the rank's own chunks into place: output slots r*c .. r*c+c-1.
      if (op.local() && op.to.buffer == Buffer::output &&
          std::uint64_t{op.to.index} < std::uint64_t{op.dst} * c + c &&
          std::uint64_t{op.to.index} + op.count > std::uint64_t{op.dst} * c)
        self_copies.push_back({t, {i, 0}});
      for (std::uint32_t j = 0; j < op.count; ++j) {
        if (!op.local()) send_units.push_back({t, {i, j}});
        by_rank[op.dst].push_back({t, {i, j}});
      }
    }
    for (auto& [rank, units] : by_rank)
      if (units.size() >= 2) receivers.push_back(std::move(units));
  }
  if (ops.empty()) throw InputError("mutate: the program has no op to mutate");

  MutationReport report;
  report.program = true;
  report.contention_counts = naive_program(original, model).contention_free;

  std::mt19937_64 rng(seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  const auto op_at = [&](const At& a) -> const BufferOp& {
    return original.phases[a.phase].ops()[a.unit.op];
  };
  const auto op_name = [&](const At& a) {
    const BufferOp& op = op_at(a);
    return "phase " + std::to_string(a.phase) + ", op " + std::to_string(a.unit.op) + " (" +
           describe_op(op) + ")";
  };

  const char* names[] = {
      // The placement faults.
      "swap two destination slots", "shift a rotation by one", "drop the self copy",
      "redirect a receive to scratch", "read the wrong slot", "double write in a phase",
      // The table faults, done on ops.
      "drop an op", "duplicate an op", "move an op to another phase", "redirect a send",
      "drop a chunk of an op", "merge two phases"};
  for (int cls = 0; cls < 12; ++cls) {
    MutationClass mc{names[cls]};
    for (std::uint32_t n = 0; n < per_class; ++n) {
      Schedule m = original;
      std::string fault;
      // Replaces phase t's ops by `edited`.
      const auto set_ops = [&](std::size_t t, const std::vector<BufferOp>& edited) {
        m.phases[t] = with_ops(original.phases[t], edited);
      };
      const auto ops_of = [&](std::size_t t) {
        const auto o = original.phases[t].ops();
        return std::vector<BufferOp>(o.begin(), o.end());
      };
      std::vector<std::size_t> at;
      bool made = true;
      switch (cls) {
        case 0: {  // two chunks land in each other's slots on one rank
          if (receivers.empty()) {
            made = false;
            break;
          }
          const auto& group = receivers[pick(receivers.size())];
          const std::size_t x = pick(group.size());
          std::size_t y = pick(group.size() - 1);
          if (y >= x) ++y;
          const std::size_t t = group[x].phase;
          auto edited = carve(original.phases[t].ops(), {group[x].unit, group[y].unit}, at);
          std::swap(edited[at[0]].to, edited[at[1]].to);
          set_ops(t, edited);
          fault = unit_name(t, group[x].unit.op, op_at(group[x]), group[x].unit.offset) + " and " +
                  unit_name(t, group[y].unit.op, op_at(group[y]), group[y].unit.offset);
          break;
        }
        case 1: {  // a local copy (a rotation) lands one slot further, modulo the buffer
          const auto& pool = locals.empty() ? sends : locals;
          const At a = pool[pick(pool.size())];
          const BufferOp& op = op_at(a);
          const std::uint32_t size = layout.size(op.to.buffer);
          if (size == 0) {  // the original already writes beyond it
            made = false;
            break;
          }
          auto edited = ops_of(a.phase);
          BufferOp shifted = op;
          shifted.to.index = static_cast<std::uint32_t>((std::uint64_t{op.to.index} + 1) % size);
          edited[a.unit.op] = shifted;
          if (std::uint64_t{shifted.to.index} + op.count > size) {  // it wraps around
            const std::uint32_t head = size - shifted.to.index;
            edited[a.unit.op].count = head;
            BufferOp tail = op;
            tail.from.index += head;
            tail.to.index = 0;
            tail.count = op.count - head;
            edited.insert(edited.begin() + static_cast<std::ptrdiff_t>(a.unit.op) + 1, tail);
          }
          set_ops(a.phase, edited);
          fault = op_name(a);
          break;
        }
        case 2: {  // the chunks a rank keeps never reach their output slots
          if (self_copies.empty()) {
            made = false;
            break;
          }
          const At a = self_copies[pick(self_copies.size())];
          const BufferOp& op = op_at(a);
          std::vector<Unit> own;
          for (std::uint32_t j = 0; j < op.count; ++j)
            if ((op.to.index + j) / c == op.dst) own.push_back({a.unit.op, j});
          auto edited = carve(original.phases[a.phase].ops(), own, at);
          std::sort(at.rbegin(), at.rend());
          for (std::size_t i : at) edited.erase(edited.begin() + static_cast<std::ptrdiff_t>(i));
          set_ops(a.phase, edited);
          fault = op_name(a) + ", rank " + std::to_string(op.dst) + "'s own chunks";
          break;
        }
        case 3: {  // a send lands in fresh scratch slots: declared, but not where it belongs
          if (sends.empty()) {
            made = false;
            break;
          }
          const At a = sends[pick(sends.size())];
          auto edited = ops_of(a.phase);
          BufferLayout grown = layout;
          edited[a.unit.op].to = {Buffer::scratch, layout.scratch};
          grown.scratch += edited[a.unit.op].count;
          m.header.buffers = grown;
          set_ops(a.phase, edited);
          fault = op_name(a) + " into scratch[" + std::to_string(layout.scratch) + "]";
          break;
        }
        case 4: {  // one chunk of a send is read one slot off
          if (send_units.empty()) {
            made = false;
            break;
          }
          const At a = send_units[pick(send_units.size())];
          auto edited = carve(original.phases[a.phase].ops(), {a.unit}, at);
          Slot& from = edited[at[0]].from;
          const bool down = from.index > 0 && pick(2) == 0;
          from.index = down ? from.index - 1 : from.index + 1;
          set_ops(a.phase, edited);
          fault =
              unit_name(a.phase, a.unit.op, op_at(a), a.unit.offset) + " reads " + to_string(from);
          break;
        }
        case 5: {  // some chunk of the phase is also written onto another op's target slot
          const At target = ops[pick(ops.size())];
          const std::size_t t = target.phase;
          const auto phase_ops = original.phases[t].ops();
          const BufferOp& w = phase_ops[target.unit.op];
          const std::uint32_t wj = static_cast<std::uint32_t>(pick(w.count));
          const BufferOp& u = phase_ops[pick(phase_ops.size())];
          const std::uint32_t uj = static_cast<std::uint32_t>(pick(u.count));
          BufferOp extra{
              u.src, w.dst, {u.from.buffer, u.from.index + uj}, {w.to.buffer, w.to.index + wj}, 1};
          auto edited = ops_of(t);
          edited.push_back(extra);
          set_ops(t, edited);
          fault = "phase " + std::to_string(t) + " adds " + describe_op(extra);
          break;
        }
        case 6: {
          const At a = ops[pick(ops.size())];
          auto edited = ops_of(a.phase);
          edited.erase(edited.begin() + static_cast<std::ptrdiff_t>(a.unit.op));
          set_ops(a.phase, edited);
          fault = op_name(a);
          break;
        }
        case 7: {
          const At a = ops[pick(ops.size())];
          auto edited = ops_of(a.phase);
          edited.insert(edited.begin() + static_cast<std::ptrdiff_t>(a.unit.op), op_at(a));
          set_ops(a.phase, edited);
          fault = op_name(a);
          break;
        }
        case 8: {
          if (phases < 2) {
            made = false;
            break;
          }
          const At a = ops[pick(ops.size())];
          std::size_t to = pick(phases - 1);
          if (to >= a.phase) ++to;
          auto edited = ops_of(a.phase);
          edited.erase(edited.begin() + static_cast<std::ptrdiff_t>(a.unit.op));
          set_ops(a.phase, edited);
          m.phases[to].add(op_at(a));
          fault = op_name(a) + " moved to phase " + std::to_string(to);
          break;
        }
        case 9: {
          if (sends.empty() || p < 2) {
            made = false;
            break;
          }
          const At a = sends[pick(sends.size())];
          auto edited = ops_of(a.phase);
          Rank& d = edited[a.unit.op].dst;
          d = static_cast<Rank>((d + 1 + pick(p - 1)) % p);
          set_ops(a.phase, edited);
          fault = op_name(a) + " to rank " + std::to_string(d);
          break;
        }
        case 10: {
          if (wide.empty()) {
            made = false;
            break;
          }
          const At w = wide[pick(wide.size())];
          const Unit lose{w.unit.op, static_cast<std::uint32_t>(pick(op_at(w).count))};
          auto edited = carve(original.phases[w.phase].ops(), {lose}, at);
          edited.erase(edited.begin() + static_cast<std::ptrdiff_t>(at[0]));
          set_ops(w.phase, edited);
          fault = unit_name(w.phase, lose.op, op_at(w), lose.offset);
          break;
        }
        default: {
          if (phases < 2) {
            made = false;
            break;
          }
          const std::size_t first = pick(phases - 1);
          for (const BufferOp& op : original.phases[first + 1].ops()) m.phases[first].add(op);
          m.phases.erase(m.phases.begin() + static_cast<std::ptrdiff_t>(first) + 1);
          fault = "phases " + std::to_string(first) + " and " + std::to_string(first + 1);
        }
      }
      if (!made) break;
      judge(mc, m, model, claims, report.contention_counts, fault);
    }
    report.classes.push_back(mc);
  }
  return report;
}

}  // namespace

NaiveVerdict naive_verdict(const Schedule& schedule, const Topology& model) {
  if (schedule.header.buffers) return naive_program(schedule, model);
  NaiveVerdict v;
  v.problem = naive_delivery(schedule);
  v.delivered = v.problem.empty();
  v.contention_free = naive_contention_free(schedule, model);
  return v;
}

bool MutationReport::perfect() const {
  for (const auto& c : classes)
    if (c.missed || c.over_strict) return false;
  return true;
}

MutationReport mutate(const Schedule& original, const Topology& model, std::uint32_t per_class,
                      std::uint64_t seed) {
  const Rank p = original.header.ranks();
  check_ranks(p, kMaxMutateRanks, "mutate",
              "each mutant is re-simulated naively; `verify` checks any size");
  const auto* algorithm = schedules::find_algorithm(original.header.algorithm);
  const Claims claims = algorithm ? algorithm->claims(original.header) : Claims{};
  return original.header.buffers ? mutate_program(original, model, per_class, seed, claims)
                                 : mutate_table(original, model, per_class, seed, claims);
}

}  // namespace phasecheck::properties
