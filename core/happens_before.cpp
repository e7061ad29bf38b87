#include "core/happens_before.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/limits.hpp"

namespace phasecheck {

namespace {

/// A clock's own cost besides its entries: make_shared's control block and the vector.
constexpr std::uint64_t kClockOverhead = 64;

}  // namespace

/// Immutable once built; its destructor gives its bytes back to the engine's count.
struct HappensBefore::Clock {
  std::vector<Entry> entries;  // sorted by thread, never the owning thread's own entry
  std::uint64_t* live = nullptr;
  std::uint64_t bytes = 0;
  Clock() = default;
  Clock(const Clock&) = delete;
  Clock& operator=(const Clock&) = delete;
  ~Clock() { *live -= bytes; }
};

HappensBefore::HappensBefore(std::span<const std::uint32_t> thread,
                             std::span<const std::uint32_t> position, std::span<const Arc> arcs,
                             std::uint32_t threads, std::string what,
                             std::span<const std::uint32_t> anchors, const HappensBefore* sibling,
                             std::uint64_t base)
    : thread_(thread), position_(position), what_(std::move(what)), sibling_(sibling), base_(base) {
  if (thread.size() != position.size()) throw std::logic_error("HappensBefore: sizes differ");
  const std::uint64_t n = thread.size();
  std::uint64_t cross = 0;
  for (const Arc& a : arcs) cross += thread[a.from] != thread[a.to];
  const auto per_event = sizeof(std::uint32_t) * 2 + sizeof(Shared);  // first_, pending_, snapshot_
  const auto per_thread = sizeof(Shared) + sizeof(std::uint32_t);     // clock_, next_
  fixed_ = checked_add(checked_add(checked_mul(n + 1, per_event),
                                   checked_mul(cross, sizeof(std::uint32_t))),
                       checked_mul(threads, per_thread))
               .value_or(~std::uint64_t{0});
  check_memory(checked_add(base_, fixed_), what_ + " (happens-before: " + std::to_string(n) +
                                               " events, " + std::to_string(cross) +
                                               " edges between threadblocks, " +
                                               std::to_string(threads) + " threadblocks)");

  first_.assign(n + 1, 0);
  for (const Arc& a : arcs)
    if (thread[a.from] != thread[a.to]) ++first_[a.to + 1];
  for (std::uint64_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
  preds_.resize(cross);
  pending_.assign(n, 0);
  {
    std::vector<std::uint32_t> at(first_.begin(), first_.end() - 1);
    for (const Arc& a : arcs)
      if (thread[a.from] != thread[a.to]) {
        preds_[at[a.to]++] = a.from;
        ++pending_[a.from];
      }
  }
  snapshot_.resize(n);
  clock_.resize(threads);
  next_.assign(threads, 0);
  anchor_.assign(n, false);
  for (const std::uint32_t a : anchors) {
    anchor_[a] = true;
    anchor_threads_.push_back(thread[a]);
  }
  std::sort(anchor_threads_.begin(), anchor_threads_.end());
  anchor_threads_.erase(std::unique(anchor_threads_.begin(), anchor_threads_.end()),
                        anchor_threads_.end());
  anchored_.resize(anchor_threads_.size());
}

HappensBefore::~HappensBefore() {
  // Clocks give their bytes back to live_ as they go: release them while it exists.
  snapshot_.clear();
  clock_.clear();
  anchored_.clear();
}

std::uint64_t HappensBefore::charged() const {
  std::uint64_t total = base_ + fixed_;
  if (sibling_) total += sibling_->fixed_ + sibling_->live_;
  return total;
}

std::uint32_t HappensBefore::known_in(const Clock* c, std::uint32_t thread) {
  if (!c) return 0;
  const auto it = std::lower_bound(c->entries.begin(), c->entries.end(), thread,
                                   [](const Entry& e, std::uint32_t x) { return e.thread < x; });
  return it != c->entries.end() && it->thread == thread ? it->next : 0;
}

std::uint32_t HappensBefore::known(std::uint32_t t, std::uint32_t thread) const {
  return known_in(clock_[t].get(), thread);
}

void HappensBefore::join(std::uint32_t t, const Shared& s, std::uint32_t u, std::uint32_t p) {
  static const std::vector<Entry> none;
  const std::vector<Entry>& a = clock_[t] ? clock_[t]->entries : none;
  const std::vector<Entry>& b = s ? s->entries : none;
  const std::uint64_t size = a.size() + b.size() + 1;
  const std::uint64_t bytes = kClockOverhead + size * sizeof(Entry);
  check_memory(checked_add(checked_add(charged(), live_), bytes),
               what_ + " (happens-before clocks: 8 bytes per threadblock a clock knows)");
  auto c = std::make_shared<Clock>();
  c->entries.reserve(size);
  // Merge a, b and (u, p + 1) by thread, the larger entry of each; t's own entry stays out
  // (t knows its own position without it).
  const Entry own{u, p + 1};
  bool own_done = false;
  std::size_t i = 0, j = 0;
  const auto push = [&](Entry e) {
    if (e.thread == t) return;
    if (!c->entries.empty() && c->entries.back().thread == e.thread)
      c->entries.back().next = std::max(c->entries.back().next, e.next);
    else
      c->entries.push_back(e);
  };
  while (i < a.size() || j < b.size() || !own_done) {
    const std::uint32_t ta = i < a.size() ? a[i].thread : ~0u;
    const std::uint32_t tb = j < b.size() ? b[j].thread : ~0u;
    const std::uint32_t to = own_done ? ~0u : own.thread;
    const std::uint32_t low = std::min({ta, tb, to});
    if (ta == low) push(a[i++]);
    if (tb == low) push(b[j++]);
    if (to == low && !own_done) {
      push(own);
      own_done = true;
    }
  }
  c->bytes = kClockOverhead + c->entries.capacity() * sizeof(Entry);
  c->live = &live_;
  live_ += c->bytes;
  clock_[t] = std::move(c);
}

void HappensBefore::join_all(std::uint32_t t, const std::vector<std::uint32_t>& preds) {
  std::vector<Entry> all;
  std::uint64_t size = clock_[t] ? clock_[t]->entries.size() : 0;
  for (const std::uint32_t u : preds)
    size += 1 + (!anchor_[u] && snapshot_[u] ? snapshot_[u]->entries.size() : 0);
  const std::uint64_t bytes = kClockOverhead + size * sizeof(Entry);
  check_memory(checked_add(checked_add(charged(), live_), 2 * bytes),
               what_ + " (happens-before clocks: 8 bytes per threadblock a clock knows)");
  all.reserve(size);
  if (clock_[t]) all = clock_[t]->entries;
  for (const std::uint32_t u : preds) {
    all.push_back({thread_[u], position_[u] + 1});
    if (!anchor_[u] && snapshot_[u])
      all.insert(all.end(), snapshot_[u]->entries.begin(), snapshot_[u]->entries.end());
  }
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.next > b.next;
  });
  auto c = std::make_shared<Clock>();
  c->entries.reserve(all.size());
  for (const Entry& x : all)  // the largest entry of each thread comes first
    if (x.thread != t && (c->entries.empty() || c->entries.back().thread != x.thread))
      c->entries.push_back(x);
  c->entries.shrink_to_fit();
  c->bytes = kClockOverhead + c->entries.capacity() * sizeof(Entry);
  c->live = &live_;
  live_ += c->bytes;
  clock_[t] = std::move(c);
}

void HappensBefore::advance(std::uint32_t e) {
  const std::uint32_t t = thread_[e];
  if (position_[e] != next_[t])
    throw std::logic_error("HappensBefore::advance: events of a thread out of order");
  // The predecessors that bring news. Knowing u's thread at or past u means knowing everything
  // u knew: nothing to join. An anchor hands on only itself.
  std::vector<std::uint32_t> news;
  for (std::uint32_t k = first_[e]; k < first_[e + 1]; ++k) {
    const std::uint32_t u = preds_[k];
    if (position_[u] >= next_[thread_[u]])
      throw std::logic_error("HappensBefore::advance: a predecessor was not advanced");
    if (known(t, thread_[u]) <= position_[u]) news.push_back(u);
  }
  if (news.size() == 1) {
    const std::uint32_t u = news.front();
    join(t, anchor_[u] ? Shared() : snapshot_[u], thread_[u], position_[u]);
  } else if (news.size() > 1) {
    join_all(t, news);  // an event many wait on: one merge, not one per predecessor
  }
  for (std::uint32_t k = first_[e]; k < first_[e + 1]; ++k)
    if (--pending_[preds_[k]] == 0) snapshot_[preds_[k]].reset();
  ++next_[t];
  current_ = e;
  if (anchor_[e]) {
    const auto lane = std::lower_bound(anchor_threads_.begin(), anchor_threads_.end(), t);
    anchored_[static_cast<std::size_t>(lane - anchor_threads_.begin())].push_back(
        {position_[e], clock_[t]});
  } else if (pending_[e] > 0) {
    snapshot_[e] = clock_[t];
  }
}

bool HappensBefore::ordered(std::uint32_t a) const {
  const std::uint32_t t = thread_[current_], u = thread_[a];
  if (t == u) return position_[a] <= position_[current_];
  if (known(t, u) > position_[a]) return true;
  return !anchor_threads_.empty() &&
         through_anchors(clock_[t].get(), t, position_[current_] + 1, a);
}

bool HappensBefore::through_anchors(const Clock* c, std::uint32_t t, std::uint32_t next,
                                    std::uint32_t a) const {
  // A search over the anchors known, each visited once: (anchor thread index, anchor index).
  std::vector<std::pair<std::size_t, std::size_t>> stack;
  std::vector<std::vector<bool>> seen(anchored_.size());
  const auto push_known = [&](const Clock* clock, std::uint32_t owner, std::uint32_t owner_next) {
    for (std::size_t l = 0; l < anchor_threads_.size(); ++l) {
      const std::uint32_t lane = anchor_threads_[l];
      const std::uint32_t k = lane == owner ? owner_next : known_in(clock, lane);
      if (k == 0) continue;
      // The latest anchor of that thread at a position below k.
      const auto& list = anchored_[l];
      auto it = std::lower_bound(list.begin(), list.end(), k,
                                 [](const Anchor& x, std::uint32_t p) { return x.position < p; });
      if (it == list.begin()) continue;
      const auto j = static_cast<std::size_t>(it - list.begin()) - 1;
      if (seen[l].empty()) seen[l].assign(list.size(), false);
      if (!seen[l][j]) {
        seen[l][j] = true;
        stack.emplace_back(l, j);
      }
    }
  };
  push_known(c, t, next);
  const std::uint32_t u = thread_[a];
  while (!stack.empty()) {
    const auto [l, j] = stack.back();
    stack.pop_back();
    const Anchor& x = anchored_[l][j];
    const std::uint32_t lane = anchor_threads_[l];
    if (u == lane ? position_[a] <= x.position : known_in(x.clock.get(), u) > position_[a])
      return true;
    push_known(x.clock.get(), lane, x.position);  // its own thread's earlier anchors included
  }
  return false;
}

}  // namespace phasecheck
