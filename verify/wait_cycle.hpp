#pragma once
/// The cycle behind a deadlock of an execution model (MSCCL, MSCCL++): among the events that never
/// run, those that wait only on other such events are peeled away, repeatedly; what is left lies
/// on or behind a cycle of waits, and walking back along waits that were not peeled finds one.
/// O(events + edges).

#include <cstdint>
#include <optional>
#include <vector>

namespace phasecheck::verify {

/// One step of a cycle: `event` waits, through edge `edge` (an index into the edges given), for
/// the next step's event.
struct CycleStep {
  std::uint32_t event = 0;
  std::uint32_t edge = 0;
};

/// `n` events; `edges` has `.from` and `.to` (the event that waits); `never_runs(e)` tells the
/// events that never run. The cycle in the order each waits for the next, or nothing when every
/// event that never runs waits, directly or not, on one that waits on nothing of them (a fault
/// found otherwise).
template <class Edges, class NeverRuns>
std::optional<std::vector<CycleStep>> wait_cycle(std::uint32_t n, const Edges& edges,
                                                 const NeverRuns& never_runs) {
  std::vector<std::uint32_t> indegree(n, 0);
  std::vector<std::vector<std::uint32_t>> preds(n), succ(n);
  for (std::uint32_t i = 0; i < edges.size(); ++i) {
    const auto& e = edges[i];
    if (!never_runs(e.from) || !never_runs(e.to)) continue;
    ++indegree[e.to];
    preds[e.to].push_back(i);
    succ[e.from].push_back(e.to);
  }
  std::vector<std::uint32_t> ready;
  for (std::uint32_t i = 0; i < n; ++i)
    if (never_runs(i) && indegree[i] == 0) ready.push_back(i);
  std::vector<bool> peeled(n, false);
  for (std::size_t h = 0; h < ready.size(); ++h) {
    peeled[ready[h]] = true;
    for (std::uint32_t v : succ[ready[h]])
      if (--indegree[v] == 0) ready.push_back(v);
  }
  std::optional<std::uint32_t> start;
  for (std::uint32_t i = 0; i < n && !start; ++i)
    if (never_runs(i) && !peeled[i]) start = i;
  if (!start) return std::nullopt;
  // Walk back along unpeeled predecessors until an event repeats: that is a cycle.
  std::vector<CycleStep> path;
  std::vector<std::uint32_t> seen_at(n, ~0u);
  std::uint32_t at = *start;
  while (seen_at[at] == ~0u) {
    seen_at[at] = static_cast<std::uint32_t>(path.size());
    for (std::uint32_t i : preds[at])
      if (!peeled[edges[i].from]) {
        path.push_back({at, i});
        at = edges[i].from;
        break;
      }
  }
  // path[k] waits for path[k + 1]'s event; the cycle starts where `at` was first seen.
  if (seen_at[at] >= path.size()) return std::nullopt;  // (cannot be: an unpeeled event waits)
  return std::vector<CycleStep>(path.begin() + seen_at[at], path.end());
}

}  // namespace phasecheck::verify
