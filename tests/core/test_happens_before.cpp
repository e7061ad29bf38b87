// The happens-before engine (core/happens_before.hpp) against reachability computed the slow way.
#include <doctest/doctest.h>

#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/happens_before.hpp"
#include "core/limits.hpp"

using namespace phasecheck;

namespace {

using Arc = HappensBefore::Arc;

/// Events on threads; event i of `threads` runs on thread[i] at the position it has among its
/// thread's events in index order.
struct Graph {
  std::vector<std::uint32_t> thread, position;
  std::vector<Arc> arcs;
  std::uint32_t threads = 0;
};

Graph graph(std::vector<std::uint32_t> thread, std::vector<Arc> arcs) {
  Graph g;
  g.thread = std::move(thread);
  for (std::uint32_t t : g.thread) g.threads = std::max(g.threads, t + 1);
  std::vector<std::uint32_t> next(g.threads, 0);
  for (std::uint32_t t : g.thread) g.position.push_back(next[t]++);
  g.arcs = std::move(arcs);
  return g;
}

/// n events (2 to 41) on `threads` threads chosen at random, and up to 2n arcs from lower to
/// higher indices: index order is a topological order.
template <class Pick>
std::pair<std::vector<std::uint32_t>, std::vector<Arc>> random_events(const Pick& pick,
                                                                      std::uint32_t threads) {
  const std::uint32_t n = 2 + pick(40);
  std::vector<std::uint32_t> thread(n);
  for (auto& t : thread) t = pick(threads);
  std::vector<Arc> arcs;
  const std::uint32_t m = pick(2 * n);
  for (std::uint32_t k = 0; k < m; ++k) {
    const std::uint32_t a = pick(n), b = pick(n);
    if (a != b) arcs.push_back({std::min(a, b), std::max(a, b)});
  }
  return {std::move(thread), std::move(arcs)};
}

}  // namespace

TEST_CASE(
    "happens_before: a chain through a third thread orders, program order orders, the rest does "
    "not") {
  // Thread 0: e0, e1. Thread 1: e2. Thread 2: e3, e4. e0 -> e2 -> e4.
  const Graph g = graph({0, 0, 1, 2, 2}, {{0, 2}, {2, 4}});
  HappensBefore hb(g.thread, g.position, g.arcs, g.threads, "t.xml");
  for (std::uint32_t e : {0u, 3u, 1u, 2u}) hb.advance(e);
  CHECK(hb.ordered(0));  // e0 -> e2
  CHECK(hb.ordered(2));  // itself
  CHECK_FALSE(hb.ordered(1));
  CHECK_FALSE(hb.ordered(3));
  hb.advance(4);
  CHECK(hb.ordered(0));  // through thread 1
  CHECK(hb.ordered(2));
  CHECK(hb.ordered(3));  // earlier on its thread
  CHECK_FALSE(hb.ordered(1));
}

TEST_CASE("happens_before: agrees with reachability on random graphs") {
  std::mt19937 random(33);
  const auto pick = [&](std::uint32_t k) { return static_cast<std::uint32_t>(random() % k); };
  std::uint64_t pairs = 0, ordered = 0;
  for (int round = 0; round < 300; ++round) {
    auto [thread, arcs] = random_events(pick, 1 + pick(6));
    const auto n = static_cast<std::uint32_t>(thread.size());
    const Graph g = graph(thread, arcs);
    // reach[a][b]: a happens before b, by a pass in index order over arcs and program order.
    std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
    std::vector<std::vector<std::uint32_t>> preds(n);
    for (const Arc& a : arcs) preds[a.to].push_back(a.from);
    std::vector<std::int64_t> last(g.threads, -1);
    for (std::uint32_t b = 0; b < n; ++b) {
      if (last[thread[b]] >= 0) preds[b].push_back(static_cast<std::uint32_t>(last[thread[b]]));
      last[thread[b]] = b;
      reach[b][b] = true;
      for (std::uint32_t p : preds[b])
        for (std::uint32_t a = 0; a < n; ++a)
          if (reach[a][p]) reach[a][b] = true;
    }
    HappensBefore hb(g.thread, g.position, g.arcs, g.threads, "random");
    for (std::uint32_t b = 0; b < n; ++b) {
      hb.advance(b);
      for (std::uint32_t a = 0; a <= b; ++a) {
        ++pairs;
        ordered += reach[a][b];
        REQUIRE(hb.ordered(a) == reach[a][b]);
      }
    }
  }
  // Both answers occur often: the comparison tested something.
  CHECK(ordered > pairs / 10);
  CHECK(pairs - ordered > pairs / 10);
}

TEST_CASE(
    "happens_before: anchors give the same answers with smaller clocks (random graphs, and a "
    "boundary every thread follows)") {
  std::mt19937 random(39);
  const auto pick = [&](std::uint32_t k) { return static_cast<std::uint32_t>(random() % k); };
  std::uint64_t pairs = 0, through = 0;
  for (int round = 0; round < 300; ++round) {
    auto [thread, arcs] = random_events(pick, 2 + pick(6));
    const auto n = static_cast<std::uint32_t>(thread.size());
    // Anchors: some events of thread 0, each with arcs to a few later events.
    std::vector<std::uint32_t> anchors;
    for (std::uint32_t e = 0; e < n; ++e)
      if (thread[e] == 0 && pick(2) == 0) {
        anchors.push_back(e);
        for (std::uint32_t k = 0; k < 3; ++k)
          if (const std::uint32_t b = e + 1 + pick(n); b < n) arcs.push_back({e, b});
      }
    const Graph g = graph(thread, arcs);
    HappensBefore plain(g.thread, g.position, g.arcs, g.threads, "random");
    HappensBefore anchored(g.thread, g.position, g.arcs, g.threads, "random", anchors);
    for (std::uint32_t b = 0; b < n; ++b) {
      plain.advance(b);
      anchored.advance(b);
      for (std::uint32_t a = 0; a <= b; ++a) {
        ++pairs;
        REQUIRE(anchored.ordered(a) == plain.ordered(a));
        through +=
            plain.ordered(a) && g.thread[a] != g.thread[b] && g.thread[b] != 0 && !anchors.empty();
      }
    }
  }
  CHECK(through > pairs / 20);  // orders across threads occurred: the comparison tested something

  // A boundary that 200 threads each reach and each follow: without anchors every clock after
  // it holds 200 entries; with it, one.
  const std::uint32_t k = 200;
  std::vector<std::uint32_t> thread;
  std::vector<Arc> arcs;
  for (std::uint32_t t = 1; t <= k; ++t) thread.push_back(t);  // events 0..k-1: one per thread
  thread.push_back(0);                                         // event k: the boundary
  for (std::uint32_t t = 1; t <= k; ++t) thread.push_back(t);  // events k+1..2k
  for (std::uint32_t i = 0; i < k; ++i) {
    arcs.push_back({i, k});
    arcs.push_back({k, k + 1 + i});
  }
  const Graph b = graph(thread, arcs);
  const std::vector<std::uint32_t> boundary{k};
  HappensBefore plain(b.thread, b.position, b.arcs, b.threads, "boundary");
  HappensBefore anchored(b.thread, b.position, b.arcs, b.threads, "boundary", boundary);
  for (std::uint32_t e = 0; e < b.thread.size(); ++e) {
    plain.advance(e);
    anchored.advance(e);
  }
  CHECK(anchored.ordered(5));  // event 5 (thread 6) before the last event (thread 200)
  CHECK(plain.ordered(5));
  CHECK(anchored.clock_bytes() * 20 < plain.clock_bytes());
}

TEST_CASE("happens_before: events out of order are a logic error") {
  const Graph g = graph({0, 0, 1}, {{0, 2}});
  {
    HappensBefore hb(g.thread, g.position, g.arcs, g.threads, "t.xml");
    CHECK_THROWS_AS(hb.advance(1), std::logic_error);  // e0 first on thread 0
  }
  HappensBefore hb(g.thread, g.position, g.arcs, g.threads, "t.xml");
  CHECK_THROWS_AS(hb.advance(2), std::logic_error);  // waits for e0
}

TEST_CASE("happens_before: its memory is charged before it is allocated, naming the input") {
  const Limits saved = limits();
  Limits small;
  small.max_memory_bytes = 3000;
  set_limits(small);
  // 200 events: 24 bytes each, beyond 3000 bytes before anything is built.
  const Graph big = graph(std::vector<std::uint32_t>(200, 0), {});
  CHECK_THROWS_WITH_AS(
      HappensBefore(big.thread, big.position, big.arcs, big.threads, "x.xml: the race check"),
      doctest::Contains("x.xml: the race check (happens-before: 200 events"), InputError);
  // A chain through 20 threads: the clock of thread t knows the t before it (8 bytes an entry,
  // 64 a clock); the fixed part takes 980 bytes, the clocks pass the rest at the 16th thread.
  std::vector<std::uint32_t> thread;
  std::vector<Arc> arcs;
  for (std::uint32_t t = 0; t < 20; ++t) {
    thread.push_back(t);
    if (t > 0) arcs.push_back({t - 1, t});
  }
  const Graph chain = graph(thread, arcs);
  HappensBefore hb(chain.thread, chain.position, chain.arcs, chain.threads, "y.xml");
  std::uint32_t advanced = 0;
  CHECK_THROWS_WITH_AS(
      [&] {
        for (std::uint32_t e = 0; e < 20; ++e, ++advanced) hb.advance(e);
      }(),
      doctest::Contains("y.xml (happens-before clocks"), InputError);
  // 980 + sum over t <= 15 of (64 + 8 t) = 2900 bytes; the 16th clock would take 3092.
  CHECK(advanced == 16);
  CHECK(hb.clock_bytes() == 15 * 64 + 8 * (15 * 16 / 2));
  set_limits(saved);
}

TEST_CASE(
    "happens_before: clocks stay as small as what reaches them (exchanging pairs: linear in the "
    "threads)") {
  // Not a timing: the bytes the clocks hold at the end, for 100 and 400 pairs of threads that
  // exchange 8 messages each way (a send, then the receive of the partner's send).
  const auto bytes = [](std::uint32_t pairs) {
    std::vector<std::uint32_t> thread;
    std::vector<Arc> arcs;
    for (std::uint32_t k = 0; k < 8; ++k)
      for (std::uint32_t p = 0; p < pairs; ++p)
        for (std::uint32_t side = 0; side < 2; ++side) {
          // Events in index order: round k of pair p, side 0 then side 1; each side's event
          // waits for the other side's event of the round before.
          thread.push_back(2 * p + side);
          const auto e = static_cast<std::uint32_t>(thread.size() - 1);
          if (k > 0) arcs.push_back({e - 2 * pairs + (side == 0 ? 1u : -1u), e});
        }
    const Graph g = graph(thread, arcs);
    HappensBefore hb(g.thread, g.position, g.arcs, g.threads, "pairs");
    for (std::uint32_t e = 0; e < thread.size(); ++e) hb.advance(e);
    CHECK(hb.ordered(
        static_cast<std::uint32_t>(thread.size() - 2 * pairs - 2)));  // the partner's last round
    return hb.clock_bytes();
  };
  const std::uint64_t small = bytes(100), large = bytes(400);
  CHECK(small > 0);
  // One clock of one entry per thread: exactly four times as much, where clocks of all
  // threads would be sixteen times.
  CHECK(large == 4 * small);
}
