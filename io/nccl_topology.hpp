#pragma once
/// NCCL's and RCCL's topology files (NCCL_TOPO_FILE, NCCL_TOPO_DUMP_FILE): the `<system>` XML
/// that describes one machine's CPUs, PCI tree, GPUs with their NVLink or xGMI links, NVSwitches
/// and NICs, imported as a graph topology (core/topology.hpp) with the links' bandwidths and
/// labels. docs/models.md, "NCCL and RCCL topology files", gives the mapping element by element,
/// what is dropped and why, and the bandwidth table (core/gpu_bandwidths.hpp).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/topology.hpp"

namespace phasecheck::io {

/// How a file is imported. A bandwidth of 0 takes the table's value.
struct NcclImport {
  /// Copies of the machine, joined by one router "network" to every NIC.
  std::uint32_t nodes = 1;
  /// Bytes per second per physical link, each direction: one NVLink, one xGMI link, one PCIe
  /// link (whatever its width), the link between two CPUs, one network port (`<net>`).
  double nvlink_bandwidth = 0, xgmi_bandwidth = 0, pcie_bandwidth = 0, cpu_bandwidth = 0,
         nic_bandwidth = 0;
  friend bool operator==(const NcclImport&, const NcclImport&) = default;
};

/// The graph of the machine `text` describes (`source` names it in messages):
/// - one host per `<gpu>`, numbered by its `rank` attribute; when no gpu has one, by `dev` and
///   then document order. Each GPU is a router "gpuR" with the GPU as its one host, on as many
///   ports as it has NVLinks or xGMI links plus one (PCIe), without a bandwidth of its own;
/// - `<nvlink>`/`<xgmi>` to another GPU: a link between the two with capacity `count` (listed on
///   both sides or on one) and `count` times the per-link bandwidth; to NVSwitches (tclass
///   0x068000): router "nvswitch", one for the whole machine as in NCCL, linked to each GPU with
///   the sum of its counts; to a CPU (0x068001): a link to the GPU's CPU;
/// - `<cpu>`: router "cpuN" (N its numaid), every two linked ("SMP");
/// - `<pci>` switches: routers "pci BUSID"; a `<pci>` holding a `<gpu>` is the GPU, one holding a
///   `<nic>` is the NIC; each is linked to its parent with its own link_width and link_speed;
/// - `<nic>`: router "nic NAME1,NAME2" (its `<net>`s' names), speed from its `<net>`s;
/// - with `options.nodes` > 1: that many copies, router names prefixed "nN.", node n's GPU r is
///   rank n x G + r, and router "network" linked to every NIC with one port per `<net>`.
/// Routers are listed GPUs first, then the NVSwitch, the CPUs, the PCI switches, the NICs and
/// "network" (routing ties go to the smallest-numbered router, docs/models.md).
///
/// What the model does not use (affinity, gdr, guids, vendor ids, `<c2c>`, `<pcilink>`, ...) is
/// skipped; when `skipped` is given, one line per kind of thing skipped is appended to it,
/// "FILE:line:col: what (why)". Throws InputError "FILE:line:col: <element>: ..." for invalid XML,
/// a DOCTYPE, nesting deeper than kMaxNcclDepth, an element whose meaning is not known, a missing
/// or impossible value (count <= 0 or > kMaxLinkCapacity, a width, a speed), a GPU's bus id, a
/// rank or a numaid twice, a link target that is not a GPU's bus id, two sides of a link that
/// disagree on its count, ranks that are not 0..G-1, a gpu without rank and dev; and, naming
/// --nodes, more than one node without NICs or beyond kMaxRouters routers. A switch's bus id
/// repeated (RCCL's own files have them; NCCL makes a node of each) is a router of its own,
/// "pci BUSID (2)". O(size of the file + links x log links), plus the graph's routing tables.
Graph import_nccl_topology(std::string_view text, std::string_view source,
                           const NcclImport& options, std::vector<std::string>* skipped = nullptr);

/// The deepest nesting of elements a file may have (real machines nest the PCI tree < 16 deep).
inline constexpr std::uint32_t kMaxNcclDepth = 64;

}  // namespace phasecheck::io
