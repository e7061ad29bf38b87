#include "verify/verifier.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <type_traits>

#include "core/error.hpp"
#include "verify/bounds.hpp"
#include "verify/traffic_bounds.hpp"

namespace phasecheck::verify {

namespace {

/// Whether `t` carries its own message only (a direct schedule's transfers all do): one block of
/// it (any part), or for an alltoallv any of its pieces (bvn sends several in one transfer).
bool carries_own_message(const Phase& phase, const Transfer& t, const ScheduleHeader& header) {
  const auto blocks = phase.blocks(t);
  if (header.traffic)
    return std::all_of(blocks.begin(), blocks.end(),
                       [&](const Block& b) { return b.origin == t.src && b.dest == t.dst; });
  if (blocks.size() != 1) return false;
  Block b = blocks[0];
  b.part = 0;
  return b == direct_block(header.collective, t.src, t.dst);
}

/// A phase's transfers and label, whether a Phase or a direct phase.
std::span<const Transfer> transfers_of(const Phase& phase) { return phase.transfers(); }
std::span<const DirectTransfer> transfers_of(const DirectPhase& phase) { return phase.transfers; }
std::string_view label_of(const Phase& phase) { return phase.label(); }
std::string_view label_of(const DirectPhase& phase) { return phase.label; }

/// Whether any transfer moves data between ranks (a phase of local copies only moves none).
template <class T>
bool moves(std::span<const T> transfers) {
  return std::any_of(transfers.begin(), transfers.end(), [](const T& t) { return !t.local(); });
}

/// The faults an imported program's execution model found (core/imported.hpp), as a check.
CheckResult execution_check(const Imported& imported) {
  CheckResult c{CheckId::execution, Verdict::pass, imported.summary, {}};
  if (imported.faults.empty()) {
    c.summary += imported.format == "mscclpp"
                     ? ": every wait is released, no deadlock, no race"
                     : ": every send meets its receive, no deadlock, no race";
    return c;
  }
  c.verdict = Verdict::fail;
  const ExecutionFault& f = imported.faults.front();
  c.summary += ": " + std::to_string(imported.faults.size()) +
               (imported.faults.size() == 1 ? " fault, " : " faults, the first ") +
               std::string(to_string(f.kind));
  Counterexample x;
  x.explanation = std::string(to_string(f.kind)) + ": " + f.explanation;
  if (f.phase) x.explanation += " (in phase " + std::to_string(*f.phase) + ")";
  x.steps = f.steps;
  c.counterexample = std::move(x);
  return c;
}

/// Names the source steps of every op and transfer a counterexample shows.
void name_sources(Report& r, const Imported& imported) {
  for (CheckResult& c : r.checks) {
    if (!c.counterexample) continue;
    Counterexample& x = *c.counterexample;
    for (OffendingOp& o : x.ops)
      if (o.phase < imported.ops.size() && o.index < imported.ops[o.phase].size())
        o.origin = to_string(imported.ops[o.phase][o.index]);
    // A transfer of phase t is the sends src -> dst of that phase; the lowered program lists
    // them in op order, so find them through the ops of the phase.
    if (!x.phase || *x.phase >= imported.ops.size()) continue;
    const auto& origins = imported.ops[*x.phase];
    for (OffendingTransfer& t : x.transfers)
      for (const OpOrigin& o : origins)
        if (o.sender.gpu == t.src && o.receiver.gpu == t.dst && !(o.sender == o.receiver))
          t.origin += (t.origin.empty() ? "" : ", ") + to_string(o);
  }
}

}  // namespace

Verifier::Verifier(const ScheduleHeader& header, const Topology& model, Claims claims, Share share)
    : header_(header),
      model_(model),
      claims_(std::move(claims)),
      share_(share),
      delivery_(header.collective, header.ranks(), header.parts),
      contention_(model) {
  if (header.traffic) delivery_.expect(*header.traffic, header.pieces());
  if (header.buffers) {
    if (header.parts != header.buffers->chunks)
      throw InputError("a format-3 schedule has as many parts as chunks (parts " +
                       std::to_string(header.parts) + ", chunks " +
                       std::to_string(header.buffers->chunks) + ")");
    if (!share.stateful || share.slices != 1)
      throw InputError("a format-3 schedule is checked by one verifier, not spread");
    placement_.emplace(header.collective, header.ranks(), *header.buffers);
  } else if (header.parts < 1 || header.parts > kMaxParts) {
    throw InputError("parts must be 1 to " + std::to_string(kMaxParts) +
                     " (segments of each message or contribution)");
  }
  if (ranks(model) != header.ranks())
    throw InputError("the schedule has " + std::to_string(header.ranks()) + " ranks but " +
                     describe(model) + " has " + std::to_string(ranks(model)));
  next_ = share.first;
  if (share.ranged) {
    if (placement_)
      throw std::logic_error("Verifier: a format-3 schedule is not checked in ranges");
    // A range's arrivals alone settle delivery only with one part a message and no traffic.
    apart_ = header.parts == 1 && !header.traffic;
    if (share.first > 0) earlier_.emplace(delivery_, header.collective, header.ranks());
  }
}

template <class T>
void Verifier::count_requests(std::size_t index, std::span<const T> transfers,
                              std::string_view label) {
  if (requests_.empty()) requests_.assign(header_.ranks(), 0);
  touched_.clear();
  for (const T& t : transfers)
    for (const Rank r : {t.src, t.dst})  // the Isend and the Irecv (a local copy posts both)
      if (requests_[r]++ == 0) touched_.push_back(r);
  // In rank order: the first counterexample is the smallest rank over the limit.
  std::sort(touched_.begin(), touched_.end());
  const std::uint32_t limit = claims_.max_requests->at_most;
  for (const Rank r : touched_) {
    most_requests_ = std::max(most_requests_, requests_[r]);
    if (requests_[r] > limit && request_failures_++ == 0)
      request_first_ = Counterexample{
          index,
          std::string(label),
          transfers.size(),
          {},
          "the request queue of rank " + std::to_string(r),
          "rank " + std::to_string(r) + " has " + std::to_string(requests_[r]) +
              " requests outstanding in phase " + std::to_string(index) + ", more than " +
              std::to_string(limit) + " (" + claims_.max_requests->source + ")"};
  }
  for (const Rank r : touched_) requests_[r] = 0;
}

void Verifier::validate(std::size_t index, const Phase& phase) const {
  if (placement_) {
    const auto ops = phase.ops();
    const Rank ranks = header_.ranks();  // (a visit of the topology: once, not per op)
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (const auto problem = op_problem(ops[i], ranks))
        throw InputError("phase " + std::to_string(index) + ", op " + std::to_string(i) + ": " +
                         *problem);
    return;
  }
  const Rank ranks = header_.ranks();  // (a visit of the topology: once, not per transfer)
  const Traffic* traffic = header_.traffic ? &*header_.traffic : nullptr;
  if (!traffic && transfers_well_formed(phase, header_.collective, ranks, header_.parts)) return;
  for (std::size_t i = 0; i < phase.size(); ++i)
    if (const auto problem = transfer_problem(phase, phase[i], header_.collective, ranks,
                                              header_.parts, traffic, header_.pieces()))
      throw InputError("phase " + std::to_string(index) + ", transfer " + std::to_string(i) + ": " +
                       *problem);
}

void Verifier::consume(const Phase& phase) {
  validate(next_, phase);
  consume_valid(phase);
}

void Verifier::consume_valid(const Phase& phase) { consume_valid(phase, share_.local(next_)); }

void Verifier::consume_valid(const Phase& phase, bool local) {
  // A Phase may forward blocks, whose arrivals depend on the phases before: not judged apart.
  if (share_.ranged) apart_ = false;
  const std::size_t index = next_++;
  if (placement_)
    consume_table(placement_->consume(index, phase), index, local);
  else
    consume_table(phase, index, local);
}

template <class P>
void Verifier::consume_table(const P& phase, std::size_t index, bool local) {
  constexpr bool kDirect = std::is_same_v<P, DirectPhase>;  // judged_direct: nothing else to see
  if (local) {
    contention_.consume(index, phase);
    if (claims_.max_requests) count_requests(index, transfers_of(phase), label_of(phase));
  }
  if (!share_.stateful) return;
  if constexpr (!kDirect)
    if (table_observer_) table_observer_(phase);
  delivery_.consume(index, phase);

  std::uint32_t largest = 0;
  std::uint64_t heaviest = 0;  // an alltoallv's largest transfer, in bytes
  const Traffic* traffic = header_.traffic ? &*header_.traffic : nullptr;
  // Local sums: the members would be stored back at every transfer (they may alias the phase).
  std::uint64_t blocks = 0;
  bool direct = counts_.direct;
  bool own = true;
  if constexpr (!kDirect) own = !traffic && phase.carries_own_messages(header_.collective);
  if (own) {
    // One block a transfer, each its sender's own message: the sums without the blocks.
    blocks = phase.size();
    largest = moves(transfers_of(phase)) ? 1 : 0;
  } else if constexpr (!kDirect) {
    for (const Transfer& t : phase.transfers()) {
      blocks += t.block_count;
      if (t.local()) continue;
      largest = std::max(largest, t.block_count);
      if (traffic)
        heaviest = std::max(heaviest, transfer_bytes(phase, t, *traffic, header_.pieces()));
      if (direct && !carries_own_message(phase, t, header_)) direct = false;
    }
  }
  count(phase.size(), blocks, largest, heaviest, direct);
  check_invariants(index, label_of(phase), phase.size());
}

void Verifier::count(std::uint64_t transfers, std::uint64_t blocks, std::uint32_t largest,
                     std::uint64_t heaviest, bool direct) {
  counts_.transfers += transfers;
  counts_.blocks += blocks;
  counts_.direct = direct;
  ++counts_.phases;
  if (largest > 0) ++counts_.c1;
  counts_.c2 += largest;
  cost_bytes_ += heaviest;
}

void Verifier::check_invariants(std::size_t index, std::string_view label, std::size_t size) {
  invariant_evaluated_.resize(claims_.invariants.size());
  for (std::size_t i = 0; i < claims_.invariants.size(); ++i) {
    const Invariant& inv = claims_.invariants[i];
    const Finding finding =
        inv.check(Boundary{index}, earlier_ ? static_cast<const DataView&>(*earlier_) : delivery_);
    switch (finding.kind()) {
      case Finding::Kind::not_applicable:
        continue;
      case Finding::Kind::holds:
        ++invariant_evaluated_[i];
        continue;
      case Finding::Kind::broken:
        ++invariant_evaluated_[i];
        if (invariant_failures_++ == 0)
          invariant_first_ = Counterexample{
              index,
              std::string(label),
              size,
              {},
              inv.name,
              inv.name + " fails after phase " + std::to_string(index) + ": " + finding.what()};
        continue;
    }
  }
}

void Verifier::validate(std::size_t index, const DirectPhase& phase) const {
  if (judged_direct(phase)) {
    // Own messages, part 0, one a transfer: well-formed when every rank exists. (A scalar pass
    // without a branch: vectorized, its wide loads of pairs the generator has just stored one by
    // one measured 2.7x slower.)
    const Rank ranks = header_.ranks();
    bool beyond = false;
    for (const DirectTransfer& t : phase.transfers) beyond |= (t.src >= ranks) | (t.dst >= ranks);
    if (!beyond) return;
  }
  // The Phase it stands for names the transfer and the problem.
  Phase whole;
  phase.fill(whole);
  validate(index, whole);
}

void Verifier::consume(const DirectPhase& phase) {
  validate(next_, phase);
  consume_valid(phase);
}

void Verifier::consume_valid(const DirectPhase& phase) {
  consume_valid(phase, share_.local(next_));
}

void Verifier::consume_valid(const DirectPhase& phase, bool local) {
  if (!judged_direct(phase) || table_observer_) {
    Phase whole;
    phase.fill(whole);
    return consume_valid(whole, local);
  }
  const std::size_t index = next_++;
  consume_table(phase, index, local);
}

bool Verifier::judged_direct(const DirectPhase& phase) const {
  return !placement_ && !header_.traffic && phase.collective == header_.collective;
}

CheckResult Verifier::invariants_check(const std::vector<std::uint64_t>& evaluated) const {
  const auto& all = claims_.invariants;
  CheckResult c{CheckId::invariants, Verdict::not_evaluated, {}, invariant_first_};
  if (all.empty()) {
    c.summary = "no invariant is known for '" + header_.algorithm + "'";
    return c;
  }
  std::vector<std::string> idle;  // invariants that applied at no boundary of this schedule
  std::uint64_t boundaries = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::uint64_t n = i < evaluated.size() ? evaluated[i] : 0;
    if (n == 0) idle.push_back(all[i].name);
    boundaries += n;
  }
  if (invariant_failures_ > 0) {
    c.verdict = Verdict::fail;
    c.summary = std::to_string(invariant_failures_) +
                (invariant_failures_ == 1 ? " invariant violation" : " invariant violations");
    return c;
  }
  if (idle.size() == all.size()) {
    c.summary = all.size() == 1 ? "the invariant applies at no phase boundary of this schedule"
                                : "none of the " + std::to_string(all.size()) +
                                      " invariants applies at any phase boundary of this schedule";
    return c;
  }
  const std::size_t held = all.size() - idle.size();
  c.verdict = Verdict::pass;
  c.summary =
      held == 1
          ? (boundaries == 1 ? "1 invariant holds at the one phase boundary where "
                               "it applies"
                             : "1 invariant holds at each of the " + std::to_string(boundaries) +
                                   " phase boundaries where it applies")
          : std::to_string(held) + " invariants hold, checked " + std::to_string(boundaries) +
                " times at the phase boundaries where they apply";
  for (const std::string& name : idle) c.summary += "; not evaluated (applies nowhere): " + name;
  return c;
}

Verifier::Partial Verifier::partial() const {
  return {contention_.tally(), most_requests_, request_failures_, request_first_};
}

void Verifier::Partial::merge(const Partial& other) {
  contention.merge(other.contention);
  most_requests = std::max(most_requests, other.most_requests);
  request_failures += other.request_failures;
  if (other.request_first &&
      (!request_first || *other.request_first->phase < *request_first->phase))
    request_first = other.request_first;
}

Verifier::RangeFindings Verifier::range_findings(std::span<const Partial> others) const {
  if (!share_.ranged) throw std::logic_error("Verifier::range_findings: not a range");
  RangeFindings f{partial(), counts_, invariant_evaluated_, false, false};
  for (const Partial& p : others) f.partial.merge(p);
  f.invariant_evaluated.resize(claims_.invariants.size());
  f.clean = apart_ && delivery_.violations() == 0 && invariant_failures_ == 0 &&
            (!earlier_ || earlier_->exact());
  return f;
}

void Verifier::range_words(Rank lo, Rank hi, std::vector<std::uint32_t>& out) {
  if (!share_.ranged) throw std::logic_error("Verifier::range_words: not a range");
  if (earlier_) earlier_->sort();
  verify::range_words(delivery_, earlier_ ? &*earlier_ : nullptr, lo, hi, out);
}

Report Verifier::finish(std::span<const Partial> others) const {
  if (!share_.stateful)
    throw std::logic_error("Verifier::finish: only the stateful share makes the report");
  if (share_.ranged) throw std::logic_error("Verifier::finish: a range's report is finish_ranges");
  Partial local = partial();
  for (const Partial& p : others) local.merge(p);
  return report(local, counts_, invariant_evaluated_, delivery_.finish());
}

std::optional<Report> Verifier::finish_ranges(std::span<const RangeFindings> ranges) const {
  if (!share_.ranged) throw std::logic_error("Verifier::finish_ranges: not a range");
  if (ranges.empty()) throw std::logic_error("Verifier::finish_ranges: no range");
  for (const RangeFindings& f : ranges)
    if (!f.clean || !f.fits) return std::nullopt;
  // Every range clean: no duplicate and no broken invariant anywhere (so this verifier's own
  // invariant failures, which report() reads, are none), and the arrivals fit: every block
  // arrived exactly once, and every invariant got the true answers.
  Partial local = ranges.front().partial;
  Counts counts = ranges.front().counts;
  std::vector<std::uint64_t> evaluated = ranges.front().invariant_evaluated;
  for (const RangeFindings& f : ranges.subspan(1)) {
    local.merge(f.partial);
    counts.phases += f.counts.phases;
    counts.c1 += f.counts.c1;
    counts.c2 += f.counts.c2;
    counts.transfers += f.counts.transfers;
    counts.blocks += f.counts.blocks;
    counts.direct = counts.direct && f.counts.direct;
    for (std::size_t i = 0; i < evaluated.size() && i < f.invariant_evaluated.size(); ++i)
      evaluated[i] += f.invariant_evaluated[i];
  }
  const std::uint64_t ranks = header_.ranks();
  return report(local, counts, evaluated,
                DeliveryChecker::all_delivered(ranks * (ranks - 1) * header_.parts));
}

Report Verifier::report(const Partial& local, const Counts& counts,
                        const std::vector<std::uint64_t>& evaluated, CheckResult delivery) const {
  Report r;
  r.algorithm = header_.algorithm;
  r.collective = header_.collective;
  r.inplace = header_.in_place();
  r.topology = describe(model_);
  r.counts = counts;
  // An alltoallv's bounds are in bytes: the block bounds count equal messages.
  if (header_.traffic) {
    LoadBound load = load_bound(model_, *header_.traffic);
    r.bytes = ByteFigures{cost_bytes_, load.bytes, std::move(load.argument)};
  }
  for (Bound& b : header_.traffic ? std::vector<Bound>{} : lower_bounds(model_, header_.collective)) {
    if (b.direct_only && !counts.direct) continue;
    if (header_.parts > 1 && b.metric == Metric::c2) {  // every message is `parts` blocks
      b.value *= header_.parts;
      b.argument += ", times " + std::to_string(header_.parts) + " parts per message";
    }
    r.bounds.push_back(std::move(b));
  }
  if (!header_.traffic)
    for (Bound& b : compound_bounds(model_, header_.collective, counts))
      r.bounds.push_back(std::move(b));
  std::tie(r.bound_c1, r.bound_c2) = best_bounds(r.bounds, counts.direct);

  if (header_.imported) r.checks.push_back(execution_check(*header_.imported));
  if (placement_) r.checks.push_back(placement_->finish());
  r.checks.push_back(std::move(delivery));
  r.checks.push_back(ContentionChecker::judge(model_, local.contention));
  r.checks.push_back(invariants_check(evaluated));
  if (claims_.phases || claims_.c2 || claims_.cost_bytes) {
    CheckResult c{CheckId::claims, Verdict::pass, {}, {}};
    const auto judge = [&c](const PhaseClaim& claim, std::uint64_t value, const std::string& what) {
      const std::string range = claim.at_least == claim.at_most
                                    ? std::to_string(claim.at_least)
                                    : "between " + std::to_string(claim.at_least) + " and " +
                                          std::to_string(claim.at_most);
      const std::string text = what + "; the algorithm claims " + range + " (" + claim.source + ")";
      c.summary += (c.summary.empty() ? "" : "; ") + text;
      if (!claim.holds(value) && c.verdict == Verdict::pass) {
        c.verdict = Verdict::fail;
        c.counterexample = Counterexample{{}, {}, 0, {}, "claim", "the schedule has " + text};
      }
    };
    if (claims_.phases)
      judge(*claims_.phases, counts.phases,
            std::to_string(counts.phases) + (counts.phases == 1 ? " phase" : " phases"));
    if (claims_.c2) {
      // The algorithm claims C2 in messages; a schedule cut into parts counts parts.
      PhaseClaim in_parts = *claims_.c2;
      if (header_.parts > 1 && !header_.buffers) {
        in_parts.at_least *= header_.parts;
        in_parts.at_most *= header_.parts;
        in_parts.source += ", times " + std::to_string(header_.parts) + " parts";
      }
      judge(in_parts, counts.c2, "C2 = " + std::to_string(counts.c2));
    }
    if (claims_.cost_bytes)
      judge(*claims_.cost_bytes, cost_bytes_, "cost " + std::to_string(cost_bytes_) + " bytes");
    r.checks.push_back(std::move(c));
  }
  if (claims_.max_requests) {
    CheckResult q{CheckId::requests, Verdict::pass, {}, local.request_first};
    q.summary = "at most " + std::to_string(local.most_requests) +
                " requests outstanding per rank and phase; the algorithm allows " +
                std::to_string(claims_.max_requests->at_most) + " (" +
                claims_.max_requests->source + ")";
    if (local.request_failures > 0) {
      q.verdict = Verdict::fail;
      q.summary += "; exceeded " + std::to_string(local.request_failures) + " times";
    }
    r.checks.push_back(std::move(q));
  }
  r.checks.push_back(r.bytes ? check_load_bound(counts, *r.bytes)
                             : check_bounds(counts, r.bound_c1, r.bound_c2));
  if (header_.imported) name_sources(r, *header_.imported);
  return r;
}

Report verify(const Schedule& schedule, const Topology& model, Claims claims) {
  Verifier v(schedule.header, model, std::move(claims));
  for (const Phase& p : schedule.phases) v.consume(p);
  return v.finish();
}

std::string_view to_string(Metric m) { return m == Metric::c1 ? "C1" : "C2"; }

Verdict Report::verdict() const {
  std::vector<Verdict> verdicts;
  verdicts.reserve(checks.size());
  for (const CheckResult& c : checks) verdicts.push_back(c.verdict);
  return overall(verdicts);
}

bool Report::passed(CheckId id) const {
  for (const CheckResult& c : checks)
    if (c.id == id) return c.verdict == Verdict::pass;
  return false;
}

std::string Report::broken_claims(bool contention_free_claimed) const {
  std::string broken;
  for (const CheckResult& c : checks) {
    if (c.verdict == Verdict::pass || c.verdict == Verdict::not_evaluated || c.id == CheckId::bounds)
      continue;
    if (c.id == CheckId::contention && !contention_free_claimed) continue;
    broken += std::string(c.name()) + ": " + c.summary +
              (c.counterexample ? " / " + c.counterexample->explanation : "") + "; ";
  }
  return broken;
}

}  // namespace phasecheck::verify
