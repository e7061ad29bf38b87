#include "record/open_mpi.hpp"

#include <charconv>

#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/files.hpp"
#include "launch/process.hpp"

namespace phasecheck::record {
namespace {

constexpr OmpiAlgorithm kAlltoall[] = {
    {1, "linear", "basic linear: every receive and send posted at once", "linear"},
    {2, "pairwise", "pairwise exchange: step s sends to rank + s, receives from rank - s",
     "ompi-pairwise,shift"},
    {3, "modified_bruck", "modified Bruck: log2 p steps of packed blocks",
     "modified-bruck,ompi-bruck,bruck-index"},
    {4, "linear_sync", "linear with a bounded number of outstanding requests",
     "ompi-linear-sync,linear"},
    {5, "two_proc", "two processes only: one exchange", "ompi-two-procs,shift"},
};
constexpr OmpiAlgorithm kAllgather[] = {
    {1, "linear", "basic linear: gather to rank 0, then broadcast", "linear"},
    {2, "bruck", "Bruck: ceil(log2 p) steps of doubling distance", "ompi-bruck-k,bruck-concat"},
    {3, "recursive_doubling", "recursive doubling (p a power of two)",
     "ompi-recursive-doubling,ompi-bruck-k,hypercube-exchange,pairwise-xor"},
    {4, "ring", "ring: p - 1 steps to the next rank", "ompi-ring,ring,shift"},
    {5, "neighbor", "neighbor exchange (p even)", "ompi-neighbor-exchange,ompi-ring"},
    {6, "two_proc", "two processes only: one exchange", "ompi-two-procs,shift"},
};

std::string_view collective_name(Collective c) {
  return c == Collective::alltoall ? "alltoall" : "allgather";
}

}  // namespace

std::span<const OmpiAlgorithm> ompi_algorithms(Collective c) {
  if (c == Collective::alltoall) return kAlltoall;
  return kAllgather;
}

const OmpiAlgorithm& find_ompi_algorithm(Collective c, std::string_view spec) {
  std::uint32_t number = 0;
  const auto [end, error] = std::from_chars(spec.data(), spec.data() + spec.size(), number);
  const bool numeric = error == std::errc() && end == spec.data() + spec.size();
  std::string known;
  for (const OmpiAlgorithm& a : ompi_algorithms(c)) {
    if (numeric ? a.number == number : a.name == spec) return a;
    known += (known.empty() ? "" : ", ") + std::to_string(a.number) + " " + std::string(a.name);
  }
  throw InputError("--algorithm: Open MPI has no " + std::string(collective_name(c)) +
                   " algorithm \"" + text_escape(spec) + "\" (known: " + known + ")");
}

std::vector<std::string> force_algorithm(Collective c, const OmpiAlgorithm& a) {
  return {"--mca", "coll_tuned_use_dynamic_rules", "1", "--mca",
          "coll_tuned_" + std::string(collective_name(c)) + "_algorithm", std::to_string(a.number)};
}

Installation find_installation(const std::string& prefix) {
  Installation in;
  in.prefix = prefix;
  in.mpirun = prefix.empty() ? "mpirun" : prefix + "/bin/mpirun";
  launch::Command command;
  command.argv = {in.mpirun, "--version"};
  command.timeout = 30;
  const auto where = prefix.empty() ? std::string("mpirun on PATH") : "--mpi-prefix " + prefix;
  const launch::Finished f = with_source(where, [&] {
    try {
      return launch::run(command);
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + ": record mpi needs Open MPI 4.1");
    }
  });
  const std::string first = f.out.substr(0, f.out.find('\n'));
  if (!f.status || *f.status != 0)
    throw InputError(where + ": `mpirun --version` failed (" + f.describe(command.timeout) +
                     "): record mpi needs Open MPI 4.1");
  const std::size_t at = first.find("(Open MPI) ");
  if (at == std::string::npos)
    throw InputError(where + " is not Open MPI (it says \"" + text_escape(first) +
                     "\"): record mpi records Open MPI 4.1 only; record function records a "
                     "routine on it");
  const std::string version = first.substr(at + 11);
  if (version.rfind("4.1.", 0) != 0)
    throw InputError(where + " is Open MPI " + text_escape(version) +
                     ": record mpi knows the PML and request tables of Open MPI 4.1 only");
  in.version = "Open MPI " + version;
  return in;
}

}  // namespace phasecheck::record
