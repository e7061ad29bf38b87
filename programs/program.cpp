#include "programs/program.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <unordered_map>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace phasecheck::programs {

namespace {

/// The ranks that send, receive or copy in `phase` (format 3: its local ops too), each once, in
/// the order they first appear; `busy` marks them with `ph` (the last phase each rank took part
/// in).
void busy_ranks(const Phase& phase, std::uint32_t ph, bool buffers,
                std::vector<std::uint32_t>& busy, std::vector<Rank>& ranks) {
  ranks.clear();
  const auto mark = [&](Rank r) {
    if (busy[r] == ph) return;
    busy[r] = ph;
    ranks.push_back(r);
  };
  for (const Transfer& t : phase.transfers())
    if (!t.local()) {
      mark(t.dst);
      mark(t.src);
    }
  if (buffers)
    for (const BufferOp& op : phase.ops())
      if (op.local()) mark(op.src);
}

}  // namespace

std::uint64_t program_operations(const Schedule& schedule, Separation separation,
                                 const SyncPlan* sync) {
  const Rank p = schedule.header.ranks();
  const bool buffers = schedule.header.buffers.has_value();
  std::uint64_t n = separation == Separation::pairwise && sync ? 2 * sync->kept.size() : 0;
  if (separation == Separation::barrier) n += std::uint64_t{p} * schedule.phases.size();
  std::vector<std::uint32_t> busy(p, UINT32_MAX);
  std::vector<Rank> ranks;
  for (std::uint32_t ph = 0; ph < schedule.phases.size(); ++ph) {
    const Phase& phase = schedule.phases[ph];
    for (const Transfer& t : phase.transfers()) n += t.local() ? 0 : 2;
    if (buffers)
      for (const BufferOp& op : phase.ops()) n += op.local();
    busy_ranks(phase, ph, buffers, busy, ranks);
    n += ranks.size();  // a wait each
  }
  return n;
}

void check_programs_memory(const Schedule& schedule, Separation separation, const SyncPlan* sync) {
  // A barrier is an operation of every rank in every phase.
  const Rank p = schedule.header.ranks();
  const std::uint64_t operations = program_operations(schedule, separation, sync);
  check_memory(
      checked_add(checked_mul(operations, sizeof(Op)), checked_mul(p, sizeof(RankProgram))),
      "building the programs of " + std::to_string(p) + " ranks (" + std::to_string(operations) +
          " operations" +
          (separation == Separation::barrier
               ? ": a barrier for every rank in each of " + std::to_string(schedule.phases.size()) +
                     " phases; --sync none has none"
               : std::string()) +
          ")");
}

std::vector<RankProgram> rank_programs(const Schedule& schedule, Separation separation,
                                       const SyncPlan* sync) {
  if (separation == Separation::pairwise && sync == nullptr)
    throw InputError("pairwise separation needs the synchronization plan");
  const Rank p = schedule.header.ranks();
  const bool buffers = schedule.header.buffers.has_value();
  check_programs_memory(schedule, separation, sync);
  std::vector<RankProgram> programs(p);
  for (Rank r = 0; r < p; ++r) programs[r].rank = r;

  // Synchronizations by (phase of the message that waits, its sender) and by the phase of the
  // message they follow.
  std::map<std::pair<std::uint32_t, Rank>, std::vector<Op>> before, after;
  if (separation == Separation::pairwise)
    for (const auto& [a, b] : sync->kept) {
      const Message &x = sync->messages[a], &y = sync->messages[b];
      after[{x.phase, x.src}].push_back({Op::Kind::sync_send, y.src, x.phase, x.transfer, 0});
      before[{y.phase, y.src}].push_back({Op::Kind::sync_recv, x.src, x.phase, x.transfer, 0});
    }
  // The entries of `syncs` for phase `ph`, appended to their ranks' programs.
  const auto append_syncs = [&](const auto& syncs, std::uint32_t ph) {
    for (auto it = syncs.lower_bound({ph, 0}); it != syncs.end() && it->first.first == ph; ++it)
      for (const Op& op : it->second) programs[it->first.second].ops.push_back(op);
  };

  // Each phase touches only the ranks that take part in it (and, with barriers, every rank), so
  // that a machine of many ranks and a table of many phases cost their product only when the
  // programs hold it.
  std::vector<std::uint32_t> busy(p, UINT32_MAX);  // the last phase each rank posted in
  std::vector<Rank> busy_now;
  for (std::uint32_t ph = 0; ph < schedule.phases.size(); ++ph) {
    const Phase& phase = schedule.phases[ph];
    const auto transfers = phase.transfers();
    append_syncs(before, ph);
    for (std::uint32_t i = 0; i < transfers.size(); ++i) {
      const Transfer& t = transfers[i];
      if (t.local()) continue;  // a local copy: no operation
      programs[t.dst].ops.push_back({Op::Kind::recv, t.src, ph, i, t.block_count});
    }
    for (std::uint32_t i = 0; i < transfers.size(); ++i) {
      const Transfer& t = transfers[i];
      if (t.local()) continue;
      programs[t.src].ops.push_back({Op::Kind::send, t.dst, ph, i, t.block_count});
    }
    // Format 3: the local copies read with the sends (at the phase's start) and write at the
    // wait, with the receives; a phase table's local transfers need no operation.
    if (buffers) {
      const auto ops = phase.ops();
      for (std::uint32_t i = 0; i < ops.size(); ++i) {
        const BufferOp& op = ops[i];
        if (!op.local()) continue;
        programs[op.src].ops.push_back({Op::Kind::copy, op.src, ph, i, op.count});
      }
    }
    busy_ranks(phase, ph, buffers, busy, busy_now);
    for (const Rank r : busy_now) programs[r].ops.push_back({Op::Kind::wait, 0, ph, 0, 0});
    append_syncs(after, ph);
    if (separation == Separation::barrier)
      for (Rank r = 0; r < p; ++r) programs[r].ops.push_back({Op::Kind::barrier, 0, ph, 0, 0});
  }
  return programs;
}

StagingNeeds staging_needs(const Schedule& program) {
  if (!program.header.buffers) throw InputError("staging_needs: not a buffer program (format 3)");
  const BufferLayout& layout = *program.header.buffers;
  const Rank p = program.header.ranks();
  StagingNeeds needs;
  std::vector<std::uint64_t> staged(p, 0);
  std::vector<Rank> touched;
  std::unordered_map<std::uint64_t, std::uint64_t> messages;  // src * p + dst -> chunks
  for (std::size_t ph = 0; ph < program.phases.size(); ++ph) {
    const auto ops = program.phases[ph].ops();
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const BufferOp& op = ops[i];
      if (op.src >= p || op.dst >= p || op.count == 0)
        throw InputError("phase " + std::to_string(ph) + ", op " + std::to_string(i) + ": " +
                         op_problem(op, p).value_or("malformed"));
      for (const auto& [slot, verb] : {std::pair{op.from, "reads"}, std::pair{op.to, "writes"}})
        if (std::uint64_t{slot.index} + op.count > layout.size(slot.buffer))
          throw InputError(
              "phase " + std::to_string(ph) + ", op " + std::to_string(i) + " (" + describe_op(op) +
              ") " + verb + " beyond " + std::string(to_string(slot.buffer)) + " (" +
              std::to_string(layout.size(slot.buffer)) + " slots): no runner can execute it");
      for (const Rank r : {op.src, op.dst}) {
        if (staged[r] == 0) touched.push_back(r);
        staged[r] += op.count;
        if (op.local()) break;  // a copy is staged once, by its rank
      }
      if (!op.local()) messages[std::uint64_t{op.src} * p + op.dst] += op.count;
    }
    for (const Rank r : touched) {
      needs.staged = std::max(needs.staged, staged[r]);
      staged[r] = 0;
    }
    touched.clear();
    for (const auto& [pair, chunks] : messages) needs.message = std::max(needs.message, chunks);
    messages.clear();
  }
  return needs;
}

std::string listing(const RankProgram& program) {
  std::ostringstream os;
  os << "rank " << program.rank << ": " << program.ops.size() << " operations\n";
  for (const Op& op : program.ops) {
    os << "  phase " << op.phase << "  " << to_string(op.kind);
    switch (op.kind) {
      case Op::Kind::send:
        os << " to " << op.peer << " (" << op.blocks << (op.blocks == 1 ? " block)" : " blocks)");
        break;
      case Op::Kind::recv:
        os << " from " << op.peer << " (" << op.blocks << (op.blocks == 1 ? " block)" : " blocks)");
        break;
      case Op::Kind::copy:
        os << " (op " << op.transfer << " of the phase, " << op.blocks
           << (op.blocks == 1 ? " chunk)" : " chunks)");
        break;
      case Op::Kind::sync_send:
        os << " to " << op.peer << " (it may start its next contending message)";
        break;
      case Op::Kind::sync_recv:
        os << " from " << op.peer << " (its phase-" << op.phase << " message is done)";
        break;
      case Op::Kind::wait:
        os << " (all of this phase's sends and receives)";
        break;
      case Op::Kind::barrier:
        break;
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace phasecheck::programs
