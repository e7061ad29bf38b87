#include "core/buffer_lowering.hpp"

#include <algorithm>
#include <tuple>
#include <unordered_map>

#include "core/buffer_state.hpp"
#include "core/error.hpp"

namespace phasecheck {
namespace {

/// Appends `op`, or lengthens the last of `ops` when `op` continues it slot for slot.
void append(std::vector<BufferOp>& ops, const BufferOp& op) {
  if (!ops.empty()) {
    BufferOp& last = ops.back();
    if (last.src == op.src && last.dst == op.dst && last.from.buffer == op.from.buffer &&
        last.to.buffer == op.to.buffer &&
        std::uint64_t{last.from.index} + last.count == op.from.index &&
        std::uint64_t{last.to.index} + last.count == op.to.index) {
      ++last.count;
      return;
    }
  }
  ops.push_back(op);
}

}  // namespace

Schedule lower_to_buffers(const Schedule& table) {
  const ScheduleHeader& h = table.header;
  if (h.traffic)  // its chunks would need slots of the matrix's sizes
    throw InputError("an alltoallv's buffer program (format 3) is not modelled yet");
  const Collective collective = h.collective;
  const Rank p = h.ranks();
  const std::uint32_t c = h.parts;
  const bool alltoall = collective == Collective::alltoall;

  const bool inplace = h.inplace;
  const auto block_key = [&](const Block& b) {
    return alltoall ? (std::uint64_t{b.origin} * p + b.dest) * c + b.part
                    : std::uint64_t{b.origin} * c + b.part;
  };
  const auto holder = [&](Rank r, const Block& b) { return block_key(b) * p + r; };
  // Only an alltoall relays through scratch: an allgather block is wanted everywhere it goes.
  const auto relayed_at = [&](Rank r, const Block& b) { return alltoall && r != b.dest; };
  // A copy read from scratch: a relayed block, or (an alltoall in place) an own block saved
  // there before its output slot was overwritten.
  const auto in_scratch = [&](Rank r, const Block& b) {
    return r == b.origin ? alltoall && inplace : relayed_at(r, b);
  };

  // The last phase in which each scratch copy is read, so that its slot can be reused after.
  // An alltoall in place: rank r's message to d starts in output slot d*c + k, where d's message
  // to r lands; the phase that first writes that slot saves the message to scratch if r still
  // has to send it later (the sends of that phase still read the output: writes land at the end
  // of a phase). saves[t]: the own blocks saved in phase t.
  std::unordered_map<std::uint64_t, std::size_t> last_read, first_write;
  std::vector<std::vector<Block>> saves(table.phases.size());
  for (std::size_t t = 0; t < table.phases.size(); ++t) {
    const Phase& phase = table.phases[t];
    for (const Transfer& tr : phase.transfers())
      if (!tr.local())
        for (const Block& b : phase.blocks(tr)) {
          if (in_scratch(tr.src, b)) last_read[holder(tr.src, b)] = t;
          if (alltoall && inplace && tr.dst == b.dest)  // overwrites own block [dest, origin]
            first_write.emplace(holder(b.dest, Block{b.dest, b.origin, b.part}), t);
        }
  }
  for (const auto& [key, written] : first_write) {
    const auto read = last_read.find(key);
    if (read != last_read.end() && read->second > written) {
      const std::uint64_t block = key / p;  // holder(r, [r, d, k]) = ((r p + d) c + k) p + r
      saves[written].push_back(Block{static_cast<Rank>(key % p), static_cast<Rank>(block / c % p),
                                     static_cast<std::uint32_t>(block % c)});
    }
  }
  for (auto& phase_saves : saves)  // in a fixed order: the program must not depend on hashing
    std::sort(phase_saves.begin(), phase_saves.end(), [](const Block& a, const Block& b) {
      return std::tie(a.origin, a.dest, a.part) < std::tie(b.origin, b.dest, b.part);
    });

  Schedule out{h, {}};
  std::vector<std::vector<std::uint32_t>> free_slots(p);
  std::vector<std::uint32_t> used(p, 0);
  std::unordered_map<std::uint64_t, std::uint32_t> slot_of;  // live relay copies
  std::vector<std::pair<Rank, std::uint64_t>> release;       // freed at the end of the phase
  std::vector<BufferOp> ops;

  const auto output_slot = [&](const Block& b) {
    return Slot{Buffer::output, b.origin * c + b.part};
  };
  const auto scratch_slot = [&](Rank r) {
    auto& pool = free_slots[r];
    if (pool.empty()) return used[r]++;
    const std::uint32_t s = pool.back();
    pool.pop_back();
    return s;
  };
  const auto where = [&](Rank r, const Block& b, std::size_t t) -> Slot {
    if (r == b.origin) {
      if (inplace && alltoall) {  // in its output until saved (a save lands at its phase's end)
        const auto saved = slot_of.find(holder(r, b));
        if (saved == slot_of.end()) return Slot{Buffer::output, b.dest * c + b.part};
        return {Buffer::scratch, saved->second};
      }
      if (inplace) return output_slot(b);  // an allgather's own contribution is in place
      return alltoall ? Slot{Buffer::input, b.dest * c + b.part} : Slot{Buffer::input, b.part};
    }
    if (!relayed_at(r, b)) return output_slot(b);
    const auto it = slot_of.find(holder(r, b));
    if (it == slot_of.end())
      throw InputError("cannot lower " + h.algorithm + " to buffers: rank " + std::to_string(r) +
                       " forwards block " + to_string(b) + " in phase " + std::to_string(t) +
                       " without holding it");
    return {Buffer::scratch, it->second};
  };

  const std::size_t phases = std::max<std::size_t>(table.phases.size(), 1);
  for (std::size_t t = 0; t < phases; ++t) {
    Phase program(t < table.phases.size() ? table.phases[t].label() : std::string("self copy"));
    ops.clear();
    if (t == 0 && !inplace)  // the self copy: every rank's own chunks into its output
      for (Rank r = 0; r < p; ++r)
        ops.push_back(
            {r, r, Slot{Buffer::input, alltoall ? r * c : 0}, Slot{Buffer::output, r * c}, c});
    if (t < table.phases.size()) {
      const Phase& phase = table.phases[t];
      for (const Transfer& tr : phase.transfers()) {
        if (tr.local()) continue;  // a free local copy in the table moves nothing
        for (const Block& b : phase.blocks(tr)) {
          const Slot from = where(tr.src, b, t);
          if (from.buffer == Buffer::scratch) {
            const auto it = last_read.find(holder(tr.src, b));
            if (it != last_read.end() && it->second == t)
              release.emplace_back(tr.src, holder(tr.src, b));
          }
          Slot to = output_slot(b);
          if (relayed_at(tr.dst, b)) {
            const std::uint64_t key = holder(tr.dst, b);
            auto it = slot_of.find(key);
            if (it == slot_of.end()) {
              it = slot_of.emplace(key, scratch_slot(tr.dst)).first;
              const auto read = last_read.find(key);
              if (read == last_read.end() || read->second <= t) release.emplace_back(tr.dst, key);
            }
            to = {Buffer::scratch, it->second};
          }
          append(ops, BufferOp{tr.src, tr.dst, from, to, 1});
        }
      }
    }
    // In place: own blocks still to be sent after this phase, whose output slot it overwrites.
    if (t < saves.size())
      for (const Block& own : saves[t]) {
        const std::uint64_t key = holder(own.origin, own);
        const std::uint32_t s = scratch_slot(own.origin);
        slot_of.emplace(key, s);
        append(ops, BufferOp{own.origin, own.origin, Slot{Buffer::output, own.dest * c + own.part},
                             Slot{Buffer::scratch, s}, 1});
      }
    for (const BufferOp& op : ops) program.add(op);
    out.phases.push_back(std::move(program));
    for (const auto& [r, key] : release) {
      const auto it = slot_of.find(key);
      if (it == slot_of.end()) continue;  // released twice (read twice in one phase)
      free_slots[r].push_back(it->second);
      slot_of.erase(it);
    }
    release.clear();
  }

  BufferLayout layout = natural_layout(collective, p, c, inplace);
  layout.scratch = *std::max_element(used.begin(), used.end());
  out.header.buffers = layout;
  return out;
}

Claims lowered_claims(Claims table) {
  if (table.phases && table.phases->at_most == 0) {
    table.invariants.clear();
    table.phases = PhaseClaim::exactly(1, "one rank: the self copy of its buffer program");
  }
  return table;
}

void table_of(const Schedule& program, const PhaseSink& out) {
  const ScheduleHeader& h = program.header;
  BufferState state(h.collective, h.ranks(), *h.buffers);
  Phase table;
  for (std::size_t i = 0; i < program.phases.size(); ++i) {
    const Phase& phase = program.phases[i];
    state.apply(i, phase.ops(), table, [&](const OpFault& f) {
      throw InputError(h.algorithm + ": its buffer program faults in phase " + std::to_string(i) +
                       " at op " + std::to_string(f.op) + " (" + describe_op(phase.ops()[f.op]) +
                       "), rank " + std::to_string(f.rank) + " " + to_string(f.slot));
    });
    table.set_label(phase.label());
    out(table);
  }
}

}  // namespace phasecheck
