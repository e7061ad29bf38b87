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

std::uint64_t DeliveryChecker::memory_bytes(Rank ranks) {
  return detail::Arrivals::base_bytes(ranks) + std::uint64_t{ranks} * sizeof(Rank);
}

namespace {

std::string work_name(Rank ranks, std::uint32_t parts) {
  return "checking delivery on " + std::to_string(ranks) + " ranks" +
         (parts > 1 ? " x " + std::to_string(parts) + " parts" : std::string());
}

}  // namespace

DeliveryChecker::DeliveryChecker(Collective collective, Rank ranks, std::uint32_t parts)
    : collective_(collective),
      ranks_(ranks),
      parts_(parts),
      arrivals_(ranks, ranks * parts, work_name(ranks, parts)),
      relay_(ranks, std::uint64_t{ranks} * ranks * parts, work_name(ranks, parts)),
      received_(ranks, 0) {}

void DeliveryChecker::expect(const Traffic& traffic, Pieces pieces) {
  traffic_ = &traffic;
  pieces_ = pieces;
}

std::uint64_t DeliveryChecker::required(Rank d) const {
  if (!traffic_) return std::uint64_t{ranks_ - 1} * parts_;
  std::uint64_t sum = 0;
  for (Rank o = 0; o < ranks_; ++o)
    if (o != d) sum += pieces(o, d);
  return sum;
}

std::uint32_t DeliveryChecker::first_missing(Rank d) const {
  if (!traffic_) return arrivals_.first_missing(d, d * parts_, (d + 1) * parts_);
  for (Rank o = 0; o < ranks_; ++o)  // only for a rank that misses one: O(ranks x parts)
    for (std::uint32_t k = 0; o != d && k < pieces(o, d); ++k)
      if (!arrivals_.contains(d, o * parts_ + k)) return o * parts_ + k;
  return ranks_ * parts_;
}

bool DeliveryChecker::held(Rank r, Block b) const {
  if (r == b.origin) return true;
  // Alltoall: a copy at its destination, or at an intermediate rank.
  if (collective_ == Collective::allgather || r == b.dest) return arrivals_.contains(r, item(b));
  return relay_.contains(key(b.origin, b.dest, b.part), r);
}

// The DataView queries come from invariants, which may ask about any rank an algorithm's formula
// yields for a schedule file of a different size; outside the schedule the answer is "no".
bool DeliveryChecker::holds(Rank r, Block b) const {
  const bool dest_ok =
      b.dest < ranks_ || (collective_ == Collective::allgather && b.dest == kEveryRank);
  if (r >= ranks_ || b.origin >= ranks_ || !dest_ok || b.part >= parts_) return false;
  return held(r, b);
}

bool DeliveryChecker::delivered(Rank origin, Rank dest) const {
  if (origin >= ranks_ || dest >= ranks_) return false;
  if (origin == dest) return true;
  if (traffic_)
    return arrivals_.contains_all(dest, origin * parts_, origin * parts_ + pieces(origin, dest));
  return parts_ == 1 ? arrivals_.contains(dest, origin)
                     : arrivals_.contains_all(dest, origin * parts_, (origin + 1) * parts_);
}

bool DeliveryChecker::delivered_all(Rank first, Rank last, Rank dest) const {
  // An alltoallv's messages have their own piece counts: one at a time.
  if (traffic_ || dest >= ranks_ || last > ranks_)
    return DataView::delivered_all(first, last, dest);
  // Its own data counts as delivered to `dest` and is never stored: the range without it.
  const auto arrived = [&](Rank lo, Rank hi) {
    return lo >= hi || arrivals_.contains_all(dest, lo * parts_, hi * parts_);
  };
  if (dest < first || dest >= last) return arrived(first, last);
  return arrived(first, dest) && arrived(dest + 1, last);
}

Rank DeliveryChecker::delivered_count(Rank dest) const {
  if (dest >= ranks_) return 0;
  // One part per message: a message is complete when its one item arrives.
  return parts_ == 1 && !traffic_ ? arrivals_.size(dest) : received_[dest];
}

void DeliveryChecker::fail(Counterexample c) {
  if (violations_++ == 0) first_ = std::move(c);
}

bool DeliveryChecker::direct(const Phase& phase) const {
  if (phase.carries_own_messages(collective_)) return true;  // kept as it was built: O(1)
  // A forwarding phase usually shows it in its first transfers: stop there, before the general
  // pass reads the phase again.
  const bool allgather = collective_ == Collective::allgather;
  for (const Transfer& t : phase.transfers()) {
    bool own = true;
    for (const Block& b : phase.blocks(t))
      own &= b.origin == t.src && (allgather || b.dest == t.dst || t.local());
    if (!own) return false;
  }
  return true;
}

void DeliveryChecker::consume(std::size_t index, const Phase& phase) {
  if (direct(phase)) return arrive_direct(index, phase);
  const auto transfers = phase.transfers();
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    const Transfer& t = transfers[i];
    for (const Block& b : phase.blocks(t)) {
      if (t.src != b.origin && !held(t.src, b)) {
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

      // Where does this arrival count? At a destination it must be the first (arrive() judges
      // that after the phase); elsewhere it is a relay copy.
      const bool at_destination = collective_ == Collective::allgather || t.dst == b.dest;
      if (!at_destination) {
        if (t.dst != b.origin) pending_.emplace_back(key(b.origin, b.dest, b.part), t.dst);
        continue;
      }
      if (t.dst != b.origin) {
        arriving_.push_back({t.dst, item(b), static_cast<std::uint32_t>(i), b});
        continue;
      }
      if (violations_++ > 0) continue;
      first_ = Counterexample{index,
                              phase.label(),
                              phase.size(),
                              {offending(phase, t)},
                              "rank " + std::to_string(t.dst),
                              "block " + to_string(b) + " is sent back to rank " +
                                  std::to_string(t.dst) + ", which has held it from the start"};
    }
  }
  arrive(index, phase);
  for (const auto& [block, r] : pending_) relay_.add(block, r);
  pending_.clear();
}

bool DeliveryChecker::insert(Rank at, std::uint32_t item) {
  if (!arrivals_.insert(at, item)) return false;
  if (parts_ == 1 && !traffic_) return true;  // delivered_count reads the arrivals
  const Rank origin = item / parts_;
  const std::uint32_t lo = origin * parts_;
  if (parts_ == 1 || arrivals_.contains_all(at, lo, lo + pieces(origin, at))) ++received_[at];
  return true;
}

void DeliveryChecker::duplicate(std::size_t index, const Phase& phase,
                                std::optional<std::uint32_t> earlier, std::uint32_t transfer,
                                Rank at, Block b) {
  if (violations_++ > 0) return;
  Counterexample c{index, phase.label(), phase.size(), {}, "rank " + std::to_string(at), {}};
  if (earlier) c.transfers.push_back(offending(phase, phase[*earlier]));
  c.transfers.push_back(offending(phase, phase[transfer]));
  c.explanation =
      "block " + to_string(b) + " arrives at rank " + std::to_string(at) +
      (earlier ? " twice in " + phase_name(index)
               : " again in " + phase_name(index) + " (it arrived there in an earlier phase)");
  first_ = std::move(c);
}

void DeliveryChecker::arrive(std::size_t index, const Phase& phase) {
  for (std::size_t n = 0; n < arriving_.size(); ++n) {
    const Arrival& a = arriving_[n];
    if (insert(a.at, a.item)) continue;
    // A duplicate. When the first arrival is in this phase too, name both transfers.
    std::optional<std::uint32_t> earlier;
    for (std::size_t m = 0; m < n && violations_ == 0 && !earlier; ++m)
      if (arriving_[m].at == a.at && arriving_[m].item == a.item) earlier = arriving_[m].transfer;
    duplicate(index, phase, earlier, a.transfer, a.at, a.block);
  }
  arriving_.clear();
}

void DeliveryChecker::arrive_direct(std::size_t index, const Phase& phase) {
  // Every block is its sender's own, so the sender holds it and nothing is relayed: no arrival of
  // this phase can change what another transfer of it may carry, and the arrivals take effect as
  // they are met, in the order arrive() applies them.
  const auto transfers = phase.transfers();
  if (parts_ == 1 && !traffic_ && phase.carries_own_messages(collective_))
    return arrive_own(index, transfers, [&]() -> const Phase& { return phase; });
  for (std::uint32_t i = 0; i < transfers.size(); ++i) {
    const Transfer& t = transfers[i];
    if (t.local()) continue;
    for (const Block& b : phase.blocks(t))
      if (!insert(t.dst, item(b))) repeated(index, phase, i, b);
  }
}

void DeliveryChecker::consume(std::size_t index, const DirectPhase& phase) {
  if (parts_ != 1 || traffic_ || phase.collective != collective_) {
    Phase whole;
    phase.fill(whole);
    return consume(index, whole);
  }
  arrive_own(index, phase.transfers, PhaseOnDemand(phase));
}

template <class T, class PhaseOf>
void DeliveryChecker::arrive_own(std::size_t index, std::span<const T> transfers,
                                 const PhaseOf& phase_of) {
  // One block a transfer, part 0 of its sender's message: its item is the sender, so the ranks
  // say it all, and the usual arrival takes no call (Arrivals::insert).
  for (std::uint32_t i = 0; i < transfers.size(); ++i) {
    const T& t = transfers[i];
    if (t.local() || arrivals_.insert(t.dst, t.src)) continue;
    if (violations_ > 0) {  // only the first duplicate is drawn (repeated() would count it)
      ++violations_;
      continue;
    }
    const Phase& drawn = phase_of();
    repeated(index, drawn, i, drawn.blocks(drawn[i]).front());
  }
}

void DeliveryChecker::repeated(std::size_t index, const Phase& phase, std::uint32_t i,
                               const Block& b) {
  // The earlier arrival of the same block at the destination in this phase, if there is one.
  const auto transfers = phase.transfers();
  const Rank at = transfers[i].dst;
  std::optional<std::uint32_t> earlier;
  for (std::uint32_t m = 0; m <= i && violations_ == 0 && !earlier; ++m) {
    const Transfer& u = transfers[m];
    if (u.local() || u.dst != at) continue;
    for (const Block& e : phase.blocks(u)) {
      if (m == i && &e == &b) break;
      if (item(e) == item(b)) {
        earlier = m;
        break;
      }
    }
  }
  duplicate(index, phase, earlier, i, at, b);
}

bool DeliveryChecker::arrives_in_this_phase(Rank r, Block b) const {
  for (const Arrival& a : arriving_)
    if (a.at == r && a.item == item(b)) return true;
  for (const auto& [block, at] : pending_)
    if (at == r && block == key(b.origin, b.dest, b.part)) return true;
  return false;
}

CheckResult DeliveryChecker::all_delivered(std::uint64_t deliveries) {
  return {CheckId::delivery,
          Verdict::pass,
          "every block reaches every rank that needs it exactly once (" +
              std::to_string(deliveries) + " deliveries)",
          {}};
}

CheckResult DeliveryChecker::finish() const {
  // Every rank needs an item from every other origin and none from itself (those are never
  // stored). The first missing delivery in (origin, destination, part) order, as a reader lists
  // them.
  std::uint64_t missing = 0;
  std::uint32_t first = ranks_ * parts_;  // item of the first missing delivery
  Rank missing_dest = 0;
  std::uint64_t required = 0;
  for (Rank d = 0; d < ranks_; ++d) {
    const std::uint64_t own = this->required(d);
    required += own;
    if (arrivals_.size(d) == own) continue;
    missing += own - arrivals_.size(d);
    const std::uint32_t m = first_missing(d);
    if (m / parts_ < first / parts_) {  // ties go to the smaller destination, seen first
      first = m;
      missing_dest = d;
    }
  }
  const Rank missing_origin = first / parts_;
  const std::uint32_t missing_part = first % parts_;

  if (violations_ == 0 && missing == 0) return all_delivered(required);
  CheckResult r{CheckId::delivery, Verdict::fail, {}, {}};
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
