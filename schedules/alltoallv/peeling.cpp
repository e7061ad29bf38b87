// Birkhoff-von Neumann peeling with Boost's matchings (schedules/alltoallv/peeling.hpp).

#include "schedules/alltoallv/peeling.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/max_cardinality_matching.hpp>
#include <stdexcept>

namespace phasecheck::schedules::alltoallv {

namespace {

/// The largest sum of `weight(cell)` over one row or column of `m`.
template <class Weight>
std::uint64_t largest_line(const SquareMatrix& m, Weight weight) {
  const Rank p = m.size;
  std::vector<std::uint64_t> column(p, 0);
  std::uint64_t most = 0;
  for (Rank s = 0; s < p; ++s) {
    std::uint64_t row = 0;
    for (Rank d = 0; d < p; ++d) {
      row += weight(m.at(s, d));
      column[d] += weight(m.at(s, d));
    }
    most = std::max(most, row);
  }
  for (std::uint64_t c : column) most = std::max(most, c);
  return most;
}

}  // namespace

std::uint64_t largest_line_sum(const SquareMatrix& m) {
  return largest_line(m, [](std::uint64_t c) { return c; });
}

std::uint64_t largest_line_degree(const SquareMatrix& m) {
  return largest_line(m, [](std::uint64_t c) -> std::uint64_t { return c > 0 ? 1 : 0; });
}

SquareMatrix stuffed(const SquareMatrix& m) {
  const Rank p = m.size;
  const std::uint64_t target = largest_line_sum(m);
  SquareMatrix out = m;
  std::vector<std::uint64_t> row_gap(p, target), column_gap(p, target);
  for (Rank s = 0; s < p; ++s)
    for (Rank d = 0; d < p; ++d) {
      row_gap[s] -= m.at(s, d);
      column_gap[d] -= m.at(s, d);
    }
  const auto fill = [&](Rank s, Rank d) {
    const std::uint64_t add = std::min(row_gap[s], column_gap[d]);
    out.at(s, d) += add;
    row_gap[s] -= add;
    column_gap[d] -= add;
  };
  // Onto the support first: padding there adds no new pair, so the peeling stays sparse.
  for (Rank s = 0; s < p; ++s)
    for (Rank d = 0; d < p && row_gap[s] > 0; ++d)
      if (m.at(s, d) > 0) fill(s, d);
  // The rest pairs rows and columns with room in order (the total room of the rows is the
  // columns'), the north-west corner rule.
  Rank d = 0;
  for (Rank s = 0; s < p; ++s)
    while (row_gap[s] > 0) {
      while (column_gap[d] == 0) ++d;
      fill(s, d);
    }
  return out;
}

namespace {

using Bipartite = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
using Vertex = boost::graph_traits<Bipartite>::vertex_descriptor;
/// The qualifying cells alone, when fewer than 1 / kSparse of them qualify.
using Sparse =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                          boost::no_property, boost::no_property, boost::vecS>;
constexpr std::size_t kSparse = 8;

/// The edges (s, p + d) of K_{p,p} whose cell is at least the threshold.
struct AtLeast {
  const Bipartite* graph = nullptr;
  const SquareMatrix* cells = nullptr;
  const std::uint64_t* threshold = nullptr;
  bool operator()(const boost::graph_traits<Bipartite>::edge_descriptor& e) const {
    Vertex u = boost::source(e, *graph), v = boost::target(e, *graph);
    if (u > v) std::swap(u, v);
    return cells->at(static_cast<Rank>(u), static_cast<Rank>(v - cells->size)) >= *threshold;
  }
};

/// The mate map as Boost's matching() leaves it: the warm start peel() prepared.
template <typename Graph, typename MateMap>
struct KeepMatching {
  static void find_matching(const Graph&, MateMap) {}
};

}  // namespace

struct Peeler::Matcher {
  explicit Matcher(const SquareMatrix& m) : graph(2 * std::size_t{m.size}) {
    const Rank p = m.size;
    for (Rank s = 0; s < p; ++s)
      for (Rank d = 0; d < p; ++d) boost::add_edge(s, std::size_t{p} + d, graph);
    mate.assign(2 * std::size_t{p}, boost::graph_traits<Bipartite>::null_vertex());
  }

  /// Whether the cells of `m` >= `threshold` hold a perfect matching; `mate` is then one. Starts
  /// from the pairs of the last matching that still qualify, adds pairs greedily, and lets
  /// Boost's Edmonds augment the rest.
  bool match(const SquareMatrix& m, std::uint64_t threshold) {
    const Rank p = m.size;
    const Vertex none = boost::graph_traits<Bipartite>::null_vertex();
    std::vector<Rank> free_receivers;
    for (Rank s = 0; s < p; ++s) {
      const Vertex r = mate[s];
      if (r != none && m.at(s, static_cast<Rank>(r - p)) < threshold) {
        mate[s] = none;
        mate[r] = none;
      }
    }
    for (Rank d = 0; d < p; ++d)
      if (mate[std::size_t{p} + d] == none) free_receivers.push_back(d);
    for (Rank s = 0; s < p && !free_receivers.empty(); ++s) {
      if (mate[s] != none) continue;
      for (std::size_t i = 0; i < free_receivers.size(); ++i)
        if (m.at(s, free_receivers[i]) >= threshold) {
          mate[s] = std::size_t{p} + free_receivers[i];
          mate[mate[s]] = s;
          free_receivers[i] = free_receivers.back();
          free_receivers.pop_back();
          break;
        }
    }
    if (free_receivers.empty()) return true;
    std::uint64_t qualifying = 0;
    for (std::uint64_t c : m.cells) qualifying += c >= threshold;
    if (qualifying * kSparse < m.cells.size()) {
      // Few cells qualify (skewed matrices, high thresholds): Boost's searches then scan only
      // them, not every edge of K_{p,p} through the filter.
      Sparse support(2 * std::size_t{p});
      for (Rank s = 0; s < p; ++s)
        for (Rank d = 0; d < p; ++d)
          if (m.at(s, d) >= threshold) boost::add_edge(s, std::size_t{p} + d, support);
      augment(support);
    } else {
      augment(boost::filtered_graph<Bipartite, AtLeast>(graph, AtLeast{&graph, &m, &threshold}));
    }
    return std::all_of(mate.begin(), mate.begin() + p, [&](Vertex v) { return v != none; });
  }

  /// Boost's Edmonds from the matching in `mate`, to a maximum one of `support`.
  template <class Support>
  void augment(const Support& support) {
    boost::matching<Support, Vertex*, decltype(boost::get(boost::vertex_index, support)),
                    boost::edmonds_augmenting_path_finder, KeepMatching,
                    boost::no_matching_verifier>(support, mate.data(),
                                                 boost::get(boost::vertex_index, support));
  }

  Bipartite graph;
  std::vector<Vertex> mate;
};

Peeler::Peeler(SquareMatrix m) : m_(std::move(m)) {
  for (std::uint64_t c : m_.cells) threshold_ = std::max(threshold_, c);
}

Peeler::~Peeler() = default;

std::optional<WeightedPermutation> Peeler::next() {
  if (std::all_of(m_.cells.begin(), m_.cells.end(), [](std::uint64_t c) { return c == 0; }))
    return std::nullopt;
  if (!matcher_) matcher_ = std::make_unique<Matcher>(m_);
  const Rank p = m_.size;
  threshold_ = std::max<std::uint64_t>(threshold_, 1);
  while (!matcher_->match(m_, threshold_)) {
    // Birkhoff: at threshold 1 (the support) a perfect matching exists.
    if (threshold_ == 1) throw std::logic_error("peeling a matrix whose line sums differ");
    threshold_ -= std::max<std::uint64_t>(1, threshold_ / 8);
  }
  WeightedPermutation w{std::vector<Rank>(p), ~std::uint64_t{0}};
  for (Rank s = 0; s < p; ++s) {
    w.receiver[s] = static_cast<Rank>(matcher_->mate[s] - p);
    w.weight = std::min(w.weight, m_.at(s, w.receiver[s]));
  }
  for (Rank s = 0; s < p; ++s) m_.at(s, w.receiver[s]) -= w.weight;
  return w;
}

}  // namespace phasecheck::schedules::alltoallv
