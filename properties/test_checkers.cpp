// The delivery checker checked by a second method: a naive simulation over a std::set of
// (rank, block) holdings, written from the definition in docs/models.md, must agree with it on
// random (mostly invalid) schedules: same verdict, same delivered pairs.

#include <map>
#include <set>
#include <tuple>

#include "doctest_rapidcheck.hpp"
#include "verify/delivery.hpp"

using namespace phasecheck;

namespace {

struct RawTransfer {
  std::uint8_t src, dst;
  std::vector<std::pair<std::uint8_t, std::uint8_t>> blocks;  // empty: the direct message
};

struct Naive {
  bool valid = true;
  std::set<std::pair<Rank, Rank>> delivered;  // (origin, dest)
};

Naive naive(Collective c, Rank p, const std::vector<Phase>& phases) {
  // holdings: (rank, origin, dest-or-kEveryRank)
  std::set<std::tuple<Rank, Rank, Rank>> held;
  for (Rank o = 0; o < p; ++o)
    for (Rank d = 0; d < p; ++d) held.insert({o, o, c == Collective::alltoall ? d : kEveryRank});
  Naive out;
  for (const Phase& ph : phases) {
    std::vector<std::tuple<Rank, Rank, Rank>> arrivals;
    for (const Transfer& t : ph.transfers())
      for (const Block& b : ph.blocks(t)) {
        if (!held.count({t.src, b.origin, b.dest})) out.valid = false;
        if (t.src != t.dst) arrivals.push_back({t.dst, b.origin, b.dest});
      }
    for (const auto& [r, o, d] : arrivals) {
      const bool needs = c == Collective::allgather || r == d;
      if (needs && !held.insert({r, o, d}).second) out.valid = false;  // twice at a destination
      held.insert({r, o, d});
    }
  }
  for (Rank o = 0; o < p; ++o)
    for (Rank d = 0; d < p; ++d)
      if (o != d && held.count({d, o, c == Collective::alltoall ? d : kEveryRank}))
        out.delivered.insert({o, d});
  if (out.delivered.size() != std::size_t{p} * (p - 1)) out.valid = false;
  return out;
}

}  // namespace

TEST_CASE("the delivery checker agrees with a naive simulation") {
  properties::check("same verdict and same delivered pairs", [] {
    const Rank p = *rc::gen::inRange<Rank>(1, 5);
    const Collective c = *rc::gen::element(Collective::alltoall, Collective::allgather);
    const auto raw = *rc::gen::container<std::vector<std::vector<RawTransfer>>>(
        rc::gen::container<std::vector<RawTransfer>>(rc::gen::construct<RawTransfer>(
            rc::gen::arbitrary<std::uint8_t>(), rc::gen::arbitrary<std::uint8_t>(),
            rc::gen::resize(3,
                            rc::gen::container<std::vector<std::pair<std::uint8_t, std::uint8_t>>>(
                                rc::gen::arbitrary<std::pair<std::uint8_t, std::uint8_t>>())))));
    std::vector<Phase> phases;
    for (const auto& rp : raw) {
      Phase ph;
      for (const RawTransfer& t : rp) {
        const Rank s = t.src % p, d = t.dst % p;
        std::vector<Block> blocks;
        for (const auto& [o, x] : t.blocks)
          blocks.push_back(c == Collective::alltoall ? Block{Rank(o % p), Rank(x % p)}
                                                     : Block{Rank(o % p), kEveryRank});
        if (blocks.empty()) blocks.push_back(direct_block(c, s, d));
        ph.add(s, d, blocks);
      }
      phases.push_back(std::move(ph));
    }
    verify::DeliveryChecker checker(c, p);
    for (std::size_t i = 0; i < phases.size(); ++i) checker.consume(i, phases[i]);
    const Naive expected = naive(c, p, phases);
    RC_CLASSIFY(expected.valid, "valid");
    RC_ASSERT((checker.finish().verdict == verify::Verdict::pass) == expected.valid);
    for (Rank o = 0; o < p; ++o)
      for (Rank d = 0; d < p; ++d)
        if (o != d) RC_ASSERT(checker.delivered(o, d) == (expected.delivered.count({o, d}) == 1));
  });
}
