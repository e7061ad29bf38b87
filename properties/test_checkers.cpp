// The delivery checker checked by a second method: the naive simulation over a std::set of
// (rank, block) holdings that `mutate` uses too (naive.hpp), written from the definition in
// docs/models.md, must agree with it on random schedules near the valid ones (relays, junk,
// drops): same verdict, same delivered pairs.

#include "doctest_rapidcheck.hpp"
#include "naive.hpp"
#include "verify/delivery.hpp"

using namespace phasecheck;

namespace {

/// A random schedule near the valid ones: every message, direct or relayed through one other
/// rank, placed in random phases (a relay leg may come too early), then a few random transfers
/// (junk, duplicates, blocks the sender does not hold) and a few dropped ones.
std::vector<Phase> near_valid_schedule(Collective c, Rank p) {
  const std::size_t phases = *rc::gen::inRange<std::size_t>(1, 2 * p + 1);
  std::vector<Phase> out(phases);
  const auto phase = [phases] { return *rc::gen::inRange<std::size_t>(0, phases); };
  const auto few = [] { return *rc::gen::weightedElement<int>({{4, 0}, {1, 1}, {1, 2}}); };
  const int relay_odds = *rc::gen::inRange(0, 3);  // in 8
  for (Rank o = 0; o < p; ++o)
    for (Rank d = 0; d < p; ++d) {
      if (o == d) continue;
      const Block b = direct_block(c, o, d);
      if (*rc::gen::inRange(0, 8) >= relay_odds || p < 3) {
        out[phase()].add(o, d, std::vector<Block>{b});
        continue;
      }
      const Rank via = *rc::gen::suchThat(rc::gen::inRange<Rank>(0, p),
                                          [&](Rank k) { return k != o && k != d; });
      const std::size_t first = phase();
      out[first].add(o, via, std::vector<Block>{b});
      out[*rc::gen::inRange(first, phases)].add(via, d, std::vector<Block>{b});
    }
  for (int junk = few(); junk > 0; --junk) {
    const Rank s = *rc::gen::inRange<Rank>(0, p), d = *rc::gen::inRange<Rank>(0, p);
    const Rank bo = *rc::gen::inRange<Rank>(0, p), bd = *rc::gen::inRange<Rank>(0, p);
    out[phase()].add(
        s, d,
        std::vector<Block>{c == Collective::alltoall ? Block{bo, bd} : Block{bo, kEveryRank}});
  }
  for (int drop = few(); drop > 0; --drop) {
    Phase& victim = out[phase()];
    if (victim.size() == 0) continue;
    const std::size_t gone = *rc::gen::inRange<std::size_t>(0, victim.size());
    Phase kept;
    const auto ts = victim.transfers();
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (i != gone) kept.add(ts[i].src, ts[i].dst, victim.blocks(ts[i]));
    victim = std::move(kept);
  }
  return out;
}

}  // namespace

TEST_CASE("the delivery checker agrees with a naive simulation") {
  properties::check("same verdict and same delivered pairs", [] {
    const Rank p = *rc::gen::inRange<Rank>(1, 6);
    const Collective c = *rc::gen::element(Collective::alltoall, Collective::allgather);
    const std::vector<Phase> phases = near_valid_schedule(c, p);
    verify::DeliveryChecker checker(c, p);
    for (std::size_t i = 0; i < phases.size(); ++i) checker.consume(i, phases[i]);
    Schedule table;
    table.header.topology = FullyConnected(p, 1);
    table.header.collective = c;
    table.phases = phases;
    const properties::NaiveDelivery expected = properties::naive_delivery(table);
    const bool valid = expected.problem.empty();
    RC_CLASSIFY(valid, "valid");
    RC_ASSERT((checker.finish().verdict == verify::Verdict::pass) == valid);
    for (Rank o = 0; o < p; ++o)
      for (Rank d = 0; d < p; ++d)
        if (o != d) RC_ASSERT(checker.delivered(o, d) == (expected.delivered.count({o, d}) == 1));
  });
}
