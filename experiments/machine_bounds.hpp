#pragma once
/// `phasecheck bounds`'s answer: every lower bound of the model for a collective
/// (verify/bounds.hpp), the best of them for direct and for forwarding schedules, and on a tree
/// the figures of Faraj & Yuan, Section 3 (the bottleneck link, its load |Mu| x |Mv|, the peak
/// aggregate throughput bound |M| (|M| - 1) B / (|Mu| |Mv|)) with the root and subtrees of their
/// Section 4 schedule (schedules/faraj_yuan.hpp), whose phase count is that load. On a graph
/// whose links have bandwidths (or every link `--bandwidth B`) the lower bound in seconds and the
/// peak aggregate throughput (verify/time_bounds.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/topology.hpp"
#include "verify/report.hpp"
#include "verify/time_bounds.hpp"

namespace phasecheck::experiments {

/// The root and the subtrees of Faraj & Yuan's schedule on a tree of at least 2 machines.
struct FarajYuanFigures {
  std::optional<std::string> root;      ///< the root switch's name; none when |M| <= 2
  std::vector<std::uint64_t> subtrees;  ///< machines per subtree, largest first
  std::uint64_t phases = 0;             ///< |M0| (|M| - |M0|), the bottleneck load
  friend bool operator==(const FarajYuanFigures&, const FarajYuanFigures&) = default;
};

/// A tree's all-to-all figures (Faraj & Yuan, Section 3).
struct TreeFigures {
  std::string link_a, link_b;  ///< the bottleneck link's ends (Tree::bottleneck())
  std::uint32_t machines_a = 0, machines_b = 0;  ///< |Mu|, |Mv|
  std::uint64_t load = 0;                        ///< Tree::bottleneck_load()
  double peak_throughput_factor = 0;             ///< in units of B
  double bandwidth = 0;                          ///< B in bytes/s; 0: not given (symbolic)
  std::optional<double> peak_throughput;         ///< bytes/s, when B was given
  std::optional<FarajYuanFigures> faraj_yuan;    ///< for at least 2 machines
  friend bool operator==(const TreeFigures&, const TreeFigures&) = default;
};

/// A graph's bounds in seconds (docs/bounds.md, "Bounds in seconds").
struct SecondsFigures {
  double bandwidth = 0;  ///< B when every link was given it (--bandwidth); 0: the topology's own
  verify::TimeBound per_byte;              ///< the bound for blocks of 1 byte: seconds per byte
  double block_bytes = 0;                  ///< m when given (--bytes); 0: not given
  std::optional<verify::TimeBound> bound;  ///< for blocks of m bytes, when m was given
  friend bool operator==(const SecondsFigures&, const SecondsFigures&) = default;
};

struct MachineBounds {
  std::string topology;  ///< describe()
  std::string kind;
  Rank ranks = 0;
  Collective collective = Collective::alltoall;
  std::vector<verify::Bound> bounds;      ///< verify::lower_bounds, in its order
  std::uint64_t direct_phases = 0;        ///< direct schedules: phases with communication
  std::uint64_t c1 = 0, c2 = 0;           ///< forwarding schedules
  std::optional<TreeFigures> tree;        ///< on a tree
  std::optional<SecondsFigures> seconds;  ///< on a graph with bandwidths (or `bandwidth`)
};

/// The bounds of `model` for `collective`. `bandwidth` is B in bytes/s (0: not given): a tree's
/// link bandwidth for its throughput bound, or every link's of a graph without bandwidths.
/// `block_bytes` is m (0: not given), for the bound in seconds. Throws InputError for a
/// bandwidth on a graph that has its own, and for m on a machine without bandwidths.
/// Precondition: both >= 0 and finite.
MachineBounds machine_bounds(const Topology& model, Collective collective, double bandwidth,
                             double block_bytes = 0);

}  // namespace phasecheck::experiments
