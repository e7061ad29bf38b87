#include "mutate.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string_view>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::properties {
namespace {

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

/// A place in the original: a transfer of one phase (a table: unit.op is the transfer's index)
/// or an op's chunk (a program).
struct At {
  std::size_t phase = 0;
  Unit unit;
};

/// Where faults can go in the original, found once: the transfers of a table, the ops of a
/// program by kind and the chunks they move.
struct Sites {
  std::size_t transfers = 0;
  std::vector<At> forwarded;  // table: transfers with several blocks
  std::vector<At> ops, sends, locals, send_units, wide, self_copies;
  std::vector<std::vector<At>> receivers;  // per (phase, receiving rank): its written slots
};

Sites table_sites(const Schedule& original) {
  Sites s;
  for (std::size_t q = 0; q < original.phases.size(); ++q) {
    s.transfers += original.phases[q].size();
    for (std::size_t i = 0; i < original.phases[q].size(); ++i)
      if (original.phases[q][i].block_count > 1) s.forwarded.push_back({q, {i, 0}});
  }
  if (s.transfers == 0) throw InputError("mutate: the schedule has no transfer to mutate");
  return s;
}

Sites program_sites(const Schedule& original) {
  const std::uint32_t c = original.header.buffers->chunks;
  Sites s;
  for (std::size_t t = 0; t < original.phases.size(); ++t) {
    const auto phase_ops = original.phases[t].ops();
    std::map<Rank, std::vector<At>> by_rank;
    for (std::size_t i = 0; i < phase_ops.size(); ++i) {
      const BufferOp& op = phase_ops[i];
      s.ops.push_back({t, {i, 0}});
      (op.local() ? s.locals : s.sends).push_back({t, {i, 0}});
      if (op.count > 1) s.wide.push_back({t, {i, 0}});
      // A local copy that writes the rank's own chunks into place: output slots r*c .. r*c+c-1.
      if (op.local() && op.to.buffer == Buffer::output &&
          std::uint64_t{op.to.index} < std::uint64_t{op.dst} * c + c &&
          std::uint64_t{op.to.index} + op.count > std::uint64_t{op.dst} * c)
        s.self_copies.push_back({t, {i, 0}});
      for (std::uint32_t j = 0; j < op.count; ++j) {
        if (!op.local()) s.send_units.push_back({t, {i, j}});
        by_rank[op.dst].push_back({t, {i, j}});
      }
    }
    for (auto& [rank, units] : by_rank)
      if (units.size() >= 2) s.receivers.push_back(std::move(units));
  }
  if (s.ops.empty()) throw InputError("mutate: the program has no op to mutate");
  return s;
}

/// What a planting function works from, for one mutant: the original, where faults can go, the
/// seed's random numbers, and the mutant to edit (a copy of the original).
struct Planting {
  const Schedule& original;
  const Sites& sites;
  std::mt19937_64& rng;
  Schedule mutant;
  /// A table's mutant starts from a random transfer, drawn whether its class uses it or not:
  /// that keeps every seed's mutants what they were when the classes were a switch.
  At transfer;

  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng() % n); }
  std::size_t phases() const { return original.phases.size(); }
  Rank ranks() const { return original.header.ranks(); }
  const BufferOp& op_at(const At& a) const { return original.phases[a.phase].ops()[a.unit.op]; }
  std::string op_name(const At& a) const {
    return "phase " + std::to_string(a.phase) + ", op " + std::to_string(a.unit.op) + " (" +
           describe_op(op_at(a)) + ")";
  }
  std::vector<BufferOp> ops_of(std::size_t t) const {
    const auto o = original.phases[t].ops();
    return std::vector<BufferOp>(o.begin(), o.end());
  }
  /// Replaces phase t's ops in the mutant by `edited`.
  void set_ops(std::size_t t, std::span<const BufferOp> edited) {
    mutant.phases[t] = with_ops(original.phases[t], edited);
  }
  /// The drawn transfer edited in place: `edit(src, dst, blocks)` returns how many copies to keep.
  template <class Edit>
  void edit_transfer(Edit&& edit) {
    const auto [phase, unit] = transfer;
    mutant.phases[phase] = rebuilt(original.phases[phase],
                                   [&](std::size_t i, Rank& s, Rank& d, std::vector<Block>& b) {
                                     return i == unit.op ? edit(s, d, b) : 1;
                                   });
  }
  std::string transfer_name() const {
    return "phase " + std::to_string(transfer.phase) + ", transfer " +
           std::to_string(transfer.unit.op);
  }
};

/// The fault planted: its description in the report, or nothing when the original has no place
/// for it (a single phase, no forwarded block, no self copy), which ends its class at 0 mutants.
using Fault = std::optional<std::string>;

// ---- Phase tables (formats 1 and 2): faults in the transfers --------------------------------

Fault drop_transfer(Planting& at) {
  at.edit_transfer([](Rank&, Rank&, std::vector<Block>&) { return 0; });
  return at.transfer_name();
}

Fault duplicate_transfer(Planting& at) {
  at.edit_transfer([](Rank&, Rank&, std::vector<Block>&) { return 2; });
  return at.transfer_name();
}

Fault move_transfer(Planting& at) {
  if (at.phases() < 2) return {};
  const auto [ph, unit] = at.transfer;
  std::size_t to = at.pick(at.phases() - 1);
  if (to >= ph) ++to;
  const Transfer& t = at.original.phases[ph][unit.op];
  const auto b = at.original.phases[ph].blocks(t);
  at.edit_transfer([](Rank&, Rank&, std::vector<Block>&) { return 0; });
  at.mutant.phases[to].add(t.src, t.dst, std::vector<Block>(b.begin(), b.end()));
  return at.transfer_name() + " moved to phase " + std::to_string(to);
}

Fault redirect_transfer(Planting& at) {
  const Rank p = at.ranks();
  at.edit_transfer([&](Rank&, Rank& d, std::vector<Block>&) {
    d = static_cast<Rank>((d + 1 + at.pick(std::max<Rank>(p - 1, 1))) % p);
    return 1;
  });
  return at.transfer_name();
}

Fault drop_forwarded_block(Planting& at) {
  // A transfer with several blocks: lose one of them.
  if (at.sites.forwarded.empty()) return {};
  const auto [q, unit] = at.sites.forwarded[at.pick(at.sites.forwarded.size())];
  const std::size_t i = unit.op;
  const std::size_t lose = at.pick(at.original.phases[q][i].block_count);
  at.mutant.phases[q] =
      rebuilt(at.original.phases[q], [&](std::size_t k, Rank&, Rank&, std::vector<Block>& b) {
        if (k == i) b.erase(b.begin() + static_cast<std::ptrdiff_t>(lose));
        return 1;
      });
  return "phase " + std::to_string(q) + ", transfer " + std::to_string(i) + " loses block " +
         std::to_string(lose);
}

Fault merge_table_phases(Planting& at) {
  if (at.phases() < 2) return {};
  const std::size_t first = at.pick(at.phases() - 1);
  const Phase& next = at.original.phases[first + 1];
  Phase merged = at.original.phases[first];
  for (const Transfer& t : next.transfers()) merged.add(t.src, t.dst, next.blocks(t));
  at.mutant.phases[first] = merged;
  at.mutant.phases.erase(at.mutant.phases.begin() + static_cast<std::ptrdiff_t>(first) + 1);
  return "phases " + std::to_string(first) + " and " + std::to_string(first + 1);
}

// ---- Buffer programs (format 3): placement faults in the ops --------------------------------

Fault swap_destinations(Planting& at) {
  // Two chunks land in each other's slots on one rank.
  if (at.sites.receivers.empty()) return {};
  const auto& group = at.sites.receivers[at.pick(at.sites.receivers.size())];
  const std::size_t x = at.pick(group.size());
  std::size_t y = at.pick(group.size() - 1);
  if (y >= x) ++y;
  const std::size_t t = group[x].phase;
  std::vector<std::size_t> placed;
  auto edited = carve(at.original.phases[t].ops(), {group[x].unit, group[y].unit}, placed);
  std::swap(edited[placed[0]].to, edited[placed[1]].to);
  at.set_ops(t, edited);
  return unit_name(t, group[x].unit.op, at.op_at(group[x]), group[x].unit.offset) + " and " +
         unit_name(t, group[y].unit.op, at.op_at(group[y]), group[y].unit.offset);
}

Fault shift_rotation(Planting& at) {
  // A local copy (a rotation) lands one slot further, modulo the buffer.
  const auto& pool = at.sites.locals.empty() ? at.sites.sends : at.sites.locals;
  const At a = pool[at.pick(pool.size())];
  const BufferOp& op = at.op_at(a);
  const std::uint32_t size = at.original.header.buffers->size(op.to.buffer);
  if (size == 0) return {};  // the original already writes beyond it
  auto edited = at.ops_of(a.phase);
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
  at.set_ops(a.phase, edited);
  return at.op_name(a);
}

Fault drop_self_copy(Planting& at) {
  // The chunks a rank keeps never reach their output slots.
  if (at.sites.self_copies.empty()) return {};
  const std::uint32_t c = at.original.header.buffers->chunks;
  const At a = at.sites.self_copies[at.pick(at.sites.self_copies.size())];
  const BufferOp& op = at.op_at(a);
  std::vector<Unit> own;
  for (std::uint32_t j = 0; j < op.count; ++j)
    if ((op.to.index + j) / c == op.dst) own.push_back({a.unit.op, j});
  std::vector<std::size_t> placed;
  auto edited = carve(at.original.phases[a.phase].ops(), own, placed);
  std::sort(placed.rbegin(), placed.rend());
  for (std::size_t i : placed) edited.erase(edited.begin() + static_cast<std::ptrdiff_t>(i));
  at.set_ops(a.phase, edited);
  return at.op_name(a) + ", rank " + std::to_string(op.dst) + "'s own chunks";
}

Fault redirect_to_scratch(Planting& at) {
  // A send lands in fresh scratch slots: declared, but not where it belongs.
  if (at.sites.sends.empty()) return {};
  const BufferLayout& layout = *at.original.header.buffers;
  const At a = at.sites.sends[at.pick(at.sites.sends.size())];
  auto edited = at.ops_of(a.phase);
  BufferLayout grown = layout;
  edited[a.unit.op].to = {Buffer::scratch, layout.scratch};
  grown.scratch += edited[a.unit.op].count;
  at.mutant.header.buffers = grown;
  at.set_ops(a.phase, edited);
  return at.op_name(a) + " into scratch[" + std::to_string(layout.scratch) + "]";
}

Fault read_wrong_slot(Planting& at) {
  // One chunk of a send is read one slot off.
  if (at.sites.send_units.empty()) return {};
  const At a = at.sites.send_units[at.pick(at.sites.send_units.size())];
  std::vector<std::size_t> placed;
  auto edited = carve(at.original.phases[a.phase].ops(), {a.unit}, placed);
  Slot& from = edited[placed[0]].from;
  const bool down = from.index > 0 && at.pick(2) == 0;
  from.index = down ? from.index - 1 : from.index + 1;
  at.set_ops(a.phase, edited);
  return unit_name(a.phase, a.unit.op, at.op_at(a), a.unit.offset) + " reads " + to_string(from);
}

Fault double_write(Planting& at) {
  // Some chunk of the phase is also written onto another op's target slot.
  const At target = at.sites.ops[at.pick(at.sites.ops.size())];
  const std::size_t t = target.phase;
  const auto phase_ops = at.original.phases[t].ops();
  const BufferOp& w = phase_ops[target.unit.op];
  const std::uint32_t wj = static_cast<std::uint32_t>(at.pick(w.count));
  const BufferOp& u = phase_ops[at.pick(phase_ops.size())];
  const std::uint32_t uj = static_cast<std::uint32_t>(at.pick(u.count));
  const BufferOp extra{
      u.src, w.dst, {u.from.buffer, u.from.index + uj}, {w.to.buffer, w.to.index + wj}, 1};
  auto edited = at.ops_of(t);
  edited.push_back(extra);
  at.set_ops(t, edited);
  return "phase " + std::to_string(t) + " adds " + describe_op(extra);
}

// ---- Buffer programs: the table faults, done on ops -----------------------------------------

Fault drop_op(Planting& at) {
  const At a = at.sites.ops[at.pick(at.sites.ops.size())];
  auto edited = at.ops_of(a.phase);
  edited.erase(edited.begin() + static_cast<std::ptrdiff_t>(a.unit.op));
  at.set_ops(a.phase, edited);
  return at.op_name(a);
}

Fault duplicate_op(Planting& at) {
  const At a = at.sites.ops[at.pick(at.sites.ops.size())];
  auto edited = at.ops_of(a.phase);
  edited.insert(edited.begin() + static_cast<std::ptrdiff_t>(a.unit.op), at.op_at(a));
  at.set_ops(a.phase, edited);
  return at.op_name(a);
}

Fault move_op(Planting& at) {
  if (at.phases() < 2) return {};
  const At a = at.sites.ops[at.pick(at.sites.ops.size())];
  std::size_t to = at.pick(at.phases() - 1);
  if (to >= a.phase) ++to;
  auto edited = at.ops_of(a.phase);
  edited.erase(edited.begin() + static_cast<std::ptrdiff_t>(a.unit.op));
  at.set_ops(a.phase, edited);
  at.mutant.phases[to].add(at.op_at(a));
  return at.op_name(a) + " moved to phase " + std::to_string(to);
}

Fault redirect_send(Planting& at) {
  const Rank p = at.ranks();
  if (at.sites.sends.empty() || p < 2) return {};
  const At a = at.sites.sends[at.pick(at.sites.sends.size())];
  auto edited = at.ops_of(a.phase);
  Rank& d = edited[a.unit.op].dst;
  d = static_cast<Rank>((d + 1 + at.pick(p - 1)) % p);
  at.set_ops(a.phase, edited);
  return at.op_name(a) + " to rank " + std::to_string(d);
}

Fault drop_chunk(Planting& at) {
  if (at.sites.wide.empty()) return {};
  const At w = at.sites.wide[at.pick(at.sites.wide.size())];
  const Unit lose{w.unit.op, static_cast<std::uint32_t>(at.pick(at.op_at(w).count))};
  std::vector<std::size_t> placed;
  auto edited = carve(at.original.phases[w.phase].ops(), {lose}, placed);
  edited.erase(edited.begin() + static_cast<std::ptrdiff_t>(placed[0]));
  at.set_ops(w.phase, edited);
  return unit_name(w.phase, lose.op, at.op_at(w), lose.offset);
}

Fault merge_program_phases(Planting& at) {
  if (at.phases() < 2) return {};
  const std::size_t first = at.pick(at.phases() - 1);
  for (const BufferOp& op : at.original.phases[first + 1].ops()) at.mutant.phases[first].add(op);
  at.mutant.phases.erase(at.mutant.phases.begin() + static_cast<std::ptrdiff_t>(first) + 1);
  return "phases " + std::to_string(first) + " and " + std::to_string(first + 1);
}

bool is_table(const Schedule& s) { return !s.header.buffers; }
bool is_program(const Schedule& s) { return s.header.buffers.has_value(); }

/// One class of single faults: its name in the report, the schedules it is planted in, and how.
struct FaultClass {
  std::string_view name;
  bool (*applies_to)(const Schedule&);
  Fault (*plant)(Planting&);
};

/// Every fault class, in the order of the report. Adding one is one row.
constexpr FaultClass kFaultClasses[] = {
    {"drop a transfer", is_table, drop_transfer},
    {"duplicate a transfer", is_table, duplicate_transfer},
    {"move to another phase", is_table, move_transfer},
    {"redirect a transfer", is_table, redirect_transfer},
    {"drop a forwarded block", is_table, drop_forwarded_block},
    {"merge two phases", is_table, merge_table_phases},
    // The placement faults.
    {"swap two destination slots", is_program, swap_destinations},
    {"shift a rotation by one", is_program, shift_rotation},
    {"drop the self copy", is_program, drop_self_copy},
    {"redirect a receive to scratch", is_program, redirect_to_scratch},
    {"read the wrong slot", is_program, read_wrong_slot},
    {"double write in a phase", is_program, double_write},
    // The table faults, done on ops.
    {"drop an op", is_program, drop_op},
    {"duplicate an op", is_program, duplicate_op},
    {"move an op to another phase", is_program, move_op},
    {"redirect a send", is_program, redirect_send},
    {"drop a chunk of an op", is_program, drop_chunk},
    {"merge two phases", is_program, merge_program_phases},
};

}  // namespace

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
  const Claims claims = schedules::claims_for(original.header);
  const bool program = is_program(original);
  const Sites sites = program ? program_sites(original) : table_sites(original);

  MutationReport report;
  report.program = program;
  report.contention_counts = naive_verdict(original, model).contention_free;
  std::mt19937_64 rng(seed);
  for (const FaultClass& fault : kFaultClasses) {
    if (!fault.applies_to(original)) continue;
    MutationClass mc{std::string(fault.name)};
    for (std::uint32_t n = 0; n < per_class; ++n) {
      Planting at{original, sites, rng, original, {}};
      if (!program) {
        std::size_t k = at.pick(sites.transfers);
        while (k >= original.phases[at.transfer.phase].size())
          k -= original.phases[at.transfer.phase++].size();
        at.transfer.unit.op = k;
      }
      const Fault planted = fault.plant(at);
      if (!planted) break;
      judge(mc, at.mutant, model, claims, report.contention_counts, *planted);
    }
    report.classes.push_back(std::move(mc));
  }
  return report;
}

}  // namespace phasecheck::properties
