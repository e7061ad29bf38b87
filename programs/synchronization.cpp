#include "programs/synchronization.hpp"

#include <algorithm>
#include <bit>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/transitive_reduction.hpp>
#include <map>
#include <set>
#include <string>
#include <type_traits>

#include "core/error.hpp"

namespace phasecheck::programs {

std::vector<std::pair<std::uint32_t, std::uint32_t>> program_order(
    const std::vector<Message>& messages, Rank ranks) {
  // Per rank, the messages of its last phase with messages and of the phase before that.
  struct Last {
    std::uint32_t phase = UINT32_MAX;
    std::vector<std::uint32_t> current, previous;
  };
  std::vector<Last> last(ranks);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::uint32_t m = 0; m < messages.size(); ++m) {
    const Message& x = messages[m];
    for (Rank r : {x.src, x.dst}) {
      Last& l = last[r];
      if (l.phase != x.phase) {
        l.previous = std::move(l.current);
        l.current.clear();
        l.phase = x.phase;
      }
      for (std::uint32_t before : l.previous) edges.push_back({before, m});
      l.current.push_back(m);
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

SyncPlan pairwise_synchronization(const Schedule& schedule, const Topology& model) {
  const Rank p = schedule.header.ranks();
  if (p > kMaxSyncRanks)
    throw InputError("pair-wise synchronization is computed for up to " +
                     std::to_string(kMaxSyncRanks) + " ranks, not " + std::to_string(p) +
                     " (the dependence graph has a vertex per message and the reduction a bit per "
                     "pair of them)");
  if (!for_each_link(model, 0, 0, [](LinkId) {}))
    throw InputError(
        "pair-wise synchronization needs a routed model (tree, hypercube, mesh or "
        "ring), not " +
        describe(model));
  std::uint64_t messages = 0;
  for (const Phase& phase : schedule.phases)
    for (const Transfer& t : phase.transfers()) messages += !t.local();
  if (messages > kMaxSyncMessages)
    throw InputError("pair-wise synchronization is computed for up to " +
                     std::to_string(kMaxSyncMessages) + " messages, not " +
                     std::to_string(messages) +
                     " (the reduction takes a bit per pair of them; segments count one each)");
  SyncPlan plan;
  for (std::uint32_t ph = 0; ph < schedule.phases.size(); ++ph) {
    const auto transfers = schedule.phases[ph].transfers();
    for (std::uint32_t i = 0; i < transfers.size(); ++i)
      if (!transfers[i].local())
        plan.messages.push_back({ph, transfers[i].src, transfers[i].dst, i});
  }
  const auto n = static_cast<std::uint32_t>(plan.messages.size());
  // Without messages (no phases, or local copies only) there is nothing to order.
  if (n == 0) return plan;

  // The users of every directed link, in message order (which is phase order).
  std::map<LinkId, std::vector<std::uint32_t>> users;
  for (std::uint32_t m = 0; m < n; ++m)
    for_each_link(model, plan.messages[m].src, plan.messages[m].dst,
                  [&](LinkId l) { users[l].push_back(m); });
  // Distinct contending pairs: a bit per (earlier, later) message pair, n^2 / 8 bytes (33 MB at
  // kMaxSyncRanks), because pairs sharing several links must count once.
  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint64_t> pair_bits(std::size_t{n} * words, 0);
  std::set<std::pair<std::uint32_t, std::uint32_t>> chain;
  for (const auto& [link, list] : users)
    for (std::size_t i = 0; i < list.size(); ++i) {
      for (std::size_t j = i + 1; j < list.size(); ++j)
        if (plan.messages[list[i]].phase < plan.messages[list[j]].phase)
          pair_bits[list[i] * words + list[j] / 64] |= std::uint64_t{1} << (list[j] % 64);
      // Every user in the next later phase that uses the link: with contention inside a phase
      // there may be several, and each must wait (one edge to the first would order only it).
      std::uint32_t next_phase = UINT32_MAX;
      for (std::size_t j = i + 1; j < list.size(); ++j) {
        const std::uint32_t ph = plan.messages[list[j]].phase;
        if (ph <= plan.messages[list[i]].phase) continue;
        if (next_phase == UINT32_MAX) next_phase = ph;
        if (ph != next_phase) break;
        chain.insert({list[i], list[j]});
      }
    }
  for (const std::uint64_t w : pair_bits) plan.contending_pairs += std::popcount(w);
  plan.dependence_edges = chain.size();

  // The graph the reduction works on: dependence edges and program order.
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph g(n);
  const auto order = program_order(plan.messages, p);
  const std::set<std::pair<std::uint32_t, std::uint32_t>> free(order.begin(), order.end());
  std::set<std::pair<std::uint32_t, std::uint32_t>> all(chain.begin(), chain.end());
  all.insert(order.begin(), order.end());
  for (const auto& [a, b] : all) boost::add_edge(a, b, g);
  Graph reduced;
  std::vector<Graph::vertex_descriptor> to_reduced(n);
  boost::transitive_reduction(g, reduced, to_reduced.data(), boost::get(boost::vertex_index, g));
  std::vector<std::uint32_t> from_reduced(n);
  for (std::uint32_t v = 0; v < n; ++v) from_reduced[to_reduced[v]] = v;
  for (const auto e : boost::make_iterator_range(boost::edges(reduced))) {
    const std::uint32_t a = from_reduced[boost::source(e, reduced)],
                        b = from_reduced[boost::target(e, reduced)];
    if (free.contains({a, b}))
      ++plan.by_program_order;
    else
      plan.kept.push_back({a, b});
  }
  std::sort(plan.kept.begin(), plan.kept.end());
  return plan;
}

}  // namespace phasecheck::programs
