#include "distributed/processes.hpp"

#include <mpi.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "core/limits.hpp"
#include "distributed/partial_json.hpp"

namespace phasecheck::distributed {
namespace {

bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}

void require(int status, const char* call) {
  if (status != MPI_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}

}  // namespace

/// The claim counter (claim()): one word in memory every process maps (MPI's shared window on
/// the processes' one node), advanced by a CPU compare-and-swap, so a claim costs no MPI call
/// and no process waits for another to make progress. (One-sided MPI atomics were tried first:
/// Open MPI 4.1's osc/rdma over the vader transport crashed in its emulated compare-and-swap.)
struct Processes::Window {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Win win = MPI_WIN_NULL;
  std::uint64_t* counter = nullptr;
};

Processes& Processes::get() {
  static Processes processes;
  return processes;
}

Processes::Processes() {
  if (!launched_by_mpirun()) return;
  int provided = 0;
  require(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  initialised_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (size_ == 1) return;
  // Claims need every process on one node; otherwise the phase-local checks stay dealt out by
  // phase number among processes 1..N-1 (share()).
  window_ = std::make_unique<Window>();
  require(
      MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &window_->node),
      "MPI_Comm_split_type");
  int node_size = 0, one_node = 0;
  MPI_Comm_size(window_->node, &node_size);
  const int here = node_size == size_ ? 1 : 0;
  require(MPI_Allreduce(&here, &one_node, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  if (!one_node) return;
  static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free);
  void* base = nullptr;
  require(MPI_Win_allocate_shared(rank_ == 0 ? sizeof(std::uint64_t) : 0, sizeof(std::uint64_t),
                                  MPI_INFO_NULL, window_->node, &base, &window_->win),
          "MPI_Win_allocate_shared");
  MPI_Aint bytes = 0;
  int unit = 0;
  require(MPI_Win_shared_query(window_->win, 0, &bytes, &unit, &base), "MPI_Win_shared_query");
  window_->counter = static_cast<std::uint64_t*>(base);
  if (rank_ == 0) std::atomic_ref<std::uint64_t>(*window_->counter).store(0);
  require(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");  // zero before anyone claims
}

Processes::~Processes() {
  if (window_) {
    if (window_->win != MPI_WIN_NULL) MPI_Win_free(&window_->win);
    if (window_->node != MPI_COMM_NULL) MPI_Comm_free(&window_->node);
  }
  if (initialised_) MPI_Finalize();
}

bool Processes::claims() const { return window_ && window_->counter; }

verify::Share Processes::share() const {
  if (size_ == 1) return {};
  if (claims()) return {rank_ == 0, 0, 1};
  if (rank_ == 0) return {true, 0, 0};
  return {false, static_cast<std::uint32_t>(rank_ - 1), static_cast<std::uint32_t>(size_ - 1)};
}

bool Processes::claim(std::uint64_t b) const {
  if (!claims()) throw std::logic_error("Processes::claim: the processes share no counter");
  // Every block before b was claimed when this process reached it (by it or by a process ahead),
  // so the counter is at least b: it is b exactly when no process has reached b yet.
  std::uint64_t expected = b;
  return std::atomic_ref<std::uint64_t>(*window_->counter).compare_exchange_strong(expected, b + 1);
}

namespace {

/// Every process's `text` at process 0, in rank order (empty elsewhere).
std::vector<std::string> gather_texts(const std::string& text, int rank, int size) {
  if (text.size() > static_cast<std::size_t>(INT32_MAX))
    throw std::runtime_error("a result too large to send to process 0");
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank == 0 ? size : 0), offsets(lengths.size());
  require(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
          "MPI_Gather");
  std::string all;
  if (rank == 0) {
    std::size_t total = 0;
    for (int r = 0; r < size; ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(lengths[r]);
    }
    if (total > static_cast<std::size_t>(INT32_MAX))
      throw std::runtime_error("results too large to gather at process 0");
    all.resize(total);
  }
  require(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                      MPI_CHAR, 0, MPI_COMM_WORLD),
          "MPI_Gatherv");
  std::vector<std::string> texts;
  if (rank == 0)
    for (int r = 0; r < size; ++r)
      texts.push_back(
          all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
  return texts;
}

}  // namespace

std::vector<verify::Verifier::RangeFindings> Processes::gather(
    const verify::Verifier::RangeFindings& mine) const {
  std::vector<verify::Verifier::RangeFindings> all;
  if (size_ == 1) return {mine};
  for (const std::string& text : gather_texts(to_wire(mine), rank_, size_))
    all.push_back(range_findings_from_wire(text));
  return all;
}

std::vector<std::vector<std::uint32_t>> Processes::exchange(
    const std::vector<std::vector<std::uint32_t>>& out) const {
  if (out.size() != static_cast<std::size_t>(size_))
    throw std::logic_error("Processes::exchange: one vector a process");
  if (size_ == 1) return out;
  std::vector<int> send_counts(size_), send_offsets(size_), recv_counts(size_), recv_offsets(size_);
  std::vector<std::uint32_t> sent;
  for (int r = 0; r < size_; ++r) {
    if (out[r].size() > static_cast<std::size_t>(INT32_MAX) - sent.size())
      throw std::runtime_error("arrivals too large to send to the other processes");
    send_offsets[r] = static_cast<int>(sent.size());
    send_counts[r] = static_cast<int>(out[r].size());
    sent.insert(sent.end(), out[r].begin(), out[r].end());
  }
  require(
      MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
      "MPI_Alltoall");
  std::size_t total = 0;
  for (int r = 0; r < size_; ++r) {
    recv_offsets[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(recv_counts[r]);
    if (total > static_cast<std::size_t>(INT32_MAX))
      throw std::runtime_error("arrivals too large to receive from the other processes");
  }
  // What arrives, and its copy by sender: charged before either is allocated.
  check_memory(2 * total * sizeof(std::uint32_t),
               "the arrivals the other processes send for this process's destinations");
  std::vector<std::uint32_t> received(total);
  static_assert(sizeof(std::uint32_t) == sizeof(unsigned));
  require(MPI_Alltoallv(sent.data(), send_counts.data(), send_offsets.data(), MPI_UNSIGNED,
                        received.data(), recv_counts.data(), recv_offsets.data(), MPI_UNSIGNED,
                        MPI_COMM_WORLD),
          "MPI_Alltoallv");
  std::vector<std::vector<std::uint32_t>> in(size_);
  for (int r = 0; r < size_; ++r)
    in[r].assign(received.begin() + recv_offsets[r],
                 received.begin() + recv_offsets[r] + recv_counts[r]);
  return in;
}

std::vector<verify::Verifier::Partial> Processes::gather(
    const verify::Verifier::Partial& mine) const {
  if (size_ == 1) return {};
  const auto texts = gather_texts(rank_ == 0 ? std::string() : to_wire(mine), rank_, size_);
  std::vector<verify::Verifier::Partial> partials;
  for (std::size_t r = 1; r < texts.size(); ++r) partials.push_back(from_wire(texts[r]));
  return partials;
}

int Processes::agree(int code) const {
  if (size_ == 1) return code;
  require(MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return code;
}

void abort_if_spread(int code) {
  int started = 0, finished = 0, size = 1;
  MPI_Initialized(&started);
  MPI_Finalized(&finished);
  if (!started || finished) return;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 1) MPI_Abort(MPI_COMM_WORLD, code);
}

}  // namespace phasecheck::distributed
