#include "distributed/processes.hpp"

#include <mpi.h>

#include <cstdlib>
#include <stdexcept>
#include <string>

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
}

Processes::~Processes() {
  if (initialised_) MPI_Finalize();
}

verify::Share Processes::share() const {
  if (size_ == 1) return {};
  if (rank_ == 0) return {true, 0, 0};
  return {false, static_cast<std::uint32_t>(rank_ - 1), static_cast<std::uint32_t>(size_ - 1)};
}

std::vector<verify::Verifier::Partial> Processes::gather(
    const verify::Verifier::Partial& mine) const {
  if (size_ == 1) return {};
  const std::string text = rank_ == 0 ? std::string() : to_wire(mine);
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank_ == 0 ? size_ : 0), offsets(lengths.size());
  require(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD),
          "MPI_Gather");
  std::string all;
  if (rank_ == 0) {
    std::size_t total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(lengths[r]);
    }
    all.resize(total);
  }
  require(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(),
                      MPI_CHAR, 0, MPI_COMM_WORLD),
          "MPI_Gatherv");
  std::vector<verify::Verifier::Partial> partials;
  if (rank_ == 0)
    for (int r = 1; r < size_; ++r)
      partials.push_back(from_wire(
          all.substr(static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r]))));
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
