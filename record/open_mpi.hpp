#pragma once
/// What phasecheck knows of Open MPI 4.1 for recording its own collectives: the coll/tuned
/// algorithms of alltoall and allgather by number and name (as `ompi_info --param coll tuned
/// --level 9` lists them), how to force one, and which installations it can record (their PML
/// and request function tables are the ones record/tap_pml.c wraps).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::record {

struct OmpiAlgorithm {
  std::uint32_t number = 0;  ///< coll_tuned_<collective>_algorithm
  std::string_view name;     ///< Open MPI's own name of it
  std::string_view summary;
  /// The registered algorithms (schedules/registry.hpp) whose tables it follows, tried first
  /// when the recorded table is identified (at p = 2 every alltoall is one exchange).
  std::string_view registry;
};

/// Every coll/tuned algorithm of `c`, in Open MPI's order.
std::span<const OmpiAlgorithm> ompi_algorithms(Collective c);

/// The algorithm `spec` names: its number or its name. Throws InputError naming the known ones.
const OmpiAlgorithm& find_ompi_algorithm(Collective c, std::string_view spec);

/// The mpirun options that force `a` for `c`.
std::vector<std::string> force_algorithm(Collective c, const OmpiAlgorithm& a);

/// The Open MPI installation recordings run on: mpirun from `prefix`/bin (empty: from PATH).
/// Throws InputError, naming what was found, unless `mpirun --version` says Open MPI 4.1.
struct Installation {
  std::string mpirun;   ///< the launcher's path ("mpirun" from PATH)
  std::string prefix;   ///< empty: the one phasecheck was built with
  std::string version;  ///< "Open MPI 4.1.4" as mpirun says it (untrusted text)
};
Installation find_installation(const std::string& prefix);

}  // namespace phasecheck::record
