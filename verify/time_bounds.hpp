#pragma once
/// Lower bounds in seconds on a graph whose links have bandwidths (an imported NCCL/RCCL machine,
/// docs/models.md; or `bounds --bandwidth B`, every link B). Valid for every schedule that
/// delivers, forwarding included, whatever its phases: over a time T a directed link of b bytes
/// per second carries at most b T bytes, and the bytes that must cross a cut from one side to the
/// other pass through the cut's links in that direction. So T >= (bytes that must cross) / (the
/// cut's bandwidth that way). The cuts (docs/bounds.md, "Bounds in seconds"):
/// - each host's link into its router (its injection and ejection);
/// - each bridge of the router graph (a link whose removal separates the hosts; Boost.Graph's
///   biconnected components find them);
/// - all router links of one router with hosts: its hosts against the rest;
/// - the links between an articulation router and each piece the graph falls into without it (a
///   node of a multi-node machine around its network switch; GPUs behind one PCIe switch).
/// A cut with a link of unknown bandwidth (0) in the direction it bounds is unusable: it bounds
/// nothing (infinite capacity is the only safe assumption).

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "core/topology.hpp"
#include "core/traffic.hpp"

namespace phasecheck::verify {

/// Per directed link of `graph` (ids 0 .. link_id_count() - 1): its bytes per second, 0 where not
/// known. `every_link` > 0 gives every physical link that bandwidth instead (`bounds --bandwidth
/// B` on a graph without bandwidths): a link of capacity c (c parallel links, a host's c ports)
/// carries c x every_link.
std::vector<double> directed_bandwidths(const Graph& graph, double every_link = 0);

/// Whether some link of `graph` has a known bandwidth.
bool has_bandwidths(const Graph& graph);

struct TimeBound {
  double seconds = 0;  ///< every schedule that delivers takes at least this long; 0: no usable cut
  double bytes = 0;    ///< the bytes the collective delivers between distinct ranks
  std::string argument;        ///< the cut that sets it, its bytes and its bandwidth
  std::uint32_t cuts = 0;      ///< the cuts considered (each direction of each)
  std::uint32_t unusable = 0;  ///< of them, those with a link of unknown bandwidth
  /// bytes / seconds: no schedule moves the collective's bytes faster in aggregate; 0 without a
  /// bound.
  double peak_throughput() const { return seconds > 0 ? bytes / seconds : 0; }
  friend bool operator==(const TimeBound&, const TimeBound&) = default;
};

/// The largest of the cut bounds of `collective` with blocks of `block_bytes` bytes on `graph`
/// whose directed links have `bandwidths` (directed_bandwidths()): alltoall a cut with a hosts on
/// one side must carry a (p - a) blocks each way, allgather a one way and p - a the other. With
/// `traffic` (an alltoallv; block_bytes unused) the bytes of the messages from one side to the
/// other. Linear in block_bytes, so block_bytes = 1 gives seconds per byte. O(links + hosts +
/// bridges x routers) plus, for an alltoallv, every message routed once (O(p^2 x route length)).
/// Precondition: bandwidths.size() == graph.link_id_count(), block_bytes >= 0.
TimeBound time_lower_bound(const Graph& graph, std::span<const double> bandwidths,
                           Collective collective, double block_bytes,
                           const Traffic* traffic = nullptr);

}  // namespace phasecheck::verify
