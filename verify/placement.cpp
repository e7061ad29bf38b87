#include "verify/placement.hpp"

#include <string>

namespace phasecheck::verify {
namespace {

std::string on(Rank rank, Slot slot) {
  return "rank " + std::to_string(rank) + " " + to_string(slot);
}

std::string op_name(std::size_t index, const BufferOp& op) {
  return "op " + std::to_string(index) + " (" + describe_op(op) + ")";
}

}  // namespace

PlacementChecker::PlacementChecker(Collective collective, Rank ranks, const BufferLayout& layout)
    : state_(collective, ranks, layout) {}

const Phase& PlacementChecker::consume(std::size_t index, const Phase& phase) {
  table_.set_label(phase.label());
  chunk_moves_ +=
      state_.apply(index, phase.ops(), table_, [&](const OpFault& f) { fault(index, phase, f); });
  return table_;
}

void PlacementChecker::fault(std::size_t index, const Phase& phase, const OpFault& f) {
  if (faults_++ > 0) return;  // only the first is drawn
  const auto ops = phase.ops();
  const BufferOp& op = ops[f.op];
  const std::string size = std::to_string(state_.layout().size(f.slot.buffer)) + " " +
                           std::string(to_string(f.slot.buffer)) + " slots";
  Counterexample c{index, phase.label(), ops.size(), {}, on(f.rank, f.slot), {}, {}};
  c.ops.push_back({index, f.op, op});
  const std::string who = op_name(f.op, op);
  switch (f.kind) {
    case OpFault::Kind::read_beyond:
      c.explanation = who + " reads " + to_string(f.slot) + " of rank " + std::to_string(f.rank) +
                      ", beyond its " + size;
      break;
    case OpFault::Kind::write_beyond:
      c.explanation = who + " writes " + to_string(f.slot) + " of rank " + std::to_string(f.rank) +
                      ", beyond its " + size;
      break;
    case OpFault::Kind::empty_read:
      c.explanation = who + " reads " + to_string(f.slot) + " of rank " + std::to_string(f.rank) +
                      ", which holds nothing at the start of phase " + std::to_string(index);
      break;
    case OpFault::Kind::input_write:
      c.explanation = who + " writes " + to_string(f.slot) + " of rank " + std::to_string(f.rank) +
                      "; the input buffer is the caller's and must not be modified";
      break;
    case OpFault::Kind::double_write:
      c.ops.insert(c.ops.begin(), OffendingOp{index, f.other_op, ops[f.other_op]});
      c.explanation = on(f.rank, f.slot) + " is written twice in phase " + std::to_string(index) +
                      ": by " +
                      (f.other_op == f.op ? who + " twice"
                                          : op_name(f.other_op, ops[f.other_op]) + " and " + who);
      break;
  }
  first_ = std::move(c);
}

CheckResult PlacementChecker::finish() const {
  const Collective collective = state_.collective();
  const Rank ranks = state_.ranks();
  const std::uint32_t chunks = state_.layout().chunks;
  const std::uint32_t slots = ranks * chunks;
  const BufferState::Misplaced wrong_slots = state_.misplaced();
  const std::uint64_t wrong = wrong_slots.count;
  std::optional<Counterexample> misplaced;
  if (wrong > 0) {
    const Rank r = wrong_slots.rank;
    const std::uint32_t i = wrong_slots.index;
    const Block want = expected_chunk(collective, chunks, r, i);
    const auto got = state_.at(r, {Buffer::output, i});
    Counterexample c;
    c.resource = on(r, {Buffer::output, i});
    c.explanation = "rank " + std::to_string(r) + ": " + to_string(Slot{Buffer::output, i}) +
                    " holds " + (got ? chunk_name(*got) : std::string("nothing")) + ", expected " +
                    chunk_name(want);
    if (const auto w = state_.written(r, i)) {
      const BufferOp part{w->src, r, w->from, {Buffer::output, i}, 1};
      c.explanation += "; it was written in phase " + std::to_string(w->phase) + " by " +
                       (part.local() ? "a local copy on rank " + std::to_string(r)
                                     : "the send from rank " + std::to_string(w->src)) +
                       ", reading " + to_string(w->from) + " (op " + std::to_string(w->op) + ")";
      c.ops.push_back({w->phase, w->op, part});
    } else if (const auto last = state_.last_write(r, i)) {
      c.explanation += "; it was last written in phase " + std::to_string(last->first) + " by op " +
                       std::to_string(last->second);
    } else if (got) {
      c.explanation += "; it is there from the start and never written";
    } else {
      c.explanation += "; no op ever writes it";
    }
    if (const auto loss = state_.lost(want)) {
      c.explanation += ". The last copy of " + chunk_name(want) + " was lost in phase " +
                       std::to_string(loss->phase) + ": op " + std::to_string(loss->op) + " (" +
                       describe_op(loss->by) + ") overwrote " + on(loss->rank, loss->slot);
      c.ops.push_back({loss->phase, loss->op, loss->by});
    } else if (const auto where = state_.find(want, r)) {
      c.explanation += ". " + chunk_name(want) + " is left in " + on(where->first, where->second);
    }
    misplaced = std::move(c);
  }

  CheckResult result{CheckId::placement, Verdict::pass, {}, {}};
  if (faults_ == 0 && wrong == 0) {
    result.summary = "every output slot holds its chunk (" +
                     std::to_string(std::uint64_t{ranks} * slots) + " slots, " +
                     std::to_string(chunk_moves_) + " chunk moves)";
    return result;
  }
  result.verdict = Verdict::fail;
  if (faults_ > 0)
    result.summary = std::to_string(faults_) +
                     (faults_ == 1 ? " faulty read or write" : " faulty reads or writes");
  if (wrong > 0)
    result.summary +=
        std::string(result.summary.empty() ? "" : "; ") + std::to_string(wrong) + " of " +
        std::to_string(std::uint64_t{ranks} * slots) +
        (wrong == 1 ? " output slots holds the wrong chunk" : " output slots hold the wrong chunk");
  result.counterexample = faults_ > 0 ? first_ : misplaced;
  return result;
}

}  // namespace phasecheck::verify
