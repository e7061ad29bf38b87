#include "verify/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace phasecheck::verify {
namespace {

/// Consecutive phases, copied once and read by every worker.
struct Batch {
  std::size_t size = 0;  // phases in use (the vector keeps earlier capacity)
  std::uint64_t transfers = 0;
  std::size_t first = 0;  // the index of phases[0]
  // The stateful worker judges the phase-local checks of the reading thread's phases here (it
  // was keeping up when the batch began); the reading thread skips them.
  bool handed_over = false;
  // The phases: copies of Phases, or of direct phases (8 bytes a transfer: less to carry from
  // the reading thread's core to the workers'); a batch holds one kind.
  bool direct = false;
  std::vector<Phase> phases;
  struct Direct {
    std::string label;
    Collective collective;
    std::size_t end;  // its transfers are pairs[previous end, end)
  };
  std::vector<Direct> directs;
  std::vector<DirectTransfer> pairs;
  // Per phase: whether this process judges its phase-local checks (ParallelVerifier::consume).
  std::vector<bool> here;

  void add(const Phase& phase, bool mine) {
    if (size == phases.size()) phases.emplace_back();
    phases[size] = phase;
    mark(mine);
  }
  void add(const DirectPhase& phase, bool mine) {
    pairs.insert(pairs.end(), phase.transfers.begin(), phase.transfers.end());
    if (size == directs.size()) directs.emplace_back();
    Direct& d = directs[size];
    d.label.assign(phase.label);
    d.collective = phase.collective;
    d.end = pairs.size();
    mark(mine);
  }
  void mark(bool mine) {
    if (size == here.size()) here.push_back(mine);
    here[size++] = mine;
  }
  DirectPhase direct_phase(std::size_t i) const {
    const std::size_t begin = i == 0 ? 0 : directs[i - 1].end;
    return {directs[i].label, directs[i].collective,
            std::span<const DirectTransfer>(pairs).subspan(begin, directs[i].end - begin)};
  }
};

// A batch is handed on once it holds this many transfers or phases: large enough that the queue
// costs nothing next to the checks, small enough that a few in flight stay a few MiB.
constexpr std::uint64_t kBatchTransfers = 1 << 15;
constexpr std::size_t kBatchPhases = 1024;
constexpr std::size_t kQueueDepth = 8;  // batches waiting per worker

/// A bounded queue of batches between the reading thread and one worker.
class Queue {
 public:
  /// Blocks while full. False once the queue was closed.
  void push(std::shared_ptr<const Batch> b) {
    std::unique_lock lock(mutex_);
    space_.wait(lock, [&] { return items_.size() < kQueueDepth || closed_; });
    if (closed_) return;
    items_.push_back(std::move(b));
    ready_.notify_one();
  }
  /// Batches waiting now (a hint: it may change at once).
  std::size_t waiting() {
    std::lock_guard lock(mutex_);
    return items_.size();
  }
  /// Blocks while empty; null once closed and drained.
  std::shared_ptr<const Batch> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !items_.empty() || closed_; });
    if (items_.empty()) return nullptr;
    auto b = std::move(items_.front());
    items_.pop_front();
    space_.notify_one();
    return b;
  }
  /// No more batches: the worker drains what is queued and stops. `drop` discards it instead.
  void close(bool drop) {
    std::lock_guard lock(mutex_);
    closed_ = true;
    if (drop) items_.clear();
    ready_.notify_all();
    space_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<std::shared_ptr<const Batch>> items_;
  bool closed_ = false;
};

}  // namespace

struct ParallelVerifier::Impl {
  struct Worker {
    Worker(const ScheduleHeader& h, const Topology& model, const Claims& claims, Share s)
        : share(s), verifier(h, model, claims, s) {}
    Share share;
    Verifier verifier;
    Queue queue;
    std::thread thread;
  };

  const ScheduleHeader& header;
  Share share;                              // this process's
  std::optional<Verifier> inline_verifier;  // threads == 1
  std::optional<Verifier> caller;           // the reading thread's part of the phase-local checks
  Share caller_share{false, 0, 0};          // its share
  std::vector<std::unique_ptr<Worker>> workers;
  bool stateful_worker = false;  // workers[0] holds the stateful checks

  std::mutex pool_mutex;
  std::vector<std::unique_ptr<Batch>> pool;  // batches every worker is done with
  std::size_t next = 0;                      // index of the next phase
  std::shared_ptr<Batch> batch;              // being filled; returns to the pool

  std::atomic<bool> failed{false};
  std::mutex error_mutex;
  std::exception_ptr error;
  bool joined = false;

  Impl(const ScheduleHeader& h, Share s) : header(h), share(s), next(s.first) {}

  void run(Worker& w) {
    const bool takes_over = stateful_worker && &w == workers.front().get() && caller;
    while (auto b = w.queue.pop()) {
      if (failed.load(std::memory_order_relaxed)) continue;
      try {
        const bool callers_too = takes_over && b->handed_over;
        const auto check = [&](const auto& phase, std::size_t i) {
          const std::size_t index = b->first + i;
          w.verifier.consume_valid(phase, b->here[i] && (callers_too ? caller_share.local(index)
                                                                     : w.share.local(index)));
        };
        for (std::size_t i = 0; i < b->size; ++i)
          if (b->direct)
            check(b->direct_phase(i), i);
          else
            check(b->phases[i], i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  }

  std::shared_ptr<Batch> fresh_batch(bool direct) {
    std::unique_ptr<Batch> b;
    {
      std::lock_guard lock(pool_mutex);
      if (!pool.empty()) {
        b = std::move(pool.back());
        pool.pop_back();
      }
    }
    if (!b) b = std::make_unique<Batch>();
    b->size = 0;
    b->transfers = 0;
    b->first = next;
    b->direct = direct;
    b->pairs.clear();
    // A stateful worker with at most one batch waiting has time to spare: it takes the reading
    // thread's phase-local checks for this batch (a generating reader judges contention while
    // the worker follows delivery, and which half is heavier depends on the schedule).
    b->handed_over = caller && stateful_worker && workers.front()->queue.waiting() <= 1;
    // Back to the pool when the last worker lets go of it.
    return {b.release(), [this](Batch* done) {
              std::lock_guard lock(pool_mutex);
              pool.emplace_back(done);
            }};
  }

  /// The verifier of the stateful checks, once every phase is in (the workers joined).
  Verifier& stateful();
  /// The partials of every verifier but the stateful one.
  std::vector<Verifier::Partial> other_partials();
  /// ParallelVerifier::consume of a Phase or a direct phase.
  template <class P>
  void consume(const P& phase, bool here);

  void rethrow() {
    std::lock_guard lock(error_mutex);
    if (error) std::rethrow_exception(error);
  }

  void publish() {
    if (!batch || batch->size == 0) return;
    std::shared_ptr<const Batch> b = std::move(batch);
    for (auto& w : workers) w->queue.push(b);
  }

  void join(bool drop) {
    if (joined) return;
    joined = true;
    if (!drop) publish();
    batch.reset();
    for (auto& w : workers) w->queue.close(drop);
    for (auto& w : workers) w->thread.join();
  }
};

ParallelVerifier::ParallelVerifier(const ScheduleHeader& header, const Topology& model,
                                   Claims claims, unsigned threads, Share share, Reader reader)
    : impl_(std::make_unique<Impl>(header, share)) {
  Impl& m = *impl_;
  if (threads <= 1 || header.buffers) {
    m.inline_verifier.emplace(header, model, std::move(claims), share);
    return;
  }
  // The stateful checks in one worker; the phase-local ones dealt out among the others and, when
  // it only generates, the reading thread (which needs no copy of the phase for them): with two
  // threads, a generating thread judges contention while the worker follows the delivery; a
  // parsing thread only parses, and the worker does both.
  m.stateful_worker = share.stateful;
  const bool caller_judges = reader == Reader::generates || !share.stateful;
  const unsigned checkers = caller_judges ? threads - (share.stateful ? 1 : 0) : threads - 1;
  const unsigned locals = share.slices == 0 ? 0 : std::max(1u, checkers);
  unsigned k = 0;
  if (locals > 0 && caller_judges) {
    m.caller_share = share.split(k++, locals);
    m.caller.emplace(header, model, claims, m.caller_share);
  }
  if (share.stateful) {
    Share stateful{true, 0, 0, share.first, share.ranged};
    if (locals > 0 && !caller_judges) {
      stateful = share.split(k++, locals);
      stateful.stateful = true;
      stateful.ranged = share.ranged;
    }
    m.workers.push_back(std::make_unique<Impl::Worker>(header, model, claims, stateful));
  }
  for (; k < locals; ++k)
    m.workers.push_back(
        std::make_unique<Impl::Worker>(header, model, claims, share.split(k, locals)));
  for (auto& w : m.workers) w->thread = std::thread([&m, w = w.get()] { m.run(*w); });
}

ParallelVerifier::~ParallelVerifier() {
  if (!impl_->inline_verifier) impl_->join(true);
}

unsigned ParallelVerifier::threads() const {
  return impl_->inline_verifier
             ? 1
             : static_cast<unsigned>(impl_->workers.size()) + (impl_->caller ? 1 : 0);
}

void ParallelVerifier::observe_tables(PhaseSink observe) {
  if (!impl_->inline_verifier)
    throw std::logic_error("ParallelVerifier::observe_tables: needs one checking thread");
  impl_->inline_verifier->observe_tables(std::move(observe));
}

void ParallelVerifier::consume(const Phase& phase, bool here) { impl_->consume(phase, here); }
void ParallelVerifier::consume(const DirectPhase& phase, bool here) { impl_->consume(phase, here); }

template <class P>
void ParallelVerifier::Impl::consume(const P& phase, bool here) {
  if (inline_verifier) {
    inline_verifier->validate(next, phase);
    inline_verifier->consume_valid(phase, here && share.local(next));
    ++next;
    return;
  }
  if (failed.load(std::memory_order_relaxed)) rethrow();
  const Verifier& validator = caller ? *caller : workers.front()->verifier;
  validator.validate(next, phase);
  constexpr bool kDirect = std::is_same_v<P, DirectPhase>;
  if (!workers.empty() && batch && batch->direct != kDirect) publish();  // one kind a batch
  if (!workers.empty() && !batch) batch = fresh_batch(kDirect);
  if (caller)
    caller->consume_valid(phase,
                          here && !(batch && batch->handed_over) && caller_share.local(next));
  ++next;
  if (workers.empty()) return;
  batch->add(phase, here);
  batch->transfers += phase.size();
  if (batch->transfers >= kBatchTransfers || batch->size >= kBatchPhases) publish();
}

Verifier::Partial ParallelVerifier::partial() {
  Impl& m = *impl_;
  if (m.inline_verifier) return m.inline_verifier->partial();
  m.join(false);
  m.rethrow();
  Verifier::Partial all;
  if (m.caller) all = m.caller->partial();
  for (auto& w : m.workers) all.merge(w->verifier.partial());
  return all;
}

Verifier& ParallelVerifier::Impl::stateful() {
  if (inline_verifier) return *inline_verifier;
  join(false);
  rethrow();
  if (!stateful_worker) throw std::logic_error("ParallelVerifier: not the stateful share");
  return workers.front()->verifier;
}

std::vector<Verifier::Partial> ParallelVerifier::Impl::other_partials() {
  std::vector<Verifier::Partial> partials;
  if (caller) partials.push_back(caller->partial());
  for (std::size_t i = stateful_worker ? 1 : 0; i < workers.size(); ++i)
    partials.push_back(workers[i]->verifier.partial());
  return partials;
}

Verifier::RangeFindings ParallelVerifier::range_findings() {
  Verifier& v = impl_->stateful();
  return v.range_findings(impl_->other_partials());
}

void ParallelVerifier::range_words(Rank lo, Rank hi, std::vector<std::uint32_t>& out) {
  impl_->stateful().range_words(lo, hi, out);
}

std::optional<Report> ParallelVerifier::finish_ranges(
    std::span<const Verifier::RangeFindings> ranges) {
  return impl_->stateful().finish_ranges(ranges);
}

Report ParallelVerifier::finish(std::span<const Verifier::Partial> others) {
  Verifier& stateful = impl_->stateful();
  std::vector<Verifier::Partial> partials(others.begin(), others.end());
  for (Verifier::Partial& p : impl_->other_partials()) partials.push_back(std::move(p));
  return stateful.finish(partials);
}

unsigned default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

}  // namespace phasecheck::verify
