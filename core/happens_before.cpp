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
                             std::uint32_t threads, std::string what)
    : thread_(thread), position_(position), what_(std::move(what)) {
  if (thread.size() != position.size()) throw std::logic_error("HappensBefore: sizes differ");
  const std::uint64_t n = thread.size();
  std::uint64_t cross = 0;
  for (const Arc& a : arcs) cross += thread[a.from] != thread[a.to];
  const auto per_event =
      sizeof(std::uint32_t) * 2 + sizeof(Shared);  // first_, pending_, snapshot_
  const auto per_thread = sizeof(Shared) + sizeof(std::uint32_t);  // clock_, next_
  fixed_ = checked_add(checked_add(checked_mul(n + 1, per_event),
                                   checked_mul(cross, sizeof(std::uint32_t))),
                       checked_mul(threads, per_thread))
               .value_or(~std::uint64_t{0});
  check_memory(fixed_, what_ + " (happens-before: " + std::to_string(n) + " events, " +
                           std::to_string(cross) + " edges between threadblocks, " +
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
}

HappensBefore::~HappensBefore() {
  // Clocks give their bytes back to live_ as they go: release them while it exists.
  snapshot_.clear();
  clock_.clear();
}

std::uint32_t HappensBefore::known(std::uint32_t t, std::uint32_t thread) const {
  const Shared& c = clock_[t];
  if (!c) return 0;
  const auto it = std::lower_bound(c->entries.begin(), c->entries.end(), thread,
                                   [](const Entry& e, std::uint32_t x) { return e.thread < x; });
  return it != c->entries.end() && it->thread == thread ? it->next : 0;
}

void HappensBefore::join(std::uint32_t t, const Shared& s, std::uint32_t u, std::uint32_t p) {
  static const std::vector<Entry> none;
  const std::vector<Entry>& a = clock_[t] ? clock_[t]->entries : none;
  const std::vector<Entry>& b = s ? s->entries : none;
  const std::uint64_t size = a.size() + b.size() + 1;
  const std::uint64_t bytes = kClockOverhead + size * sizeof(Entry);
  check_memory(checked_add(checked_add(fixed_, live_), bytes),
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

void HappensBefore::advance(std::uint32_t e) {
  const std::uint32_t t = thread_[e];
  if (position_[e] != next_[t])
    throw std::logic_error("HappensBefore::advance: events of a thread out of order");
  for (std::uint32_t k = first_[e]; k < first_[e + 1]; ++k) {
    const std::uint32_t u = preds_[k];
    if (position_[u] >= next_[thread_[u]])
      throw std::logic_error("HappensBefore::advance: a predecessor was not advanced");
    // Knowing u's thread at or past u means knowing everything u knew: nothing to join.
    if (known(t, thread_[u]) <= position_[u]) join(t, snapshot_[u], thread_[u], position_[u]);
    if (--pending_[u] == 0) snapshot_[u].reset();
  }
  ++next_[t];
  current_ = e;
  if (pending_[e] > 0) snapshot_[e] = clock_[t];
}

bool HappensBefore::ordered(std::uint32_t a) const {
  const std::uint32_t t = thread_[current_], u = thread_[a];
  if (t == u) return position_[a] <= position_[current_];
  return known(t, u) > position_[a];
}

}  // namespace phasecheck
