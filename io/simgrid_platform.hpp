#pragma once
/// A tree machine as a SimGrid platform (XML, version 4.1), for `simulate` and `whatif
/// experiment` (toolchain.md, measured on this machine): one Floyd zone, machines as hosts,
/// switches as routers, one split-duplex link per cable and one route per cable (the reverse
/// route takes the other half). Hosts and routers get ids of ours, h<i> and s<j>: SimGrid's host
/// file reads "name:N" as N ranks on a host, so a machine's own name could place ranks wrongly;
/// the names are kept as comments. Deterministic.

#include <string>

#include "core/topology.hpp"

namespace phasecheck::io {

/// `bandwidth` and `latency` in SimGrid's units ("100Mbps", "10us"), checked by the caller.
std::string simgrid_platform_xml(const Tree& tree, const std::string& bandwidth,
                                 const std::string& latency);

/// The host file: rank i on host h<i>.
std::string simgrid_hostfile(const Tree& tree);

}  // namespace phasecheck::io
