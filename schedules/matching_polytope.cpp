// LEMON's maximum-weight matching and Gomory-Hu tree behind plain vectors (C++17: see the header).

#include "schedules/matching_polytope.hpp"

#include <lemon/gomory_hu.h>
#include <lemon/matching.h>
#include <lemon/smart_graph.h>

#include <limits>

namespace phasecheck::schedules {

using Graph = lemon::SmartGraph;

std::vector<std::uint32_t> max_weight_matching(std::uint32_t n,
                                               const std::vector<WeightedPair>& pairs) {
  Graph g;
  g.reserveNode(static_cast<int>(n));
  g.reserveEdge(static_cast<int>(pairs.size()));
  for (std::uint32_t x = 0; x < n; ++x) g.addNode();
  Graph::EdgeMap<std::int64_t> weight(g);
  for (const WeightedPair& p : pairs)
    weight[g.addEdge(g.nodeFromId(static_cast<int>(p.x)), g.nodeFromId(static_cast<int>(p.y)))] =
        p.weight;
  lemon::MaxWeightedMatching<Graph, Graph::EdgeMap<std::int64_t>> matching(g, weight);
  matching.run();
  std::vector<std::uint32_t> mate(n);
  for (std::uint32_t x = 0; x < n; ++x) {
    const Graph::Node m = matching.mate(g.nodeFromId(static_cast<int>(x)));
    mate[x] = m == lemon::INVALID ? x : static_cast<std::uint32_t>(g.id(m));
  }
  return mate;
}

OddCut min_odd_cut(std::uint32_t n, const std::vector<std::uint64_t>& capacity,
                   const std::vector<std::uint64_t>& spare) {
  // Nodes 0..n-1 and z = n, joined to every x by spare[x]. The terminals T: the n nodes when n is
  // even, all n + 1 when n is odd; either way a cut with an odd number of terminals on one side
  // has an odd set of the n nodes on the side without z, and every odd set of them is one.
  Graph g;
  const int z = static_cast<int>(n);
  for (int x = 0; x <= z; ++x) g.addNode();
  Graph::EdgeMap<std::int64_t> cap(g);
  const auto join = [&](int x, int y, std::uint64_t c) {
    if (c > 0) cap[g.addEdge(g.nodeFromId(x), g.nodeFromId(y))] = static_cast<std::int64_t>(c);
  };
  for (std::uint32_t x = 0; x < n; ++x) {
    for (std::uint32_t y = x + 1; y < n; ++y)
      join(static_cast<int>(x), static_cast<int>(y), capacity[std::size_t{x} * n + y]);
    join(static_cast<int>(x), z, spare[x]);
  }
  lemon::GomoryHu<Graph, Graph::EdgeMap<std::int64_t>> tree(g, cap);
  tree.run();

  // Terminals below each tree node, children before parents (an order by depth, deepest first).
  const int nodes = z + 1;
  std::vector<int> parent(nodes, -1), order;
  std::vector<std::vector<int>> children(nodes);
  for (int v = 0; v < nodes; ++v) {
    const Graph::Node p = tree.predNode(g.nodeFromId(v));
    if (p != lemon::INVALID) {
      parent[v] = g.id(p);
      children[parent[v]].push_back(v);
    } else {
      order.push_back(v);  // the root
    }
  }
  for (std::size_t i = 0; i < order.size(); ++i)
    for (const int c : children[order[i]]) order.push_back(c);
  std::vector<int> terminals(nodes, 0);
  const bool z_terminal = n % 2 == 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    terminals[*it] += *it != z || z_terminal;
    if (parent[*it] >= 0) terminals[parent[*it]] += terminals[*it];
  }
  int best = -1;
  std::int64_t best_value = std::numeric_limits<std::int64_t>::max();
  for (int v = 0; v < nodes; ++v)
    if (parent[v] >= 0 && terminals[v] % 2 == 1 && tree.predValue(g.nodeFromId(v)) < best_value) {
      best = v;
      best_value = tree.predValue(g.nodeFromId(v));
    }
  OddCut cut;
  if (best < 0) return cut;  // fewer than one odd set: n == 0
  cut.value = static_cast<std::uint64_t>(best_value);
  std::vector<char> below(nodes, 0);
  std::vector<int> stack{best};
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    below[v] = 1;
    for (const int c : children[v]) stack.push_back(c);
  }
  const char side = below[z] ? 0 : 1;  // S is the side without z
  for (std::uint32_t x = 0; x < n; ++x)
    if (below[x] == side) cut.set.push_back(x);
  return cut;
}

}  // namespace phasecheck::schedules
