#include "deploy/plan.hpp"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <variant>

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "deploy/v_pattern.hpp"
#include "programs/replay.hpp"
#include "programs/synchronization.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::deploy {

using programs::Op;
using programs::Separation;

SyncChoice parse_sync_choice(std::string_view name) {
  if (name == "auto") return SyncChoice::automatic;
  if (name == "none") return SyncChoice::none;
  if (name == "barrier") return SyncChoice::barrier;
  if (name == "pairwise") return SyncChoice::pairwise;
  throw InputError("--sync: unknown value '" + std::string(name) +
                   "' (known: auto, none, barrier, pairwise)");
}

Separation separation_for(SyncChoice choice, const Topology& model) {
  switch (choice) {
    case SyncChoice::none:
      return Separation::none;
    case SyncChoice::barrier:
      return Separation::barrier;
    case SyncChoice::pairwise:
      return Separation::pairwise;
    case SyncChoice::automatic:
      break;
  }
  if (for_each_link(model, 0, 0, [](LinkId) {}))  // a routed model
    return ranks(model) <= programs::kMaxSyncRanks ? Separation::pairwise : Separation::barrier;
  if (const auto* f = std::get_if<FullyConnected>(&model); f && f->ports + 1 >= f->ranks)
    return Separation::none;
  return Separation::barrier;
}

namespace {

/// A buffer program whose phases carry the table its sends form (the per-rank programs and the
/// pair-wise plan are built from that table), whatever the program's phases held before.
Schedule with_tables(const Schedule& program) {
  Schedule out;
  out.header = program.header;
  std::size_t i = 0;
  table_of(program, [&](const Phase& table) {
    Phase p(program.phases[i].label());
    for (const Transfer& t : table.transfers()) p.add(t.src, t.dst, table.blocks(t));
    for (const BufferOp& op : program.phases[i].ops()) p.add(op);
    out.phases.push_back(std::move(p));
    ++i;
  });
  return out;
}

/// The failed or undecided checks of a report: "contention: fail, bounds: fail".
std::string failed_checks(const verify::Report& report) {
  std::string out;
  for (const CheckResult& c : report.checks)
    if (c.verdict == Verdict::fail || c.verdict == Verdict::unknown)
      out += (out.empty() ? "" : ", ") + std::string(c.name()) + ": " + std::string(to_string(c.verdict));
  return out;
}

/// Why `report` does not allow deployment, or nothing.
std::optional<std::string> refusal_of(const verify::Report& report, bool buffers) {
  if (report.verdict() != Verdict::pass) {
    const std::string failed = failed_checks(report);
    return failed.empty() ? "no check passed" : "it does not verify (" + failed + ")";
  }
  if (!report.passed(CheckId::delivery)) return "delivery was not evaluated";
  if (buffers && !report.passed(CheckId::placement)) return "placement was not evaluated";
  return std::nullopt;
}

/// Splits the part of `s` beyond the user's output (slots >= outside) into scratch slots
/// scratch_base + (index - outside).
void add_segment(std::vector<Segment>& out, Slot slot, std::uint32_t count, std::uint32_t outside,
                 std::uint32_t scratch_base) {
  if (slot.buffer != Buffer::output || slot.index + std::uint64_t{count} <= outside) {
    out.push_back({slot.buffer, slot.index, count});
    return;
  }
  if (slot.index < outside) {
    out.push_back({Buffer::output, slot.index, outside - slot.index});
    count -= outside - slot.index;
    slot.index = outside;
  }
  out.push_back({Buffer::scratch, scratch_base + (slot.index - outside), count});
}

std::uint32_t chunks_of(const std::vector<Segment>& segments) {
  std::uint64_t n = 0;
  for (const Segment& s : segments) n += s.count;
  return static_cast<std::uint32_t>(n);
}

/// Why the plan of an alltoallv's pattern cannot run in the alltoallv runtime (runtime.c,
/// pc_execute_v: every send, receive and copy moves one whole message, input to output, with
/// no staging and no scratch), or nothing. A count-independent pattern always can.
std::optional<std::string> alltoallv_plan_problem(const Plan& plan) {
  if (plan.scratch != 0 || plan.chunks != 1) return "it needs scratch slots or chunks";
  for (const RankPlan& rank : plan.programs)
    for (const Step& s : rank.steps) {
      const bool moves =
          s.kind == Op::Kind::send || s.kind == Op::Kind::recv || s.kind == Op::Kind::copy;
      const auto one = [](const std::vector<Segment>& g, Buffer b) {
        return g.size() == 1 && g[0].count == 1 && g[0].buffer == b;
      };
      if (s.staged || (moves && s.kind != Op::Kind::recv && !one(s.from, Buffer::input)) ||
          (moves && s.kind != Op::Kind::send && !one(s.to, Buffer::output)))
        return "a step is not one whole message from input to output";
    }
  return std::nullopt;
}

}  // namespace

std::string collective_name(const Plan& plan) {
  return plan.alltoallv ? "alltoallv" : std::string(to_string(plan.collective));
}

std::string mpi_name(const Plan& plan) {
  if (plan.alltoallv) return "MPI_Alltoallv";
  return plan.collective == Collective::alltoall ? "MPI_Alltoall" : "MPI_Allgather";
}

Plan make_plan(const Schedule& program, const std::vector<programs::RankProgram>& rank_programs,
               Separation separation, std::string source) {
  const ScheduleHeader& h = program.header;
  if (!h.buffers) throw InputError("deploy: make_plan needs a buffer program (format 3)");
  const BufferLayout& layout = *h.buffers;
  const Rank p = h.ranks();
  const std::uint32_t outside = p * layout.chunks;  // output slots the user's buffer has
  Plan plan;
  plan.algorithm = h.algorithm;
  plan.source = std::move(source);
  plan.collective = h.collective;
  plan.ranks = p;
  plan.chunks = layout.chunks;
  plan.inplace = layout.inplace;
  plan.scratch = layout.scratch + (layout.output > outside ? layout.output - outside : 0);
  plan.separation = separation;
  for (const Phase& phase : program.phases) plan.phase_labels.push_back(phase.label());

  // Per phase, the positions of its ops by (src, dst), in op order: a message's segments.
  std::vector<std::map<std::pair<Rank, Rank>, std::vector<std::uint32_t>>> by_pair(
      program.phases.size());
  for (std::size_t ph = 0; ph < program.phases.size(); ++ph) {
    const auto ops = program.phases[ph].ops();
    for (std::uint32_t i = 0; i < ops.size(); ++i) {
      const BufferOp& op = ops[i];
      for (const Slot& s : {op.from, op.to})
        if (std::uint64_t{s.index} + op.count > layout.size(s.buffer))
          throw InputError("phase " + std::to_string(ph) + ", op " + std::to_string(i) + " (" +
                           describe_op(op) + ") reaches beyond " +
                           std::string(to_string(s.buffer)) + ": it cannot be deployed");
      if (!op.local()) by_pair[ph][{op.src, op.dst}].push_back(i);
    }
  }

  for (const programs::RankProgram& rp : rank_programs) {
    RankPlan rank;
    for (const Op& op : rp.ops) {
      Step step;
      step.kind = op.kind;
      step.peer = op.peer;
      step.phase = op.phase;
      if (op.kind == Op::Kind::send || op.kind == Op::Kind::recv) {
        const bool send = op.kind == Op::Kind::send;
        const auto& pairs = by_pair.at(op.phase);
        const auto at =
            pairs.find(send ? std::pair{rp.rank, op.peer} : std::pair{op.peer, rp.rank});
        if (at != pairs.end())
          for (const std::uint32_t i : at->second) {
            const BufferOp& b = program.phases[op.phase].ops()[i];
            add_segment(send ? step.from : step.to, send ? b.from : b.to, b.count, outside,
                        layout.scratch);
          }
        step.chunks = chunks_of(send ? step.from : step.to);
      } else if (op.kind == Op::Kind::copy) {
        const BufferOp& b = program.phases[op.phase].ops()[op.transfer];
        add_segment(step.from, b.from, b.count, outside, layout.scratch);
        add_segment(step.to, b.to, b.count, outside, layout.scratch);
        step.chunks = b.count;
      }
      plan.max_message = std::max(plan.max_message, step.chunks);
      rank.steps.push_back(std::move(step));
    }

    // Staging, phase by phase: a phase whose writes meet its reads stages every write.
    std::size_t first = 0;
    std::uint32_t posted = 0;
    while (first < rank.steps.size()) {
      std::size_t last = first;
      while (last < rank.steps.size() && rank.steps[last].kind != Op::Kind::wait) ++last;
      std::set<std::pair<Buffer, std::uint32_t>> read;
      for (std::size_t i = first; i < last; ++i)
        for (const Segment& s : rank.steps[i].from)
          for (std::uint32_t k = 0; k < s.count; ++k) read.insert({s.buffer, s.index + k});
      bool hazard = false;
      for (std::size_t i = first; i < last && !hazard; ++i)
        for (const Segment& s : rank.steps[i].to)
          for (std::uint32_t k = 0; k < s.count && !hazard; ++k)
            hazard = read.count({s.buffer, s.index + k}) > 0;
      std::uint32_t offset = 0;
      for (std::size_t i = first; i < last; ++i) {
        Step& s = rank.steps[i];
        switch (s.kind) {
          case Op::Kind::send:
            s.staged = s.from.size() > 1;
            break;
          case Op::Kind::recv:
            s.staged = hazard || s.to.size() > 1;
            break;
          case Op::Kind::copy:
            s.staged = hazard || s.from.size() > 1 || s.to.size() > 1;
            break;
          case Op::Kind::wait:  // moves no data, so nothing to stage
          case Op::Kind::sync_send:
          case Op::Kind::sync_recv:
          case Op::Kind::barrier:
            break;
        }
        if (s.staged) {
          s.staging = offset;
          offset += s.chunks;
        }
      }
      rank.staging = std::max(rank.staging, offset);
      // Requests: sends, receives and synchronization sends since the last wait.
      for (std::size_t i = first; i < last; ++i) {
        const Op::Kind k = rank.steps[i].kind;
        if (k == Op::Kind::send || k == Op::Kind::recv || k == Op::Kind::sync_send)
          rank.requests = std::max(rank.requests, ++posted);
      }
      if (last < rank.steps.size()) posted = 0;  // the wait completes them all
      first = last + 1;
    }
    plan.programs.push_back(std::move(rank));
  }
  return plan;
}

Checked check(const Schedule& schedule, std::string_view source, SyncChoice sync) {
  const ScheduleHeader& h = schedule.header;
  const std::string name(source);
  if (h.ranks() > kMaxDeployRanks)
    throw InputError(name + ": deploy works on at most " + std::to_string(kMaxDeployRanks) +
                     " ranks; this schedule has " + std::to_string(h.ranks()));
  // The runtime runs a program on a send buffer it copies in place calls into (runtime.c); a
  // program that starts from the output itself would need a runtime of its own.
  if (h.in_place() && h.collective == Collective::alltoall)
    throw InputError(name +
                     ": an alltoall in place (format 4) is not deployed: the interposer serves "
                     "MPI_IN_PLACE calls with an out-of-place schedule, copying the receive "
                     "buffer first; deploy the out-of-place version of this schedule");
  Checked c;
  c.source = name;
  const bool alltoallv = static_cast<bool>(h.traffic);
  Claims claims = schedules::claims_for(h);
  c.report = with_source(name, [&] { return verify::verify(schedule, h.topology, claims); });
  if (auto why = refusal_of(c.report, h.buffers.has_value())) {
    c.refusal = *why;
    return c;
  }
  if (alltoallv) {
    if (auto why = count_dependence(schedule)) {
      c.refusal = "its MPI_Alltoallv would depend on the counts: " + *why;
      return c;
    }
    claims = pattern_claims(std::move(claims));
  }
  // An alltoallv deploys its pattern: the same phases with every message one block.
  std::optional<Schedule> pattern;
  if (alltoallv) pattern = uniform_pattern(schedule);
  const Schedule& table = pattern ? *pattern : schedule;
  const Schedule program = with_tables(h.buffers ? table : lower_to_buffers(table));
  if (!h.buffers) {
    // The program keeps the table's claims, as lowering adapts them: a table of no phase (one
    // rank) becomes a program of one, its self copy.
    c.lowered = verify::verify(program, h.topology, lowered_claims(claims));
    if (auto why = refusal_of(*c.lowered, true)) {
      c.refusal = "its buffer program (the table lowered for deployment) fails: " + *why +
                  " (please report this)";
      return c;
    }
  }
  c.separation = separation_for(sync, h.topology);
  std::optional<programs::SyncPlan> plan;
  with_source(name + ": --sync pairwise", [&] {
    if (c.separation == Separation::pairwise)
      plan = programs::pairwise_synchronization(program, h.topology);
  });
  // Counted before the programs are made: with barriers every rank has a step in every phase.
  const std::uint64_t steps =
      programs::program_operations(program, c.separation, plan ? &*plan : nullptr);
  if (steps > kMaxDeploySteps)
    throw InputError(name + ": " + std::to_string(steps) +
                     " steps in the per-rank programs; deploy "
                     "compiles at most " +
                     std::to_string(kMaxDeploySteps));
  const auto progs = programs::rank_programs(program, c.separation, plan ? &*plan : nullptr);
  c.replay = programs::replay(program, h.topology, progs);
  if (c.replay->verdict != Verdict::pass) {
    c.refusal = "its per-rank programs (--sync " + std::string(programs::to_string(c.separation)) +
                ") fail the replay: " + c.replay->summary;
    return c;
  }
  c.plan = make_plan(program, progs, c.separation, name);
  c.plan->verdict = tally(c.report.checks);
  c.plan->alltoallv = alltoallv;
  if (alltoallv)
    if (auto why = alltoallv_plan_problem(*c.plan)) {
      c.refusal =
          "its pattern's plan cannot run as MPI_Alltoallv: " + *why + " (please report this)";
      c.plan.reset();
    }
  return c;
}

std::ostream& operator<<(std::ostream& os, const Segment& s) {
  os << to_string(s.buffer) << "[" << s.index;
  if (s.count > 1) os << ".." << s.index + s.count - 1;
  return os << "]";
}

std::ostream& operator<<(std::ostream& os, const Step& s) {
  os << programs::to_string(s.kind) << " phase " << s.phase;
  if (s.kind != Op::Kind::wait && s.kind != Op::Kind::barrier && s.kind != Op::Kind::copy)
    os << " peer " << s.peer;
  for (const Segment& g : s.from) os << " from " << g;
  for (const Segment& g : s.to) os << " to " << g;
  if (s.staged) os << " staged at " << s.staging;
  return os;
}

}  // namespace phasecheck::deploy
