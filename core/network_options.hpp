#pragma once
/// The machines `phasecheck topology KIND --option value ...` builds: one table of kinds, each with
/// the options it takes and its builder (core/networks.hpp), and the checks of the options given.
/// The command line only fills NetworkOptions; every decision about them is made here.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/topology.hpp"

namespace phasecheck {

/// The options of `phasecheck topology`, as given: an option not given is empty (false for the
/// flag), so that an option that does not belong to the kind is refused, not ignored.
struct NetworkOptions {
  std::optional<std::uint64_t> q, concentration;   ///< slimfly
  std::optional<std::uint64_t> a, h, p;            ///< dragonfly
  std::optional<std::uint64_t> gpus, nodes, nics;  ///< xgmi, nvswitch, gpu-cluster
  std::optional<std::string> fanout;               ///< tree: "8,4"
  std::optional<std::uint64_t> k;                  ///< fat-tree
  std::optional<std::string> sizes;                ///< cluster: "8,8,4,1"
  std::optional<std::uint64_t> ranks, ports;       ///< fully-connected (ring: ranks)
  std::optional<std::uint64_t> dimension;          ///< hypercube
  std::optional<std::uint64_t> rows, cols;         ///< mesh
  bool wraparound = false;                         ///< mesh
  friend bool operator==(const NetworkOptions&, const NetworkOptions&) = default;
};

/// One kind of machine `phasecheck topology` builds.
struct NetworkKind {
  std::string_view name;                   ///< "tree", "fat-tree", "slimfly", ...
  std::string_view summary;                ///< what it builds, for the help
  std::vector<std::string_view> required;  ///< options that must be given ("--fanout")
  std::vector<std::string_view> optional;  ///< options that may be given (with a default)
  /// Builds the machine from options already checked against the two lists above.
  Topology (*build)(const NetworkOptions&);
};

/// Every kind, in the order the help lists them: the model kinds first, then the graphs.
const std::vector<NetworkKind>& network_kinds();

/// Builds the machine `kind` from `options`. Throws InputError for an unknown kind, a required
/// option missing ("ring: --ranks is required"), an option that does not belong to the kind
/// ("ring: --k does not apply (ring takes --ranks)"), or a value the builder refuses.
Topology build_network(std::string_view kind, const NetworkOptions& options);

/// A comma-separated list of non-negative integers, "8,4" -> {8, 4}; spaces around an element are
/// ignored. Throws InputError naming `option` and the 1-based position of the bad element:
/// "--fanout: element 2 'x' is not a number", "... is too large" beyond 2^64 - 1.
std::vector<std::uint64_t> parse_count_list(std::string_view text, std::string_view option);

}  // namespace phasecheck
