#pragma once
/// What NCCL's and RCCL's topology files do not say and their own code assumes: the bandwidth of
/// one NVLink per GPU architecture, of one xGMI link per AMD architecture, of a PCIe link per
/// generation and width, and between two CPU sockets per CPU. The values are the libraries' own
/// (one table each, cited at its definition and in docs/models.md, "NCCL and RCCL topology
/// files"); io/nccl_topology.hpp reads them when it imports a file. All in bytes per second, each
/// direction; the libraries' "GB/s" is 1e9 bytes per second.

#include <cstdint>
#include <string_view>

namespace phasecheck::gpu_bandwidths {

/// NCCL's LOC_BW (2.30.7, src/graph/topo.h: 5000 GB/s): the link between a GPU and itself, and
/// between a NIC and the CPU it sits on directly; NCCL's way of saying "no limit" there. The
/// importer gives it to each GPU's host link and to those NIC links, so that the bounds in
/// seconds and `cost` see every link of an imported machine with a bandwidth.
inline constexpr double kLocal = 5000e9;

/// One NVLink of a GPU of compute capability `sm` (90 for H100): NCCL 2.30.7,
/// src/graph/topo.h, ncclTopoNVLinkBw.
double nvlink(std::int64_t sm);

/// One xGMI link of an AMD GPU of architecture `gcn` ("gfx942", or the old numeric "910" that
/// RCCL's files still carry): RCCL 0cbce2a7, src/graph/topo.h, ncclTopoXGMISpeed.
double xgmi(std::string_view gcn);

/// A PCIe link's speed per lane in units of 100 Mbit/s for sysfs' `link_speed` text
/// ("16.0 GT/s PCIe", or "16 GT/s" from kernels up to 5.6): NCCL 2.30.7, src/graph/topo.cc,
/// kvDictPciGen. 0 for a text the table does not know (NCCL then assumes 60, PCIe 3.0).
std::uint32_t pcie_lane_speed(std::string_view link_speed);
/// The per-lane speed NCCL assumes for a link_speed it does not know (PCIe 3.0).
inline constexpr std::uint32_t kDefaultPcieLaneSpeed = 60;
/// A PCIe link of `width` lanes at `lane_speed` (pcie_lane_speed): width x speed / 80 GB/s, as
/// NCCL's ncclTopoAddPci computes it.
double pcie(std::uint32_t width, std::uint32_t lane_speed);
/// The PCIe generation of a per-lane speed ("4.0" for 120), "" when it is none of them.
std::string_view pcie_generation(std::uint32_t lane_speed);

/// A CPU as NCCL's topology file describes it (`<cpu arch vendor familyid modelid>`).
struct Cpu {
  std::string_view arch;    ///< "x86_64", "arm64", "ppc64"
  std::string_view vendor;  ///< "GenuineIntel", "AuthenticAMD", "CentaurHauls", "  Shanghai  "
  std::int64_t family = 0, model = 0;
};
/// The link between two CPU sockets (QPI/UPI, Infinity Fabric, X-Bus, ...): NCCL 2.30.7,
/// src/graph/topo.cc, ncclTopoGetInterCpuBw, with the constants of src/graph/topo.h. 0 for an
/// architecture NCCL does not know (it then assumes its local, unbounded bandwidth).
double inter_cpu(const Cpu& cpu);

}  // namespace phasecheck::gpu_bandwidths
