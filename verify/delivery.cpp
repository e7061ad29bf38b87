#include "verify/delivery.hpp"

#include <string>

#include "core/limits.hpp"

namespace phasecheck::verify {
namespace {

OffendingTransfer offending(const Phase& phase, const Transfer& t) {
  const auto blocks = phase.blocks(t);
  return {t.src, t.dst, {blocks.begin(), blocks.end()}, {}};
}

std::string phase_name(std::size_t index) { return "phase " + std::to_string(index); }

}  // namespace

std::optional<std::uint64_t> DeliveryChecker::memory_bytes(Rank ranks, std::uint32_t parts) {
  const auto blocks = checked_mul(checked_mul(ranks, ranks), parts);
  // arrival_ and, once a block is forwarded, RelayCopies' latest holder: 4 bytes each per block;
  // complete_: 4 bytes per pair.
  return checked_add(checked_mul(blocks, 8), checked_mul(checked_mul(ranks, ranks), 4));
}

namespace {

/// The number of blocks, after the memory they need was found within the limit.
std::size_t block_slots(Rank ranks, std::uint32_t parts) {
  check_memory(DeliveryChecker::memory_bytes(ranks, parts),
               "checking delivery on " + std::to_string(ranks) + " ranks" +
                   (parts > 1 ? " x " + std::to_string(parts) + " parts" : std::string()));
  return std::size_t{ranks} * ranks * parts;
}

}  // namespace

DeliveryChecker::DeliveryChecker(Collective collective, Rank ranks, std::uint32_t parts)
    : collective_(collective),
      ranks_(ranks),
      parts_(parts),
      arrival_(block_slots(ranks, parts), 0),
      relay_(ranks, std::uint64_t{ranks} * ranks * parts),
      received_(ranks, 0),
      complete_(parts > 1 ? std::size_t{ranks} * ranks : 0, 0) {}

bool DeliveryChecker::held_before(Rank r, Block b, std::uint32_t now) const {
  if (r == b.origin) return true;
  if (collective_ == Collective::allgather) {
    const std::uint32_t a = arrival_[key(b.origin, r, b.part)];
    return a != 0 && a < now;
  }
  if (r == b.dest) {
    const std::uint32_t a = arrival_[key(b.origin, b.dest, b.part)];
    return a != 0 && a < now;
  }
  // Copies of the phase being applied are still pending: the set holds earlier phases only.
  (void)now;
  return relay_.contains(key(b.origin, b.dest, b.part), r);
}

// The DataView queries come from invariants, which may ask about any rank an algorithm's formula
// yields for a schedule file of a different size; outside the schedule the answer is "no".
bool DeliveryChecker::holds(Rank r, Block b) const {
  const bool dest_ok =
      b.dest < ranks_ || (collective_ == Collective::allgather && b.dest == kEveryRank);
  if (r >= ranks_ || b.origin >= ranks_ || !dest_ok || b.part >= parts_) return false;
  return held_before(r, b, now_ + 1);
}

bool DeliveryChecker::delivered(Rank origin, Rank dest) const {
  if (origin >= ranks_ || dest >= ranks_) return false;
  if (origin == dest) return true;
  return parts_ == 1 ? arrival_[key(origin, dest)] != 0
                     : complete_[std::size_t{origin} * ranks_ + dest] == parts_;
}

Rank DeliveryChecker::delivered_count(Rank dest) const {
  return dest < ranks_ ? received_[dest] : 0;
}

void DeliveryChecker::fail(Counterexample c) {
  if (violations_++ == 0) first_ = std::move(c);
}

void DeliveryChecker::consume(std::size_t index, const Phase& phase) {
  now_ = static_cast<std::uint32_t>(index + 1);
  const auto transfers = phase.transfers();
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const Transfer& t = transfers[i];
    for (const Block& b : phase.blocks(t)) {
      if (!held_before(t.src, b, now_)) {
        if (violations_ > 0) {  // only the first violation is drawn
          ++violations_;
          continue;
        }
        const bool arrives_now = arrives_in_this_phase(t.src, b);
        fail({index,
              phase.label(),
              phase.size(),
              {offending(phase, t)},
              "rank " + std::to_string(t.src),
              "rank " + std::to_string(t.src) + " sends block " + to_string(b) + " in " +
                  phase_name(index) + " but does not hold it" +
                  (arrives_now ? " yet (it arrives there in this same phase; it can be forwarded "
                                 "from the next phase on)"
                               : "")});
        continue;
      }
      if (t.local()) continue;  // a free local copy: moves nothing between ranks

      // Where does this arrival count? At a destination it must be the first; elsewhere it is
      // a relay copy (the earliest one is kept).
      const bool at_destination = collective_ == Collective::allgather || t.dst == b.dest;
      if (!at_destination) {
        if (t.dst != b.origin) pending_.emplace_back(key(b.origin, b.dest, b.part), t.dst);
        continue;
      }
      const std::uint64_t k = key(b.origin, t.dst, b.part);
      const std::uint32_t before = t.dst == b.origin ? 1 : arrival_[k];
      if (before == 0) {
        arrival_[k] = now_;
        if (parts_ == 1 || ++complete_[std::size_t{b.origin} * ranks_ + t.dst] == parts_)
          ++received_[t.dst];
        continue;
      }
      // Duplicate: name both arrivals when both are in this phase.
      Counterexample c{index, phase.label(), phase.size(), {}, "rank " + std::to_string(t.dst), {}};
      if (t.dst == b.origin) {
        c.explanation = "block " + to_string(b) + " is sent back to rank " + std::to_string(t.dst) +
                        ", which has held it from the start";
      } else if (before == now_) {
        for (std::size_t j = 0; j < i; ++j) {
          const Transfer& u = transfers[j];
          if (u.dst != t.dst || u.local()) continue;
          for (const Block& ub : phase.blocks(u))
            if (ub == b) {
              c.transfers.push_back(offending(phase, u));
              break;
            }
          if (!c.transfers.empty()) break;
        }
        c.explanation = "block " + to_string(b) + " arrives at rank " + std::to_string(t.dst) +
                        " twice in " + phase_name(index);
      } else {
        c.explanation = "block " + to_string(b) + " arrives at rank " + std::to_string(t.dst) +
                        " again in " + phase_name(index) + " (it first arrived in " +
                        phase_name(before - 1) + ")";
      }
      c.transfers.push_back(offending(phase, t));
      fail(std::move(c));
    }
  }
  for (const auto& [block, r] : pending_) relay_.add(block, r);
  pending_.clear();
}

bool DeliveryChecker::arrives_in_this_phase(Rank r, Block b) const {
  if (holds(r, b)) return true;  // at a destination: arrival_ already has this phase
  for (const auto& [block, at] : pending_)
    if (at == r && block == key(b.origin, b.dest, b.part)) return true;
  return false;
}

CheckResult DeliveryChecker::finish() const {
  std::uint64_t missing = 0;
  Rank missing_origin = 0, missing_dest = 0;  // the first delivery that never happens
  std::uint32_t missing_part = 0;
  for (Rank o = 0; o < ranks_; ++o)
    for (Rank d = 0; d < ranks_; ++d)
      for (std::uint32_t part = 0; part < parts_; ++part)
        if (o != d && arrival_[key(o, d, part)] == 0 && missing++ == 0) {
          missing_origin = o;
          missing_dest = d;
          missing_part = part;
        }

  const std::uint64_t required = std::uint64_t{ranks_} * (ranks_ - 1) * parts_;
  CheckResult r{"delivery", Verdict::pass, {}, {}};
  if (violations_ == 0 && missing == 0) {
    r.summary = "every block reaches every rank that needs it exactly once (" +
                std::to_string(required) + " deliveries)";
    return r;
  }
  r.verdict = Verdict::fail;
  if (violations_ > 0) r.summary = std::to_string(violations_) + " invalid or duplicate deliveries";
  if (missing > 0)
    r.summary += std::string(r.summary.empty() ? "" : "; ") + std::to_string(missing) + " of " +
                 std::to_string(required) + " deliveries never happen";
  if (first_) {
    r.counterexample = first_;
  } else {
    Block block = direct_block(collective_, missing_origin, missing_dest);
    block.part = missing_part;
    Counterexample c;
    c.resource = "rank " + std::to_string(missing_dest);
    c.explanation =
        "block " + to_string(block) + " never reaches rank " + std::to_string(missing_dest);
    r.counterexample = std::move(c);
  }
  return r;
}

}  // namespace phasecheck::verify
