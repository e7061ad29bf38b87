// A check split by phase range (verify/phase_ranges.hpp) makes the report a single verifier
// gives, or none, and then the caller checks the schedule whole: on any machine, for direct
// schedules that deliver every message once and for ones a mutation breaks (a message twice, one
// never, a local copy), cut into 1 to 3 ranges anywhere, with invariants that ask about messages
// of earlier ranges (delivered, delivered_all, holds), one that holds while a message has not
// arrived, one that asks what a range cannot answer (delivered_count), and a request limit. A
// schedule whose whole check passes delivery and the invariants the ranges can answer always gets
// its report from the ranges. (The processes' exchange and the fallback:
// tests/pipeline/test_check.cpp.)

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "doctest_rapidcheck.hpp"
#include "generators.hpp"
#include "verify/phase_ranges.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

struct Case {
  ScheduleHeader header;
  Claims claims;
  std::vector<std::string> labels;
  std::vector<std::vector<DirectTransfer>> phases;
  bool counts_deliveries = false;  // an invariant asks delivered_count
  bool asks_absence = false;       // an invariant holds where a message has not arrived yet
  DirectPhase direct(std::size_t i) const { return {labels[i], header.collective, phases[i]}; }
};

Case random_case() {
  Case c;
  c.header.algorithm = "random ranges";
  c.header.topology = *rc::gen::arbitrary<Topology>();
  c.header.collective = *rc::gen::element(Collective::alltoall, Collective::allgather);
  const Rank p = ranks(c.header.topology);
  std::vector<DirectTransfer> pairs;
  for (Rank i = 0; i < p; ++i)
    for (Rank j = 0; j < p; ++j)
      if (i != j) pairs.push_back({i, j});
  // A random order: a permutation drawn as sort keys.
  const auto keys = *rc::gen::container<std::vector<std::uint32_t>>(
      pairs.size(), rc::gen::arbitrary<std::uint32_t>());
  std::vector<std::size_t> order(pairs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  std::vector<DirectTransfer> shuffled;
  for (std::size_t i : order) shuffled.push_back(pairs[i]);
  // Mutations, now and then: a message twice, one dropped, a local copy.
  if (!shuffled.empty() && *rc::gen::inRange(0, 4) == 0)
    shuffled.push_back(shuffled[*rc::gen::inRange<std::size_t>(0, shuffled.size())]);
  if (!shuffled.empty() && *rc::gen::inRange(0, 5) == 0)
    shuffled.erase(shuffled.begin() + *rc::gen::inRange<std::ptrdiff_t>(
                                          0, static_cast<std::ptrdiff_t>(shuffled.size())));
  if (p > 0 && *rc::gen::inRange(0, 5) == 0) {
    const Rank r = *rc::gen::inRange<Rank>(0, p);
    shuffled.insert(shuffled.begin(), DirectTransfer{r, r});
  }
  const std::size_t count = *rc::gen::inRange<std::size_t>(1, 9);
  std::vector<std::size_t> cuts = *rc::gen::container<std::vector<std::size_t>>(
      count - 1, rc::gen::inRange<std::size_t>(0, shuffled.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  cuts.insert(cuts.begin(), 0);
  cuts.push_back(shuffled.size());
  for (std::size_t i = 0; i < count; ++i) {
    c.labels.push_back("phase " + std::to_string(i));
    c.phases.emplace_back(shuffled.begin() + static_cast<std::ptrdiff_t>(cuts[i]),
                          shuffled.begin() + static_cast<std::ptrdiff_t>(cuts[i + 1]));
  }
  // After phase t every message of phases 0 .. t has arrived: by delivered, by delivered_all
  // over every origin at one destination when t is the last phase, and by holds. Now and then
  // the invariant is wrong at one boundary and asks for phase t + 1's messages too: a range asked
  // about its own
  // later messages, or a later range's, assumes them, and the earlier ranges must not bear that
  // out.
  const auto phases = c.phases;
  const Collective collective = c.header.collective;
  const bool wrong = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
  const std::size_t wrong_at = *rc::gen::inRange<std::size_t>(0, count);
  c.claims.invariants.push_back(
      {"every message so far has arrived",
       [phases, p, wrong, wrong_at](const Boundary& b, const DataView& data) {
         if (b.phase >= phases.size()) return Finding::not_applicable();
         const std::size_t ahead = wrong && b.phase == wrong_at ? 1 : 0;
         for (std::size_t t = 0; t <= std::min(b.phase + ahead, phases.size() - 1); ++t)
           for (const DirectTransfer& x : phases[t])
             if (!data.delivered(x.src, x.dst))
               return Finding::broken(std::to_string(x.src) + " -> " + std::to_string(x.dst));
         if (b.phase + 1 == phases.size())
           for (Rank d = 0; d < p; ++d)
             if (!data.delivered_all(0, p, d))
               return Finding::broken("not all at " + std::to_string(d));
         return Finding::holds();
       }});
  c.claims.invariants.push_back({"the blocks of the last phase are held",
                                 [phases, collective](const Boundary& b, const DataView& data) {
                                   if (b.phase + 1 != phases.size() || phases.back().empty())
                                     return Finding::not_applicable();
                                   const DirectTransfer x = phases.back().front();
                                   return data.holds(x.dst, direct_block(collective, x.src, x.dst))
                                              ? Finding::holds()
                                              : Finding::broken("not held");
                                 }});
  // Broken at one boundary when 0 -> 1 has arrived by then (a range after it must not say so
  // from an assumption the earlier ranges do not bear out).
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, count + 1);
  c.asks_absence = *rc::gen::arbitrary<bool>();
  if (c.asks_absence)
    c.claims.invariants.push_back({"0 -> 1 not yet at boundary " + std::to_string(at),
                                   [at, p](const Boundary& b, const DataView& data) {
                                     if (b.phase != at || p < 2) return Finding::not_applicable();
                                     return data.delivered(0, 1) ? Finding::broken("arrived")
                                                                 : Finding::holds();
                                   }});
  if (*rc::gen::inRange(0, 6) == 0) {
    c.counts_deliveries = true;
    c.claims.invariants.push_back({"counts", [p](const Boundary&, const DataView& data) {
                                     return p > 0 && data.delivered_count(0) > p
                                                ? Finding::broken("too many")
                                                : Finding::holds();
                                   }});
  }
  if (*rc::gen::arbitrary<bool>())
    c.claims.max_requests = Claims::RequestLimit{*rc::gen::inRange(1u, 4u), "max_queue"};
  return c;
}

/// The report the ranges [cuts[k], cuts[k + 1]) make, each judged alone, their arrivals fitted
/// slice by slice (process k holds destinations [p k / n, p (k + 1) / n)), as pipeline/check.cpp
/// does over processes; empty when they cannot make it.
std::optional<verify::Report> in_ranges(const Case& c, const std::vector<std::uint64_t>& cuts) {
  const std::size_t n = cuts.size() - 1;
  const Rank p = c.header.ranks();
  std::vector<std::unique_ptr<verify::Verifier>> verifiers;
  std::vector<verify::Verifier::RangeFindings> findings;
  for (std::size_t k = 0; k < n; ++k) {
    verifiers.push_back(std::make_unique<verify::Verifier>(
        c.header, c.header.topology, c.claims, verify::Share{true, 0, 1, cuts[k], true}));
    for (std::uint64_t i = cuts[k]; i < cuts[k + 1]; ++i) verifiers.back()->consume(c.direct(i));
    findings.push_back(verifiers.back()->range_findings());
  }
  const auto slice = [&](std::size_t j) { return static_cast<Rank>(std::uint64_t{p} * j / n); };
  for (std::size_t j = 0; j < n; ++j) {
    std::vector<std::vector<std::uint32_t>> words(n);
    std::vector<std::span<const std::uint32_t>> spans;
    for (std::size_t k = 0; k < n; ++k) {
      verifiers[k]->range_words(slice(j), slice(j + 1), words[k]);
      spans.emplace_back(words[k]);
    }
    findings[j].fits = verify::fit(p, slice(j), slice(j + 1), spans);
  }
  return verifiers.front()->finish_ranges(findings);
}

}  // namespace

TEST_CASE("phase ranges: the report of the whole check, or none") {
  std::size_t cases = 0, made = 0, declined = 0, passed = 0, split = 0;
  properties::check("ranges make the whole report or none", [&] {
    const Case c = random_case();
    ++cases;
    verify::Verifier whole_verifier(c.header, c.header.topology, c.claims);
    for (std::size_t i = 0; i < c.phases.size(); ++i) whole_verifier.consume(c.direct(i));
    const verify::Report whole = whole_verifier.finish();
    const std::size_t n = *rc::gen::weightedElement<std::size_t>({{1, 1}, {2, 2}, {2, 3}});
    std::vector<std::uint64_t> cuts = *rc::gen::container<std::vector<std::uint64_t>>(
        n - 1, rc::gen::inRange<std::uint64_t>(0, c.phases.size() + 1));
    std::sort(cuts.begin(), cuts.end());
    cuts.insert(cuts.begin(), 0);
    cuts.push_back(c.phases.size());
    const auto report = in_ranges(c, cuts);
    if (report) {
      RC_ASSERT(*report == whole);
      ++made;
      split += n > 1 && cuts[1] > 0 && cuts[1] < c.phases.size() ? 1 : 0;
    } else {
      ++declined;
    }
    // What the ranges can answer and the whole check passes, they report. (A range answers
    // "arrived" for a block it has not seen, for the earlier ranges to bear out: an invariant
    // that holds because a block has not arrived yet makes the ranges decline.)
    const bool answerable = !c.counts_deliveries && !c.asks_absence;
    if (answerable && whole.passed(verify::CheckId::delivery) &&
        whole.passed(verify::CheckId::invariants)) {
      ++passed;
      RC_ASSERT(report.has_value());
    }
  });
  // Both outcomes came up, and reports made from ranges cut inside the schedule (shares of the
  // cases run: RC_PARAMS may ask for more or fewer than CTest's 300).
  CHECK(made * 5 > cases);
  CHECK(declined * 20 > cases);
  CHECK(passed * 20 > cases);
  CHECK(split * 100 > cases);
}

TEST_CASE("phase ranges: fit refuses words range_words cannot have written") {
  const std::vector<std::uint32_t> truncated{1, 0};  // one run, its end missing
  const std::vector<std::span<const std::uint32_t>> ranges{truncated};
  CHECK_THROWS_AS(verify::fit(2, 0, 1, ranges), std::runtime_error);
  const std::vector<std::uint32_t> beyond{1, 1, 9, 0};  // origins up to 9 of 2 ranks
  const std::vector<std::span<const std::uint32_t>> far{beyond};
  CHECK_THROWS_AS(verify::fit(2, 0, 1, far), std::runtime_error);
  // Rank 0 receives from 1 in one range and again in the next: a duplicate across ranges.
  const std::vector<std::uint32_t> once{1, 1, 2, 0}, again{1, 1, 2, 0};
  const std::vector<std::span<const std::uint32_t>> both{once, again};
  CHECK_FALSE(verify::fit(2, 0, 1, both));
  const std::vector<std::uint32_t> none{0, 0};
  const std::vector<std::span<const std::uint32_t>> one{once, none};
  CHECK(verify::fit(2, 0, 1, one));
  // The second range assumed 1 -> 0 arrived before it: it did, in the first.
  const std::vector<std::uint32_t> assumed{0, 1, 1, 2};
  const std::vector<std::span<const std::uint32_t>> borne{once, assumed};
  CHECK(verify::fit(2, 0, 1, borne));
  // The first range assumed it (nothing comes before the first range).
  const std::vector<std::uint32_t> first_assumes{1, 1, 2, 1, 1, 2};
  const std::vector<std::span<const std::uint32_t>> unborne{first_assumes, none};
  CHECK_FALSE(verify::fit(2, 0, 1, unborne));
}
