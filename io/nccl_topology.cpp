#include "io/nccl_topology.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <initializer_list>
#include <map>
#include <optional>
#include <utility>

#include "core/error.hpp"
#include "core/gpu_bandwidths.hpp"
#include "io/xml_document.hpp"

namespace phasecheck::io {

namespace {

/// A file's Mbps beyond this would pass kMaxBandwidth bytes per second.
constexpr std::int64_t kMaxMbps = static_cast<std::int64_t>(kMaxBandwidth * 8 / 1e6);
/// NCCL's speed for a `<net>` whose speed is missing or not positive ("Some NICs define speed =
/// -1", src/graph/topo.cc ncclTopoAddNet).
constexpr std::int64_t kDefaultMbps = 10000;

enum class Kind { gpu, nvswitch, cpu, pci, nic };

/// A router of one node, by kind and its index among that kind, in document order.
struct Ref {
  Kind kind = Kind::cpu;
  std::uint32_t index = 0;
};

/// A PCIe link (or a NIC's local link to its CPU) from a device up to its parent.
struct Uplink {
  Ref child, parent;
  double bandwidth = 0;
  std::string label;
};

enum class Target { gpu, nvswitch, cpu };

struct GpuLink {
  pugi::xml_node node;
  bool nvlink = true;  // else xGMI
  Target target = Target::gpu;
  std::string busid;  // a GPU's, normalised
  std::uint32_t count = 0;
  /// A `<c2c>` (Grace's chip-to-chip link to its CPU): bytes/s per link from its `bw`; 0 else.
  double c2c_bandwidth = 0;
};

/// A `<pcilink>`: a link between the PCI switch it sits in and the one whose bus id it names.
struct PciLink {
  pugi::xml_node node;
  std::uint32_t from = 0;  // the switch's index in pcis_
  std::string target;      // normalised bus id
};

struct Gpu {
  pugi::xml_node node;
  std::uint32_t cpu = 0;
  std::optional<std::int64_t> rank, dev, sm;
  std::optional<std::string> gcn;
  std::vector<GpuLink> links;
};

struct Nic {
  std::string name;
  std::uint32_t ports = 0;
  double bandwidth = 0;  // of all its ports
};

/// One undirected router link of one node, by router index.
struct Edge {
  std::uint32_t a = 0, b = 0;
  std::uint32_t capacity = 0;
  double bandwidth = 0;
  std::string label;
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// Why an attribute the model does not read is skipped (docs/models.md).
std::string_view why_skipped(std::string_view attribute) {
  static const std::map<std::string_view, std::string_view> kReasons{
      {"version", "the format's version: every version reads alike"},
      {"affinity", "which cores a NUMA node has, not a link"},
      {"host_hash", "one host per file"},
      {"vendor", "a PCI id"},
      {"device", "a PCI id"},
      {"subsystem_vendor", "a PCI id"},
      {"subsystem_device", "a PCI id"},
      {"class", "the element inside a <pci> says what it is"},
      {"arch", "the bandwidth table reads sm or gcn"},
      {"gdr", "GPUDirect RDMA support, not a link"},
      {"mlopart", "GPU partitions are not modelled"},
      {"guid", "a NIC's identity"},
      {"port", "a NIC property NCCL's tuning reads, not a link"},
      {"latency", "latency is not modelled"},
      {"maxconn", "a NIC property NCCL's tuning reads, not a link"},
      {"coll", "collective offload (SHARP, CollNet) is not modelled"},
      {"rail", "a NIC property NCCL's tuning reads, not a link"},
      {"plane", "a NIC property NCCL's tuning reads, not a link"},
      {"gin", "GPU-initiated networking is not modelled"},
      {"rma", "remote memory access devices are not modelled"},
      {"keep", "a NIC property NCCL's tuning reads, not a link"},
  };
  const auto it = kReasons.find(attribute);
  return it == kReasons.end() ? "an attribute this importer does not know" : it->second;
}

class Importer {
 public:
  Importer(std::string_view text, std::string_view source, const NcclImport& options)
      : xml_(text, source,
             {.one_root_hint = "(a topology file holds one <system>)", .refuse_doctype = true}),
        options_(options) {}

  Graph import(std::vector<std::string>* skipped);

 private:
  struct Frame {
    pugi::xml_node node;
    Ref parent;
    std::uint32_t cpu = 0;
    std::uint32_t depth = 0;
  };

  [[noreturn]] void fail(const pugi::xml_node& n, const std::string& what) const {
    xml_.fail(n, what);
  }
  std::string where(const pugi::xml_node& n) const {
    const auto [line, col] = xml_.position(n);
    return xml_.source() + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
  /// Records a kind of thing skipped: the first place it is, and how many more.
  void note(const pugi::xml_node& n, const std::string& what) {
    const auto [it, fresh] = notes_.try_emplace(what, notes_.size(), where(n), 0);
    ++std::get<2>(it->second);
  }
  /// Notes every attribute of `n` not in `read`.
  void attributes(const pugi::xml_node& n, std::initializer_list<std::string_view> read);
  /// The element children of `n`, after refusing text and elements not in `read` or `dropped`
  /// (noted and left out).
  std::vector<pugi::xml_node> children(const pugi::xml_node& n,
                                       std::initializer_list<std::string_view> read,
                                       std::initializer_list<std::string_view> dropped = {});
  std::optional<std::int64_t> integer(const pugi::xml_node& n, const char* key, std::int64_t lo,
                                      std::int64_t hi, bool required) const;
  std::optional<std::string_view> text(const pugi::xml_node& n, const char* key,
                                       bool required) const;

  void read_cpu(const Frame& f);
  void read_pci(const Frame& f);
  void read_gpu(const pugi::xml_node& n, const Frame& f, const Uplink& up);
  void read_gpu_link(const pugi::xml_node& n, Gpu& gpu);
  void read_nic(const pugi::xml_node& n, const Frame& f, double bandwidth,
                const std::string& label);
  std::vector<std::uint32_t> number_gpus();
  double link_bandwidth(const Gpu& gpu, bool nvlink) const;

  XmlDocument xml_;
  NcclImport options_;
  std::vector<Frame> stack_;
  std::map<std::string, std::tuple<std::size_t, std::string, std::size_t>> notes_;
  std::map<std::string, pugi::xml_node> busids_;  // normalised -> its <pci>
  std::map<std::string, std::uint32_t> gpu_of_busid_;
  std::map<std::string, std::size_t> repeats_;  // <pci> elements per normalised bus id
  std::vector<Gpu> gpus_;
  std::vector<pugi::xml_node> cpus_;
  std::vector<std::int64_t> numaids_;
  std::vector<double> cpu_bandwidths_;
  std::vector<std::string> pcis_;  // the bus ids as written
  std::vector<Nic> nics_;
  std::vector<Uplink> uplinks_;
  std::vector<PciLink> pci_links_;
  std::map<std::string, std::uint32_t> pci_of_busid_;  // a switch router's, normalised
  std::optional<std::pair<std::string, pugi::xml_node>> host_hash_;
};

void Importer::attributes(const pugi::xml_node& n, std::initializer_list<std::string_view> read) {
  for (const pugi::xml_attribute& a : n.attributes()) {
    const std::string_view name = a.name();
    if (std::find(read.begin(), read.end(), name) != read.end()) continue;
    note(n, "<" + std::string(n.name()) + "> attribute " + std::string(name) + " skipped (" +
                std::string(why_skipped(name)) + ")");
  }
}

std::vector<pugi::xml_node> Importer::children(const pugi::xml_node& n,
                                               std::initializer_list<std::string_view> read,
                                               std::initializer_list<std::string_view> dropped) {
  std::vector<pugi::xml_node> out;
  for (const pugi::xml_node& c : n.children()) {
    if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
      if (std::string_view(c.value()).find_first_not_of(" \t\r\n") != std::string_view::npos)
        fail(n, "unexpected text inside the element");
      continue;
    }
    if (c.type() != pugi::node_element) continue;  // comments, processing instructions
    const std::string_view name = c.name();
    if (std::find(read.begin(), read.end(), name) != read.end()) {
      out.push_back(c);
    } else if (std::find(dropped.begin(), dropped.end(), name) != dropped.end()) {
      note(c, "<" + std::string(name) + "> skipped (" +
                  (name == "pcilink" ? std::string("a PCI link of a <pci> that is no switch")
                                     : std::string("not modelled")) +
                  ")");
    } else {
      std::string expected;
      for (const std::string_view r : read)
        expected += (expected.empty() ? "<" : ", <") + std::string(r) + ">";
      fail(c, "unexpected element inside <" + std::string(n.name()) + "> (expected " +
                  (expected.empty() ? std::string("none") : expected) + ")");
    }
  }
  return out;
}

std::optional<std::int64_t> Importer::integer(const pugi::xml_node& n, const char* key,
                                              std::int64_t lo, std::int64_t hi,
                                              bool required) const {
  const pugi::xml_attribute a = n.attribute(key);
  if (!a) {
    if (required) fail(n, std::string("missing attribute ") + key);
    return std::nullopt;
  }
  const std::string_view v = a.value();
  // NCCL reads integers with strtol(s, NULL, 0): decimal, or hexadecimal after 0x.
  const bool negative = v.starts_with('-');
  std::string_view digits = v.substr(negative ? 1 : 0);
  int base = 10;
  if (digits.starts_with("0x") || digits.starts_with("0X")) {
    digits.remove_prefix(2);
    base = 16;
  }
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), x, base);
  if (digits.empty() || !std::isxdigit(static_cast<unsigned char>(digits[0])) ||
      ec != std::errc() || end != digits.data() + digits.size())
    fail(n, std::string(key) + "=\"" + std::string(v) + "\" is not an integer");
  if (negative) x = -x;
  if (x < lo || x > hi)
    fail(n, std::string(key) + "=\"" + std::string(v) + "\" is out of range (" +
                std::to_string(lo) + " to " + std::to_string(hi) + ")");
  return x;
}

std::optional<std::string_view> Importer::text(const pugi::xml_node& n, const char* key,
                                               bool required) const {
  const pugi::xml_attribute a = n.attribute(key);
  if (!a) {
    if (required) fail(n, std::string("missing attribute ") + key);
    return std::nullopt;
  }
  if (required && std::string_view(a.value()).empty()) fail(n, std::string(key) + "=\"\": empty");
  return std::string_view(a.value());
}

void Importer::read_cpu(const Frame& f) {
  const pugi::xml_node& n = f.node;
  attributes(n, {"numaid", "arch", "vendor", "familyid", "modelid", "host_hash"});
  const std::int64_t numaid = *integer(n, "numaid", 0, kMaxRouters, true);
  for (std::size_t i = 0; i < cpus_.size(); ++i)
    if (numaids_[i] == numaid)
      fail(n, "numaid=\"" + std::to_string(numaid) + "\" appears twice (first at line " +
                  std::to_string(xml_.line(cpus_[i])) + ")");
  const std::string hash(text(n, "host_hash", false).value_or(""));
  if (!host_hash_) {
    host_hash_.emplace(hash, n);
  } else if (host_hash_->first != hash) {
    fail(n, "host_hash=\"" + hash + "\" differs from line " +
                std::to_string(xml_.line(host_hash_->second)) +
                "'s: a file of one machine is imported (several nodes: --nodes)");
  }
  const gpu_bandwidths::Cpu cpu{
      .arch = text(n, "arch", false).value_or(""),
      .vendor = text(n, "vendor", false).value_or(""),
      .family = integer(n, "familyid", -(1LL << 40), 1LL << 40, false).value_or(0),
      .model = integer(n, "modelid", -(1LL << 40), 1LL << 40, false).value_or(0)};
  double bandwidth = options_.cpu_bandwidth;
  if (bandwidth == 0) {
    bandwidth = gpu_bandwidths::inter_cpu(cpu);
    if (bandwidth == 0)
      note(n,
           "<cpu> of an architecture or vendor NCCL does not know: links to other CPUs "
           "without a bandwidth (or give --cpu-bandwidth)");
  }
  const auto index = static_cast<std::uint32_t>(cpus_.size());
  cpus_.push_back(n);
  numaids_.push_back(numaid);
  cpu_bandwidths_.push_back(bandwidth);
  const std::vector<pugi::xml_node> below = children(n, {"pci", "nic"});
  for (auto it = below.rbegin(); it != below.rend(); ++it)
    stack_.push_back({*it, Ref{Kind::cpu, index}, index, f.depth + 1});
}

void Importer::read_pci(const Frame& f) {
  const pugi::xml_node& n = f.node;
  attributes(n, {"busid", "link_speed", "link_width"});
  const std::string_view busid = *text(n, "busid", true);
  const auto [seen, fresh] = busids_.try_emplace(lower(busid), n);
  // NCCL makes a node of every <pci>, whatever its bus id, and RCCL's own files repeat a
  // switch's (topo_4p4h.xml): a repeated one is a router of its own, "pci BUSID (2)". Only a
  // GPU's must be unique, since links name GPUs by it.
  const std::size_t repeat = ++repeats_[lower(busid)];
  if (!fresh && gpu_of_busid_.contains(lower(busid)))
    fail(n, "busid=\"" + std::string(busid) + "\" of a gpu appears twice (first at line " +
                std::to_string(xml_.line(seen->second)) + ")");
  // NCCL takes a width of 0 (sysfs without one) as 16 lanes.
  std::int64_t width = *integer(n, "link_width", 0, 32, true);
  if (width == 0) width = 16;
  // An empty link_speed (sysfs without one) is NCCL's default, as an unknown one is.
  const std::optional<std::string_view> speed = text(n, "link_speed", false);
  if (!speed) fail(n, "missing attribute link_speed");
  std::uint32_t lane = gpu_bandwidths::pcie_lane_speed(*speed);
  if (lane == 0) {
    note(n, "<pci> link_speed not in NCCL's table: taken as 8 GT/s (PCIe 3.0), as NCCL does");
    lane = gpu_bandwidths::kDefaultPcieLaneSpeed;
  }
  const double bandwidth = options_.pcie_bandwidth > 0
                               ? options_.pcie_bandwidth
                               : gpu_bandwidths::pcie(static_cast<std::uint32_t>(width), lane);
  const std::string label =
      "PCIe " + std::string(gpu_bandwidths::pcie_generation(lane)) + " x" + std::to_string(width);

  std::vector<pugi::xml_node> below = children(n, {"gpu", "nic", "pci", "pcilink"}, {});
  // NCCL's <pcilink>s join switches (ncclTopoAddPciLinks): kept for a switch below, apart.
  std::vector<pugi::xml_node> pci_links;
  std::erase_if(below, [&](const pugi::xml_node& c) {
    if (std::string_view(c.name()) != "pcilink") return false;
    pci_links.push_back(c);
    return true;
  });
  const auto count = [&](std::string_view name) {
    return std::count_if(below.begin(), below.end(),
                         [&](const pugi::xml_node& c) { return c.name() == name; });
  };
  const auto first_not = [&](std::string_view name) {
    return *std::find_if(below.begin(), below.end(),
                         [&](const pugi::xml_node& c) { return c.name() != name; });
  };
  if (!pci_links.empty() && below.size() > 0 && count("pci") == 0)
    for (const pugi::xml_node& l : pci_links)
      note(l, "<pcilink> skipped (a PCI link of a <pci> that is no switch)");
  if (count("gpu") > 0) {
    if (count("gpu") > 1)
      fail(below[1], "a second <gpu> in one <pci> (GPU partitions, MLOPart, are not modelled)");
    if (below.size() > 1) fail(first_not("gpu"), "a <pci> that holds a <gpu> holds nothing else");
    const Uplink up{Ref{Kind::gpu, static_cast<std::uint32_t>(gpus_.size())}, f.parent, bandwidth,
                    label};
    if (!gpu_of_busid_.emplace(lower(busid), static_cast<std::uint32_t>(gpus_.size())).second ||
        !fresh)
      fail(n, "busid=\"" + std::string(busid) + "\" of a gpu appears twice (first at line " +
                  std::to_string(xml_.line(seen->second)) + ")");
    read_gpu(below[0], f, up);
  } else if (count("nic") > 0) {
    if (count("nic") != static_cast<std::ptrdiff_t>(below.size()))
      fail(first_not("nic"), "a <pci> that holds a <nic> holds nothing else");
    for (const pugi::xml_node& nic : below) read_nic(nic, f, bandwidth, label);
  } else if (!below.empty() || !pci_links.empty()) {
    const Ref self{Kind::pci, static_cast<std::uint32_t>(pcis_.size())};
    pci_of_busid_.emplace(lower(busid), self.index);
    for (const pugi::xml_node& l : pci_links) {
      attributes(l, {"target"});
      pci_links_.push_back({l, self.index, lower(*text(l, "target", true))});
    }
    pcis_.push_back(std::string(busid) +
                    (repeat > 1 ? " (" + std::to_string(repeat) + ")" : std::string()));
    if (repeat > 1) note(n, "<pci> busid repeated: a router of its own, named with (2), (3), ...");
    uplinks_.push_back({self, f.parent, bandwidth, label});
    if (f.depth + 1 > kMaxNcclDepth)
      fail(below[0], "nested deeper than " + std::to_string(kMaxNcclDepth) + " levels");
    for (auto it = below.rbegin(); it != below.rend(); ++it)
      stack_.push_back({*it, self, f.cpu, f.depth + 1});
  } else {
    note(n, "<pci> without a <gpu>, <nic> or <pci> inside skipped (nothing to route through)");
  }
}

void Importer::read_gpu(const pugi::xml_node& n, const Frame& f, const Uplink& up) {
  attributes(n, {"rank", "dev", "sm", "gcn"});
  Gpu gpu;
  gpu.node = n;
  gpu.cpu = f.cpu;
  gpu.rank = integer(n, "rank", 0, kMaxRanks - 1, false);
  gpu.dev = integer(n, "dev", 0, kMaxRanks - 1, false);
  gpu.sm = integer(n, "sm", 0, 1'000'000, false);
  if (const auto gcn = text(n, "gcn", false)) gpu.gcn = std::string(*gcn);
  for (const pugi::xml_node& l : children(n, {"nvlink", "xgmi", "c2c"}, {})) read_gpu_link(l, gpu);
  uplinks_.push_back(up);
  gpus_.push_back(std::move(gpu));
}

void Importer::read_gpu_link(const pugi::xml_node& n, Gpu& gpu) {
  GpuLink link;
  link.node = n;
  if (std::string_view(n.name()) == "c2c") {
    // NCCL's ncclTopoAddC2c: `count` links of `bw` MB/s each between the GPU and its CPU.
    attributes(n, {"count", "bw"});
    link.target = Target::cpu;
    link.count = static_cast<std::uint32_t>(*integer(n, "count", 1, kMaxLinkCapacity, true));
    link.c2c_bandwidth = double(*integer(n, "bw", 1, 1'000'000'000, true)) * 1e6;
    gpu.links.push_back(std::move(link));
    return;
  }
  attributes(n, {"target", "count", "tclass"});
  link.nvlink = std::string_view(n.name()) == "nvlink";
  link.count = static_cast<std::uint32_t>(*integer(n, "count", 1, kMaxLinkCapacity, true));
  const std::string_view tclass = *text(n, "tclass", true);
  // NCCL's kvDictPciClass, prefixes as kvConvertToInt matches them; RCCL adds 0x120000 (a
  // processing accelerator: MI300X) as a GPU.
  if (tclass.starts_with("0x068000")) {
    link.target = Target::nvswitch;
  } else if (tclass.starts_with("0x068001")) {
    link.target = Target::cpu;
  } else if (tclass.starts_with("0x03") || tclass.starts_with("0x120000")) {
    link.target = Target::gpu;
    link.busid = lower(*text(n, "target", true));
  } else {
    fail(n, "tclass=\"" + std::string(tclass) +
                "\": a link to a device of this class is not known (a GPU 0x03..., 0x120000; "
                "an NVSwitch 0x068000; a CPU 0x068001)");
  }
  gpu.links.push_back(std::move(link));
}

void Importer::read_nic(const pugi::xml_node& n, const Frame& f, double bandwidth,
                        const std::string& label) {
  attributes(n, {});
  Nic nic;
  double mbps = 0;
  for (const pugi::xml_node& net : children(n, {"net"})) {
    attributes(net, {"name", "dev", "speed", "net"});
    const auto dev = integer(net, "dev", 0, kMaxRanks, false);
    // NCCL adds a <net> with a dev as a network device unless it says net="0".
    if (!dev || integer(net, "net", 0, 1, false).value_or(1) == 0) {
      note(net,
           "<net> without dev, or with net=\"0\", skipped (NCCL does not add it as a network "
           "device)");
      continue;
    }
    std::int64_t speed = integer(net, "speed", -kMaxMbps, kMaxMbps, false).value_or(0);
    if (speed <= 0) {
      note(net, "<net> speed missing or not positive: taken as 10000 Mbps, as NCCL does");
      speed = kDefaultMbps;
    }
    mbps += double(speed);
    const std::string name(text(net, "name", false).value_or(""));
    nic.name += (nic.ports == 0 ? "" : ",") + (name.empty() ? "dev " + std::to_string(*dev) : name);
    if (++nic.ports > kMaxLinkCapacity)
      fail(net, "more than " + std::to_string(kMaxLinkCapacity) + " <net> in one <nic>");
  }
  if (nic.ports == 0) {
    note(n, "<nic> without a network device skipped");
    return;
  }
  nic.bandwidth = options_.nic_bandwidth > 0 ? options_.nic_bandwidth * nic.ports : mbps * 1e6 / 8;
  if (nic.bandwidth > kMaxBandwidth)
    fail(n, "its <net>s' speeds add up to more than " + std::to_string(kMaxMbps) + " Mbps");
  const Ref self{Kind::nic, static_cast<std::uint32_t>(nics_.size())};
  // A <nic> right inside a <cpu> hangs from it by NCCL's local link (LOC_BW, no real limit).
  if (std::string_view(n.parent().name()) == "cpu")
    uplinks_.push_back({self, f.parent, gpu_bandwidths::kLocal, "local"});
  else
    uplinks_.push_back({self, f.parent, bandwidth, label});
  nics_.push_back(std::move(nic));
}

std::vector<std::uint32_t> Importer::number_gpus() {
  const auto G = static_cast<std::uint32_t>(gpus_.size());
  std::vector<std::uint32_t> rank(G);
  const auto with_rank =
      std::count_if(gpus_.begin(), gpus_.end(), [](const Gpu& g) { return g.rank.has_value(); });
  if (with_rank == G) {
    // A dump of node n > 0 of a job carries the job's ranks (8..15 on the second node of 8
    // GPUs): a range that starts above 0 is numbered from 0, and said so.
    std::int64_t base = *gpus_[0].rank;
    for (const Gpu& g : gpus_) base = std::min(base, *g.rank);
    if (base > 0)
      note(gpus_[0].node, "ranks " + std::to_string(base) + " to " + std::to_string(base + G - 1) +
                              " numbered from 0 (a node's part of a larger job)");
    std::vector<const Gpu*> holder(G, nullptr);
    for (std::uint32_t i = 0; i < G; ++i) {
      const std::int64_t r = *gpus_[i].rank - base;
      if (r >= G)
        fail(gpus_[i].node, "rank=\"" + std::to_string(*gpus_[i].rank) + "\" but the file has " +
                                std::to_string(G) + " gpus (ranks " + std::to_string(base) +
                                " to " + std::to_string(base + G - 1) + ")");
      if (holder[r])
        fail(gpus_[i].node, "rank " + std::to_string(*gpus_[i].rank) +
                                " appears twice (first at line " +
                                std::to_string(xml_.line(holder[r]->node)) + ")");
      holder[r] = &gpus_[i];
      rank[i] = static_cast<std::uint32_t>(r);
    }
    return rank;
  }
  for (const Gpu& g : gpus_) {
    if (g.rank) continue;
    if (with_rank > 0)
      fail(g.node, "no rank, while other gpus have one (give every gpu a rank, or none)");
    if (!g.dev) fail(g.node, "neither rank nor dev: the gpu cannot be numbered");
  }
  std::vector<std::uint32_t> order(G);
  for (std::uint32_t i = 0; i < G; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return *gpus_[a].dev < *gpus_[b].dev; });
  for (std::uint32_t r = 0; r < G; ++r) rank[order[r]] = r;
  return rank;
}

double Importer::link_bandwidth(const Gpu& gpu, bool nvlink) const {
  if (nvlink) {
    if (options_.nvlink_bandwidth > 0) return options_.nvlink_bandwidth;
    if (!gpu.sm)
      fail(gpu.node,
           "missing attribute sm: an NVLink's bandwidth depends on it (or give "
           "--nvlink-bandwidth)");
    return gpu_bandwidths::nvlink(*gpu.sm);
  }
  if (options_.xgmi_bandwidth > 0) return options_.xgmi_bandwidth;
  if (!gpu.gcn)
    fail(gpu.node,
         "missing attribute gcn: an xGMI link's bandwidth depends on it (or give "
         "--xgmi-bandwidth)");
  return gpu_bandwidths::xgmi(*gpu.gcn);
}

Graph Importer::import(std::vector<std::string>* skipped) {
  const pugi::xml_node system = xml_.root();
  if (!system) throw InputError(xml_.source() + ": no <system> element: not a topology file");
  if (std::string_view(system.name()) != "system")
    fail(system, "the top-level element of an NCCL topology file is <system>");
  attributes(system, {});
  const std::vector<pugi::xml_node> cpus = children(system, {"cpu"});
  for (auto it = cpus.rbegin(); it != cpus.rend(); ++it) stack_.push_back({*it, {}, 0, 2});
  while (!stack_.empty()) {
    const Frame f = stack_.back();
    stack_.pop_back();
    const std::string_view name = f.node.name();
    if (name == "cpu")
      read_cpu(f);
    else if (name == "pci")
      read_pci(f);
    else
      read_nic(f.node, f, gpu_bandwidths::kLocal, "local");
  }
  if (gpus_.empty()) fail(system, "no <gpu>: a machine of no ranks");

  // One node's routers: GPUs by rank, the NVSwitch, CPUs, PCI switches, NICs.
  const auto G = static_cast<std::uint32_t>(gpus_.size());
  const std::vector<std::uint32_t> rank = number_gpus();
  const bool nvswitch = std::any_of(gpus_.begin(), gpus_.end(), [](const Gpu& g) {
    return std::any_of(g.links.begin(), g.links.end(),
                       [](const GpuLink& l) { return l.target == Target::nvswitch; });
  });
  const std::uint32_t first_cpu = G + (nvswitch ? 1 : 0);
  const auto first_pci = first_cpu + static_cast<std::uint32_t>(cpus_.size());
  const auto first_nic = first_pci + static_cast<std::uint32_t>(pcis_.size());
  const auto R = first_nic + static_cast<std::uint32_t>(nics_.size());
  const auto index = [&](Ref r) -> std::uint32_t {
    switch (r.kind) {
      case Kind::gpu:
        return rank[r.index];
      case Kind::nvswitch:
        return G;
      case Kind::cpu:
        return first_cpu + r.index;
      case Kind::pci:
        return first_pci + r.index;
      case Kind::nic:
        return first_nic + r.index;
    }
    return 0;
  };
  std::vector<std::string> names(R);
  for (std::uint32_t i = 0; i < G; ++i) names[rank[i]] = "gpu" + std::to_string(rank[i]);
  if (nvswitch) names[G] = "nvswitch";
  for (std::uint32_t i = 0; i < cpus_.size(); ++i)
    names[first_cpu + i] = "cpu" + std::to_string(numaids_[i]);
  for (std::uint32_t i = 0; i < pcis_.size(); ++i) names[first_pci + i] = "pci " + pcis_[i];
  for (std::uint32_t i = 0; i < nics_.size(); ++i) {
    names[first_nic + i] = "nic " + nics_[i].name;
    for (std::uint32_t j = 0; j < i; ++j)
      if (nics_[j].name == nics_[i].name)
        throw InputError(xml_.source() + ": two NICs named \"" + nics_[i].name + "\"");
  }

  // Links, merged by router pair: a GPU's NVLink to its CPU and its PCIe link to the same CPU
  // are one bundle of both.
  std::vector<Edge> edges;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> edge_of;
  const auto add = [&](std::uint32_t a, std::uint32_t b, std::uint32_t capacity, double bandwidth,
                       const std::string& label, const pugi::xml_node& at) {
    const auto [it, fresh] = edge_of.try_emplace({std::min(a, b), std::max(a, b)}, edges.size());
    if (fresh) {
      edges.push_back({a, b, capacity, bandwidth, label});
      return;
    }
    Edge& e = edges[it->second];
    e.capacity += capacity;
    e.bandwidth += bandwidth;
    if (e.label != label) e.label += ", " + label;
    if (e.capacity > kMaxLinkCapacity)
      fail(at, "more than " + std::to_string(kMaxLinkCapacity) + " links between " + names[a] +
                   " and " + names[b]);
  };
  // A gpu's links to one peer, added up over its elements (NCCL and RCCL add the bandwidth of a
  // link listed twice, and RCCL's topo_8p1h_1.xml lists some twice).
  struct Listed {
    std::uint32_t count = 0;
    const GpuLink* first = nullptr;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, Listed> listed;  // (gpu, peer), file order
  for (std::uint32_t i = 0; i < G; ++i) {
    for (const GpuLink& l : gpus_[i].links) {
      const double per_link =
          l.c2c_bandwidth > 0 ? l.c2c_bandwidth : link_bandwidth(gpus_[i], l.nvlink);
      const std::string label = l.c2c_bandwidth > 0 ? "C2C" : l.nvlink ? "NVLink" : "xGMI";
      if (l.target == Target::nvswitch) {
        add(rank[i], G, l.count, l.count * per_link, label, l.node);
        continue;
      }
      if (l.target == Target::cpu) {
        add(rank[i], first_cpu + gpus_[i].cpu, l.count, l.count * per_link, label, l.node);
        continue;
      }
      const auto peer = gpu_of_busid_.find(l.busid);
      if (peer == gpu_of_busid_.end())
        fail(l.node, "target=\"" + std::string(l.node.attribute("target").value()) + "\": " +
                         (busids_.contains(l.busid) ? "that <pci> holds no <gpu>"
                                                    : "no <pci> has this busid"));
      if (peer->second == i) fail(l.node, "a link from a gpu to itself");
      Listed& x = listed[{i, peer->second}];
      if (x.first && x.first->nvlink != l.nvlink)
        fail(l.node, "an <nvlink> and an <xgmi> to the same gpu");
      if (!x.first) x.first = &l;
      x.count += l.count;
      if (x.count > kMaxLinkCapacity)
        fail(l.node, "more than " + std::to_string(kMaxLinkCapacity) + " links to one gpu");
    }
  }
  // GPU to GPU: once per pair, whichever side lists it, both sides agreeing.
  for (const auto& [key, x] : listed) {
    const auto [i, j] = key;
    const auto back = listed.find({j, i});
    if (back != listed.end() && j < i) continue;  // the pair was added from j's side
    double per_link = link_bandwidth(gpus_[i], x.first->nvlink);
    if (back != listed.end()) {
      const Listed& y = back->second;
      if (y.count != x.count || y.first->nvlink != x.first->nvlink)
        fail(y.first->node, std::string("this gpu's <") + y.first->node.name() +
                                ">s to its peer add up to count " + std::to_string(y.count) +
                                ", the peer's <" + x.first->node.name() + ">s back (line " +
                                std::to_string(xml_.line(x.first->node)) + ") to " +
                                std::to_string(x.count) +
                                ": a link carries the same in both directions");
      // The slower side bounds the link (two GPUs of different architectures).
      per_link = std::min(per_link, link_bandwidth(gpus_[j], x.first->nvlink));
    }
    add(rank[i], rank[j], x.count, x.count * per_link, x.first->nvlink ? "NVLink" : "xGMI",
        x.first->node);
  }
  for (const Uplink& u : uplinks_)
    add(index(u.child), index(u.parent), 1, u.bandwidth, u.label,
        u.child.kind == Kind::gpu ? gpus_[u.child.index].node : system);
  for (const PciLink& l : pci_links_) {
    const auto to = pci_of_busid_.find(l.target);
    if (to == pci_of_busid_.end()) {  // NCCL ignores it too (ncclTopoAddPciLinks: if (remote))
      note(l.node, "<pcilink> to a bus id of no PCI switch skipped (as NCCL does)");
      continue;
    }
    if (to->second == l.from) fail(l.node, "a <pcilink> from a switch to itself");
    // Listed on both switches, or once: one link (NCCL's LOC_BW, a link it does not limit).
    if (to->second < l.from &&
        std::any_of(pci_links_.begin(), pci_links_.end(), [&](const PciLink& back) {
          const auto b = pci_of_busid_.find(back.target);
          return back.from == to->second && b != pci_of_busid_.end() && b->second == l.from;
        }))
      continue;
    add(first_pci + l.from, first_pci + to->second, 1, gpu_bandwidths::kLocal, "PCI link", l.node);
  }
  for (std::uint32_t a = 0; a < cpus_.size(); ++a)
    for (std::uint32_t b = a + 1; b < cpus_.size(); ++b)
      add(first_cpu + a, first_cpu + b, 1, std::min(cpu_bandwidths_[a], cpu_bandwidths_[b]), "SMP",
          cpus_[b]);
  // A GPU drives all its links at once: its ports are their physical links, PCIe included.
  std::vector<std::uint32_t> ports(R, 1);
  for (std::uint32_t r = 0; r < G; ++r) ports[r] = 0;
  for (const Edge& e : edges)
    for (const std::uint32_t end : {e.a, e.b})
      if (end < G) ports[end] += e.capacity;
  for (std::uint32_t i = 0; i < G; ++i)
    if (ports[rank[i]] > kMaxLinkCapacity)
      fail(gpus_[i].node, "more than " + std::to_string(kMaxLinkCapacity) + " links of one gpu");

  // The nodes, and the network between their NICs.
  const std::uint32_t nodes = options_.nodes;
  if (nodes < 1) throw InputError("--nodes " + std::to_string(nodes) + ": at least 1");
  if (nodes > 1 && nics_.empty())
    throw InputError(xml_.source() + ": --nodes " + std::to_string(nodes) +
                     ": the machine has no <nic> to join its copies by");
  if (std::uint64_t{R} * nodes + (nodes > 1 ? 1 : 0) > kMaxRouters)
    throw InputError(xml_.source() + ": --nodes " + std::to_string(nodes) + ": " +
                     std::to_string(R) + " routers per node; at most " +
                     std::to_string(kMaxRouters) + " routers in all");
  std::vector<std::string> routers;
  std::vector<Graph::NamedLink> links;
  std::vector<Rank> hosts;
  std::vector<std::uint32_t> capacities, host_ports;
  LinkFacts facts;
  for (std::uint32_t node = 0; node < nodes; ++node) {
    const std::string prefix = nodes > 1 ? "n" + std::to_string(node) + "." : "";
    for (std::uint32_t r = 0; r < R; ++r) {
      routers.push_back(prefix + names[r]);
      hosts.push_back(r < G ? 1 : 0);
      host_ports.push_back(ports[r]);
      // A GPU's host link is the GPU to itself: NCCL's LOC_BW (routers without hosts: none).
      facts.host_bandwidths.push_back(r < G ? gpu_bandwidths::kLocal : 0);
    }
    for (const Edge& e : edges) {
      links.push_back({prefix + names[e.a], prefix + names[e.b]});
      capacities.push_back(e.capacity);
      facts.bandwidths.push_back(e.bandwidth);
      facts.labels.push_back(e.label);
    }
  }
  if (nodes > 1) {
    routers.emplace_back("network");
    hosts.push_back(0);
    host_ports.push_back(1);
    facts.host_bandwidths.push_back(0);
    for (std::uint32_t node = 0; node < nodes; ++node)
      for (std::uint32_t i = 0; i < nics_.size(); ++i) {
        links.push_back({"n" + std::to_string(node) + "." + names[first_nic + i], "network"});
        capacities.push_back(nics_[i].ports);
        facts.bandwidths.push_back(nics_[i].bandwidth);
        facts.labels.emplace_back("net");
      }
  }
  for (std::size_t e = 0; e < facts.bandwidths.size(); ++e)
    if (facts.bandwidths[e] > kMaxBandwidth)
      throw InputError(xml_.source() + ": the link " + links[e][0] + " - " + links[e][1] +
                       " would carry more than 1e15 bytes per second (a bandwidth option too "
                       "large?)");

  if (skipped) {
    std::vector<std::pair<std::size_t, std::string>> lines;
    for (const auto& [what, entry] : notes_) {
      const auto& [order, at, count] = entry;
      lines.emplace_back(
          order, at + ": " + what +
                     (count > 1 ? " (and " + std::to_string(count - 1) + " more like it)" : ""));
    }
    std::sort(lines.begin(), lines.end());
    for (auto& [order, line] : lines) skipped->push_back(std::move(line));
  }
  return Graph(std::move(routers), std::move(links), std::move(hosts), std::move(capacities),
               std::move(host_ports), std::move(facts));
}

}  // namespace

Graph import_nccl_topology(std::string_view text, std::string_view source,
                           const NcclImport& options, std::vector<std::string>* skipped) {
  return Importer(text, source, options).import(skipped);
}

}  // namespace phasecheck::io
