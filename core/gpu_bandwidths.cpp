#include "core/gpu_bandwidths.hpp"

#include <array>
#include <utility>

namespace phasecheck::gpu_bandwidths {

namespace {

constexpr double kGBps = 1e9;  // NCCL's and RCCL's GB/s

}  // namespace

double nvlink(std::int64_t sm) {
  // NCCL 2.30.7 src/graph/topo.h: SM60_NVLINK_BW 18.0, SM70 20.0, SM80 20.0, SM86 12.0,
  // SM90 20.6, SM100 40.1; ncclTopoNVLinkBw takes SM80's below SM60.
  const double gbps = sm >= 100  ? 40.1
                      : sm >= 90 ? 20.6
                      : sm == 86 ? 12.0
                      : sm >= 80 ? 20.0
                      : sm >= 70 ? 20.0
                      : sm >= 60 ? 18.0
                                 : 20.0;
  return gbps * kGBps;
}

double xgmi(std::string_view gcn) {
  // RCCL 0cbce2a7 src/misc/archinfo.cc convertGcnArchToGcnArchName maps the old numeric names;
  // src/graph/topo.h: MI200_XGMI_WIDTH 36.0 (gfx90a), GFX94X_XGMI_WIDTH 48.0 (gfx94*),
  // VEGA_XGMI_WIDTH 24.0 otherwise (ncclTopoXGMISpeed, a prefix match).
  if (gcn == "910" || gcn.starts_with("gfx90a")) return 36.0 * kGBps;
  if (gcn == "940" || gcn == "941" || gcn == "942" || gcn.starts_with("gfx94")) return 48.0 * kGBps;
  return 24.0 * kGBps;
}

std::uint32_t pcie_lane_speed(std::string_view link_speed) {
  // NCCL 2.30.7 src/graph/topo.cc kvDictPciGen (x100 Mbps per lane), matched as NCCL's
  // kvConvertToInt does: the first entry that is a prefix of the text.
  static constexpr std::array<std::pair<std::string_view, std::uint32_t>, 11> kGenerations{{
      {"2.5 GT/s", 15},
      {"5 GT/s", 30},
      {"8 GT/s", 60},
      {"16 GT/s", 120},
      {"32 GT/s", 240},
      {"2.5 GT/s PCIe", 15},
      {"5.0 GT/s PCIe", 30},
      {"8.0 GT/s PCIe", 60},
      {"16.0 GT/s PCIe", 120},
      {"32.0 GT/s PCIe", 240},
      {"64.0 GT/s PCIe", 480},
  }};
  for (const auto& [text, speed] : kGenerations)
    if (link_speed.starts_with(text)) return speed;
  return 0;
}

double pcie(std::uint32_t width, std::uint32_t lane_speed) {
  return width * double(lane_speed) / 80.0 * kGBps;
}

std::string_view pcie_generation(std::uint32_t lane_speed) {
  switch (lane_speed) {
    case 15:
      return "1.0";
    case 30:
      return "2.0";
    case 60:
      return "3.0";
    case 120:
      return "4.0";
    case 240:
      return "5.0";
    case 480:
      return "6.0";
    default:
      return "";
  }
}

double inter_cpu(const Cpu& cpu) {
  // NCCL 2.30.7 src/graph/topo.h: BDW_QPI_BW 6.0, SKL_QPI_BW 10.0, SRP_QPI_BW 22.0,
  // ERP_QPI_BW 40.0, AMD_BW 16.0, ZPI_BW 6.0, YONGFENG_ZPI_BW 9.0, P9_BW 32.0, ARM_BW 6.0;
  // src/graph/topo.cc ncclTopoAddCpu (the Intel models by family 6 and model id) and
  // ncclTopoGetInterCpuBw. Names match as NCCL's kvConvertToInt matches them: as a prefix.
  if (cpu.arch.starts_with("ppc64")) return 32.0 * kGBps;
  if (cpu.arch.starts_with("arm64")) return 6.0 * kGBps;
  if (!cpu.arch.starts_with("x86_64")) return 0;
  if (cpu.vendor.starts_with("GenuineIntel")) {
    const bool six = cpu.family == 6;
    const double gbps = six && cpu.model >= 0xCF   ? 40.0  // Emerald Rapids
                        : six && cpu.model >= 0x8F ? 22.0  // Sapphire Rapids
                        : six && cpu.model >= 0x55 ? 10.0  // Skylake
                                                   : 6.0;  // Broadwell
    return gbps * kGBps;
  }
  if (cpu.vendor.starts_with("AuthenticAMD")) return 16.0 * kGBps;
  if (cpu.vendor.starts_with("CentaurHauls") || cpu.vendor.starts_with("  Shanghai  "))
    return (cpu.family == 7 && cpu.model == 0x5B ? 9.0 : 6.0) * kGBps;
  return 0;  // NCCL: an x86 vendor it does not know keeps LOC_BW
}

}  // namespace phasecheck::gpu_bandwidths
