#include "mutate.hpp"

#include <map>
#include <random>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::properties {
namespace {

using Held = std::tuple<Rank, Rank, Rank, std::uint32_t>;  // rank, origin, dest, part

bool naive_delivery(const Schedule& s) {
  const Rank p = s.header.ranks();
  const bool alltoall = s.header.collective == Collective::alltoall;
  std::set<Held> held;
  for (Rank o = 0; o < p; ++o)
    for (std::uint32_t part = 0; part < s.header.parts; ++part) {
      if (alltoall)
        for (Rank d = 0; d < p; ++d) held.insert({o, o, d, part});
      else
        held.insert({o, o, kEveryRank, part});
    }
  for (const Phase& ph : s.phases) {
    std::vector<Held> arrivals;
    for (const Transfer& t : ph.transfers())
      for (const Block& b : ph.blocks(t)) {
        if (!held.count({t.src, b.origin, b.dest, b.part})) return false;  // not held
        if (t.src != t.dst) arrivals.push_back({t.dst, b.origin, b.dest, b.part});
      }
    for (const auto& a : arrivals) {
      const auto& [r, o, d, part] = a;
      const bool needs = !alltoall || r == d;
      if (!held.insert(a).second && needs) return false;  // a second arrival where it is needed
    }
  }
  for (Rank o = 0; o < p; ++o)
    for (Rank d = 0; d < p; ++d)
      for (std::uint32_t part = 0; part < s.header.parts; ++part)
        if (o != d && !held.count({d, o, alltoall ? d : kEveryRank, part})) return false;
  return true;
}

bool naive_contention_free(const Schedule& s, const Topology& model) {
  for (const Phase& ph : s.phases) {
    std::vector<const Transfer*> moving;
    for (const Transfer& t : ph.transfers())
      if (t.src != t.dst) moving.push_back(&t);
    if (const auto* f = std::get_if<FullyConnected>(&model)) {
      std::map<Rank, Rank> out, in;
      for (const Transfer* t : moving)
        if (++out[t->src] > f->ports || ++in[t->dst] > f->ports) return false;
    } else if (const auto* c = std::get_if<Cluster>(&model)) {
      std::map<std::uint32_t, std::vector<const Transfer*>> by_node;
      for (const Transfer* t : moving) {
        by_node[c->node_of(t->src)].push_back(t);
        if (c->node_of(t->dst) != c->node_of(t->src)) by_node[c->node_of(t->dst)].push_back(t);
      }
      for (const auto& [node, list] : by_node) {
        if (list.size() == 1) continue;
        const bool exchange = list.size() == 2 && list[0]->src == list[1]->dst &&
                              list[0]->dst == list[1]->src &&
                              c->node_of(list[0]->src) != c->node_of(list[0]->dst);
        if (!exchange) return false;
      }
    } else {
      std::map<LinkId, int> uses;
      for (const Transfer* t : moving)
        for_each_link(model, t->src, t->dst, [&](LinkId l) { ++uses[l]; });
      for (const auto& [link, n] : uses)
        if (n > 1) return false;
    }
  }
  return true;
}

/// A copy of `phase` transformed transfer by transfer: `edit(i, src, dst, blocks)` may change
/// them and returns how many copies to keep (0 drops it, 2 duplicates it).
template <class Edit>
Phase rebuilt(const Phase& phase, Edit&& edit) {
  Phase out{std::string(phase.label())};
  for (std::size_t i = 0; i < phase.size(); ++i) {
    const Transfer& t = phase[i];
    Rank src = t.src, dst = t.dst;
    const auto b = phase.blocks(t);
    std::vector<Block> blocks(b.begin(), b.end());
    const int copies = edit(i, src, dst, blocks);
    for (int k = 0; k < copies; ++k) out.add(src, dst, blocks);
  }
  return out;
}

}  // namespace

NaiveVerdict naive_verdict(const Schedule& schedule, const Topology& model) {
  return {naive_delivery(schedule), naive_contention_free(schedule, model)};
}

bool MutationReport::perfect() const {
  for (const auto& c : classes)
    if (c.missed || c.over_strict) return false;
  return true;
}

MutationReport mutate(const Schedule& original, const Topology& model, std::uint32_t per_class,
                      std::uint64_t seed) {
  const Rank p = original.header.ranks();
  if (p > 64)
    throw InputError("mutate re-simulates every mutant naively: at most 64 ranks, not " +
                     std::to_string(p));
  std::size_t transfers = 0;
  for (const Phase& ph : original.phases) transfers += ph.size();
  if (transfers == 0) throw InputError("mutate: the schedule has no transfer to mutate");

  const auto* algorithm = schedules::find_algorithm(original.header.algorithm);
  const Claims claims = algorithm ? algorithm->claims(original.header) : Claims{};
  MutationReport report;
  report.contention_counts = naive_contention_free(original, model);

  std::mt19937_64 rng(seed);
  const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  // A random transfer: (phase, index), by position in the whole table.
  const auto any_transfer = [&] {
    std::size_t k = pick(transfers);
    for (std::size_t ph = 0;; ++ph) {
      if (k < original.phases[ph].size()) return std::pair{ph, k};
      k -= original.phases[ph].size();
    }
  };

  const char* names[] = {"drop a transfer",     "duplicate a transfer",   "move to another phase",
                         "redirect a transfer", "drop a forwarded block", "merge two phases"};
  for (int cls = 0; cls < 6; ++cls) {
    MutationClass mc{names[cls]};
    for (std::uint32_t n = 0; n < per_class; ++n) {
      Schedule m{original.header, original.phases};
      const auto [ph, at] = any_transfer();
      const auto only = [&, phase = ph, index = at](auto&& edit) {
        m.phases[phase] = rebuilt(original.phases[phase],
                                  [&](std::size_t i, Rank& s, Rank& d, std::vector<Block>& b) {
                                    return i == index ? edit(s, d, b) : 1;
                                  });
      };
      bool made = true;
      switch (cls) {
        case 0:
          only([](Rank&, Rank&, std::vector<Block>&) { return 0; });
          break;
        case 1:
          only([](Rank&, Rank&, std::vector<Block>&) { return 2; });
          break;
        case 2: {
          if (original.phases.size() < 2) {
            made = false;
            break;
          }
          std::size_t to = pick(original.phases.size() - 1);
          if (to >= ph) ++to;
          const Transfer& t = original.phases[ph][at];
          const auto b = original.phases[ph].blocks(t);
          only([](Rank&, Rank&, std::vector<Block>&) { return 0; });
          m.phases[to].add(t.src, t.dst, std::vector<Block>(b.begin(), b.end()));
          break;
        }
        case 3:
          only([&](Rank&, Rank& d, std::vector<Block>&) {
            d = static_cast<Rank>((d + 1 + pick(std::max<Rank>(p - 1, 1))) % p);
            return 1;
          });
          break;
        case 4: {
          // A transfer with several blocks: lose one of them.
          std::vector<std::pair<std::size_t, std::size_t>> forwarded;
          for (std::size_t q = 0; q < original.phases.size(); ++q)
            for (std::size_t i = 0; i < original.phases[q].size(); ++i)
              if (original.phases[q][i].block_count > 1) forwarded.push_back({q, i});
          if (forwarded.empty()) {
            made = false;
            break;
          }
          const auto [q, i] = forwarded[pick(forwarded.size())];
          const std::size_t lose = pick(original.phases[q][i].block_count);
          m.phases[q] =
              rebuilt(original.phases[q], [&](std::size_t k, Rank&, Rank&, std::vector<Block>& b) {
                if (k == i) b.erase(b.begin() + static_cast<std::ptrdiff_t>(lose));
                return 1;
              });
          break;
        }
        default: {
          if (original.phases.size() < 2) {
            made = false;
            break;
          }
          const std::size_t first = pick(original.phases.size() - 1);
          Phase merged = original.phases[first];
          for (const Transfer& t : original.phases[first + 1].transfers())
            merged.add(t.src, t.dst, original.phases[first + 1].blocks(t));
          m.phases[first] = merged;
          m.phases.erase(m.phases.begin() + static_cast<std::ptrdiff_t>(first) + 1);
        }
      }
      if (!made) break;
      ++mc.mutants;
      const NaiveVerdict naive = naive_verdict(m, model);
      const bool valid = naive.delivered && (!report.contention_counts || naive.contention_free);
      verify::Report r;
      try {
        r = verify::verify(m, model, claims);
      } catch (const InputError&) {
        // Malformed (a redirected rank, say): rejected before any check ran.
        mc.invalid += !valid;
        mc.caught += !valid;
        mc.over_strict += valid;
        continue;
      }
      const bool accepted =
          r.passed("delivery") && (!report.contention_counts || r.passed("contention"));
      if (!valid) {
        ++mc.invalid;
        accepted ? ++mc.missed : ++mc.caught;
      } else if (!accepted) {
        ++mc.over_strict;
      } else if (r.verdict() != verify::Verdict::pass) {
        ++mc.claims_only;
      }
    }
    report.classes.push_back(mc);
  }
  return report;
}

}  // namespace phasecheck::properties
