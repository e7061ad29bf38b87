#include "verify/synchronization_check.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <type_traits>

#include "core/error.hpp"

namespace phasecheck::verify {
namespace {

class Bits {
 public:
  explicit Bits(std::size_t n) : words_((n + 63) / 64, 0) {}
  void set(std::size_t i) { words_[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool test(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1; }
  Bits& operator|=(const Bits& o) {
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] |= o.words_[w];
    return *this;
  }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace

CheckResult check_synchronization(const Schedule& schedule, const Topology& model,
                                  const std::vector<std::pair<TransferRef, TransferRef>>& syncs) {
  // Number the non-local transfers.
  std::vector<TransferRef> refs;
  std::map<TransferRef, std::uint32_t> id;
  for (std::uint32_t ph = 0; ph < schedule.phases.size(); ++ph) {
    const auto ts = schedule.phases[ph].transfers();
    for (std::uint32_t i = 0; i < ts.size(); ++i)
      if (!ts[i].local()) {
        id[{ph, i}] = static_cast<std::uint32_t>(refs.size());
        refs.push_back({ph, i});
      }
  }
  const auto n = refs.size();
  const auto transfer = [&](std::uint32_t m) -> const Transfer& {
    return schedule.phases[refs[m].phase][refs[m].transfer];
  };

  // Successors: the synchronizations, and per rank its messages of its next busy phase.
  std::vector<std::vector<std::uint32_t>> next(n);
  for (const auto& [a, b] : syncs) {
    const auto ia = id.find(a), ib = id.find(b);
    if (ia == id.end() || ib == id.end())
      throw InputError("a synchronization names a transfer that is not a message of the table");
    if (!(a.phase < b.phase))
      throw InputError("a synchronization must point from an earlier phase to a later one");
    next[ia->second].push_back(ib->second);
  }
  std::map<Rank, std::map<std::uint32_t, std::vector<std::uint32_t>>> by_rank;  // rank, phase
  for (std::uint32_t m = 0; m < n; ++m) {
    by_rank[transfer(m).src][refs[m].phase].push_back(m);
    by_rank[transfer(m).dst][refs[m].phase].push_back(m);
  }
  for (const auto& [rank, phases] : by_rank)
    for (auto it = phases.begin(); std::next(it) != phases.end(); ++it)
      for (std::uint32_t a : it->second)
        for (std::uint32_t b : std::next(it)->second) next[a].push_back(b);

  // Reachability, latest phase first (every edge points to a later phase).
  std::vector<Bits> reach(n, Bits(n));
  for (std::size_t m = n; m-- > 0;)
    for (std::uint32_t s : next[m]) {
      reach[m].set(s);
      reach[m] |= reach[s];
    }

  // Every pair of messages on one directed link, in different phases, must be ordered.
  std::map<LinkId, std::vector<std::uint32_t>> users;
  for (std::uint32_t m = 0; m < n; ++m)
    if (!for_each_link(model, transfer(m).src, transfer(m).dst,
                       [&](LinkId l) { users[l].push_back(m); }))
      throw InputError(
          "synchronization is checked on routed models (tree, hypercube, mesh, "
          "ring), not " +
          describe(model));
  std::uint64_t pairs = 0, unordered = 0;
  std::optional<Counterexample> first;
  for (const auto& [link, list] : users)
    for (std::size_t i = 0; i < list.size(); ++i)
      for (std::size_t j = i + 1; j < list.size(); ++j) {
        const std::uint32_t a = list[i], b = list[j];
        if (refs[a].phase == refs[b].phase) continue;  // contention itself: not this check's
        ++pairs;
        if (reach[a].test(b)) continue;
        if (unordered++ > 0) continue;
        const Transfer &x = transfer(a), &y = transfer(b);
        Counterexample c;
        c.phase = refs[b].phase;
        c.label = schedule.phases[refs[b].phase].label();
        c.phase_size = schedule.phases[refs[b].phase].size();
        c.transfers = {{x.src, x.dst, {}, {}}, {y.src, y.dst, {}, {}}};
        c.resource = "link " + link_name(model, link);
        c.explanation = std::to_string(x.src) + " -> " + std::to_string(x.dst) + " (phase " +
                        std::to_string(refs[a].phase) + ") and " + std::to_string(y.src) + " -> " +
                        std::to_string(y.dst) + " (phase " + std::to_string(refs[b].phase) +
                        ") share link " + link_name(model, link) +
                        ", but neither program order nor any synchronization makes the second "
                        "wait for the first";
        first = std::move(c);
      }
  CheckResult r{CheckId::synchronization, Verdict::pass, {}, first};
  if (unordered == 0) {
    r.summary = "every contending pair is ordered by program order and the " +
                std::to_string(syncs.size()) + " synchronization messages (" +
                std::to_string(pairs) + " pairs checked, once per shared link)";
  } else {
    r.verdict = Verdict::fail;
    r.summary = std::to_string(unordered) + " of " + std::to_string(pairs) +
                " contending pairs (counted once per shared link) are not ordered";
  }
  return r;
}

}  // namespace phasecheck::verify
