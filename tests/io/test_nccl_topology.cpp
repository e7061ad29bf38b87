#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/gpu_bandwidths.hpp"
#include "core/topology.hpp"
#include "io/json.hpp"
#include "io/nccl_topology.hpp"

using namespace phasecheck;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(PHASECHECK_SOURCE_DIR) + "/tests/topologies/nccl/" + name);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Graph import(const std::string& name, const io::NcclImport& options = {},
             std::vector<std::string>* skipped = nullptr) {
  return io::import_nccl_topology(fixture(name), name, options, skipped);
}

std::uint32_t router(const Graph& g, const std::string& name) {
  for (std::uint32_t r = 0; r < g.router_count(); ++r)
    if (g.routers()[r] == name) return r;
  FAIL("no router " << name);
  return 0;
}

/// The router link between two routers, as listed.
std::size_t link(const Graph& g, const std::string& a, const std::string& b) {
  for (std::size_t e = 0; e < g.links().size(); ++e)
    if ((g.links()[e][0] == a && g.links()[e][1] == b) ||
        (g.links()[e][0] == b && g.links()[e][1] == a))
      return e;
  FAIL("no link " << a << " - " << b);
  return 0;
}

/// The routers a message from `src` to `dst` passes, in order.
std::vector<std::string> path(const Graph& g, Rank src, Rank dst) {
  std::vector<std::string> out;
  for (const NodeId n : route_nodes(Topology(g), src, dst))
    if (n >= g.ranks()) out.push_back(g.routers()[n - g.ranks()]);
  return out;
}

using Path = std::vector<std::string>;

}  // namespace

TEST_CASE("nccl topology: the xGMI machine, one link per pair of its 8 gpus, 48 GB/s each") {
  std::vector<std::string> skipped;
  const Graph g = import("xgmi-8.xml", {}, &skipped);
  REQUIRE(g.ranks() == 8);
  for (Rank r = 0; r < 8; ++r) {
    CHECK(g.routers()[r] == "gpu" + std::to_string(r));
    CHECK(g.hosts()[r] == 1);
    CHECK(g.host_ports()[r] == 8);  // 7 xGMI links and PCIe
    // The GPU's host link (the GPU to itself) has NCCL's LOC_BW, both ways; switches no hosts.
    CHECK(g.bandwidth(2 * r) == gpu_bandwidths::kLocal);
    CHECK(g.bandwidth(2 * r + 1) == gpu_bandwidths::kLocal);
  }
  CHECK(g.facts().host_bandwidths.size() == g.router_count());
  CHECK(g.facts().host_bandwidths[8] == 0);
  std::size_t checked = 0;
  for (Rank a = 0; a < 8; ++a)
    for (Rank b = a + 1; b < 8; ++b) {
      const std::size_t e = link(g, "gpu" + std::to_string(a), "gpu" + std::to_string(b));
      CHECK(g.capacities()[e] == 1);
      CHECK(g.facts().bandwidths[e] == 48e9);
      CHECK(g.facts().labels[e] == "xGMI");
      CHECK(path(g, a, b) == Path{"gpu" + std::to_string(a), "gpu" + std::to_string(b)});
      ++checked;
    }
  CHECK(checked == 28);
  const std::size_t pcie = link(g, "gpu0", "pci 0000:05:00.0");
  CHECK(g.facts().bandwidths[pcie] == 16 * 240 / 80.0 * 1e9);
  CHECK(g.facts().labels[pcie] == "PCIe 5.0 x16");
  const std::size_t smp = link(g, "cpu0", "cpu1");
  CHECK(g.facts().bandwidths[smp] == 16e9);  // AMD
  CHECK(g.facts().labels[smp] == "SMP");
  // version, affinity, class, arch and gdr are not modelled, and said so once each.
  CHECK(skipped.size() == 5);
  CHECK(skipped[1] ==
        "xgmi-8.xml:2:4: <cpu> attribute affinity skipped (which cores a NUMA node "
        "has, not a link) (and 1 more like it)");
}

TEST_CASE("nccl topology: the NVSwitch machine routes gpu pairs over the NVSwitch") {
  const Graph g = import("nvswitch-8.xml");
  REQUIRE(g.ranks() == 8);
  CHECK(g.routers()[8] == "nvswitch");
  for (Rank r = 0; r < 8; ++r) {
    const std::size_t e = link(g, "gpu" + std::to_string(r), "nvswitch");
    CHECK(g.capacities()[e] == 18);  // 5 + 4 + 4 + 5 to the four NVSwitches, merged
    CHECK(g.facts().bandwidths[e] == doctest::Approx(18 * 20.6e9).scale(0));
    CHECK(g.host_ports()[r] == 19);
  }
  // gpu0 and gpu1 share a PCIe switch: the NVSwitch, listed first, takes the tie.
  CHECK(link(g, "gpu1", "pci 0000:15:00.0") < g.links().size());
  CHECK(path(g, 0, 1) == Path{"gpu0", "nvswitch", "gpu1"});
  CHECK(path(g, 0, 7) == Path{"gpu0", "nvswitch", "gpu7"});
  CHECK(g.routers()[router(g, "nic mlx5_3")] == "nic mlx5_3");
  CHECK(g.facts().bandwidths[link(g, "cpu0", "cpu1")] == 22e9);  // Sapphire Rapids
}

TEST_CASE("nccl topology: the PCIe machine routes through its switches and CPUs") {
  std::vector<std::string> skipped;
  const Graph g = import("pcie-8.xml", {}, &skipped);
  REQUIRE(g.ranks() == 8);
  for (Rank r = 0; r < 8; ++r) CHECK(g.host_ports()[r] == 1);
  CHECK(path(g, 0, 1) == Path{"gpu0", "pci 0000:18:00.0", "gpu1"});
  CHECK(path(g, 0, 2) == Path{"gpu0", "pci 0000:18:00.0", "cpu0", "pci 0000:3b:00.0", "gpu2"});
  CHECK(path(g, 0, 4) ==
        Path{"gpu0", "pci 0000:18:00.0", "cpu0", "cpu1", "pci 0000:86:00.0", "gpu4"});
  CHECK(g.facts().bandwidths[link(g, "gpu0", "pci 0000:18:00.0")] == 24e9);  // 16 x 120 / 80
  CHECK(g.facts().bandwidths[link(g, "cpu0", "cpu1")] == 10e9);              // Skylake
  bool nvme = false;
  for (const std::string& s : skipped)
    nvme = nvme || s.starts_with("pcie-8.xml:10:8: <pci> without a <gpu>, <nic> or <pci> inside");
  CHECK(nvme);
}

TEST_CASE("nccl topology: two NICs, NVLink pairs listed on both sides count once") {
  const Graph g = import("two-nic-4.xml");
  REQUIRE(g.ranks() == 4);
  const std::size_t pair = link(g, "gpu0", "gpu1");
  CHECK(g.capacities()[pair] == 4);
  CHECK(g.facts().bandwidths[pair] == 80e9);
  CHECK(g.facts().labels[pair] == "NVLink");
  CHECK(g.host_ports()[0] == 5);
  CHECK(path(g, 0, 1) == Path{"gpu0", "gpu1"});
  CHECK(g.routers()[g.router_count() - 2] == "nic mlx5_0");
  CHECK(g.routers()[g.router_count() - 1] == "nic mlx5_1,mlx5_2");

  SUBCASE("--nodes 2: copies joined by a network between the NICs") {
    const Graph two = import("two-nic-4.xml", {.nodes = 2});
    REQUIRE(two.ranks() == 8);
    CHECK(two.routers()[two.router_of(5)] == "n1.gpu1");  // ranks node by node
    CHECK(two.routers()[two.router_count() - 1] == "network");
    const std::size_t net = link(two, "n1.nic mlx5_1,mlx5_2", "network");
    CHECK(two.capacities()[net] == 2);
    CHECK(two.facts().bandwidths[net] == 2 * 200000e6 / 8);
    CHECK(two.facts().labels[net] == "net");
    CHECK(path(two, 0, 4) == Path{"n0.gpu0", "n0.pci 0000:20:00.0", "n0.nic mlx5_0", "network",
                                  "n1.nic mlx5_0", "n1.pci 0000:20:00.0", "n1.gpu0"});
  }
  SUBCASE("bandwidth options replace the table's") {
    const Graph o = import("two-nic-4.xml", {.nodes = 2,
                                             .nvlink_bandwidth = 1e9,
                                             .pcie_bandwidth = 2e9,
                                             .cpu_bandwidth = 3e9,
                                             .nic_bandwidth = 5e9});
    CHECK(o.facts().bandwidths[link(o, "n0.gpu0", "n0.gpu1")] == 4e9);
    CHECK(o.facts().bandwidths[link(o, "n0.gpu0", "n0.pci 0000:20:00.0")] == 2e9);
    CHECK(o.facts().bandwidths[link(o, "n0.nic mlx5_1,mlx5_2", "network")] == 10e9);
  }
}

TEST_CASE("nccl topology: gpus without rank are numbered by dev, then document order") {
  std::string xml = fixture("two-nic-4.xml");
  for (const char* r : {" rank=\"0\"", " rank=\"1\"", " rank=\"2\"", " rank=\"3\""})
    xml.erase(xml.find(r), std::string(r).size());
  xml.replace(xml.find("dev=\"0\" sm"), 7, "dev=\"9\"");  // gpu at 0000:21 last
  const Graph g = io::import_nccl_topology(xml, "x.xml", {});
  // 0000:22 (dev 1) is rank 0 now, 0000:21 (dev 9) rank 3: their NVLink joins gpu0 and gpu3.
  CHECK(g.capacities()[link(g, "gpu0", "gpu3")] == 4);
  CHECK(g.capacities()[link(g, "gpu1", "gpu2")] == 4);
}

TEST_CASE("nccl topology: every --topology reads the XML by content") {
  const std::string xml = fixture("nvswitch-8.xml");
  const Topology t = io::parse_topology(xml, "nvswitch-8.xml");
  CHECK(std::get<Graph>(t) == io::import_nccl_topology(xml, "nvswitch-8.xml", {}));
  // Written as a topology file (format 2) and read back, it is the same machine.
  CHECK(io::parse_topology(io::topology_to_json(t), "t.json") == t);
}

TEST_CASE("nccl topology: bad files are refused with the file, line and column") {
  struct Case {
    const char* name;
    const char* expected;
  };
  const Case files[] = {
      {"bad/unknown-target.xml",
       "bad/unknown-target.xml:6:12: <nvlink>: target=\"0000:2f:00.0\": no <pci> has this busid"},
      {"bad/no-rank-no-dev.xml",
       "bad/no-rank-no-dev.xml:5:10: <gpu>: neither rank nor dev: the gpu cannot be numbered"},
      {"bad/duplicate-rank.xml",
       "bad/duplicate-rank.xml:22:10: <gpu>: rank 1 appears twice (first at line 10)"},
      {"bad/count-zero.xml",
       "bad/count-zero.xml:6:12: <nvlink>: count=\"0\" is out of range (1 to 1024)"},
      {"bad/doctype.xml", "bad/doctype.xml:1:11: invalid XML: a DOCTYPE declaration"},
      {"bad/too-deep.xml", "bad/too-deep.xml:65:2: <pci>: nested deeper than 64 levels"},
  };
  for (const Case& c : files) {
    CAPTURE(c.name);
    CHECK_THROWS_WITH_AS(import(c.name), doctest::Contains(c.expected), InputError);
  }
  const std::string good = fixture("two-nic-4.xml");
  const auto refused = [&](std::string from, std::string to, const io::NcclImport& options = {}) {
    std::string xml = good;
    REQUIRE(xml.find(from) != std::string::npos);
    xml.replace(xml.find(from), from.size(), to);
    std::string message;
    try {
      io::import_nccl_topology(xml, "x.xml", options);
    } catch (const InputError& e) {
      message = e.what();
    }
    return message;
  };
  CHECK(refused("count=\"4\"", "count=\"3\"") ==
        "x.xml:11:12: <nvlink>: this gpu's <nvlink>s to its peer add up to count 4, the peer's "
        "<nvlink>s back (line 6) to 3: a link carries the same in both directions");
  CHECK(refused("busid=\"0000:22:00.0\"", "busid=\"0000:21:00.0\"") ==
        "x.xml:9:8: <pci>: busid=\"0000:21:00.0\" of a gpu appears twice (first at line 4)");
  CHECK(refused("busid=\"0000:23:00.0\"", "busid=\"0000:21:00.0\"") ==
        "x.xml:14:8: <pci>: busid=\"0000:21:00.0\" of a gpu appears twice (first at line 4)");
  CHECK(refused("rank=\"3\"", "rank=\"4\"") ==
        "x.xml:27:10: <gpu>: rank=\"4\" but the file has 4 gpus (ranks 0 to 3)");
  CHECK(refused("<nic>", "<nic><bridge/>") ==
        "x.xml:15:15: <bridge>: unexpected element inside <nic> (expected <net>)");
  CHECK(refused("tclass=\"0x030200\"", "tclass=\"0x060400\"")
            .starts_with("x.xml:6:12: <nvlink>: tclass=\"0x060400\": a link to a device of this "
                         "class is not known"));
  CHECK(refused("link_width=\"16\"", "link_width=\"64\"") ==
        "x.xml:3:6: <pci>: link_width=\"64\" is out of range (0 to 32)");
  CHECK(refused("speed=\"200000\"", "speed=\"9000000000\"")
            .starts_with("x.xml:16:12: <net>: speed=\"9000000000\" is out of range"));
  CHECK(refused("target=\"0000:22:00.0\"", "target=\"0000:23:00.0\"") ==
        "x.xml:6:12: <nvlink>: target=\"0000:23:00.0\": that <pci> holds no <gpu>");
  CHECK(refused("numaid=\"0\"", "") == "x.xml:2:4: <cpu>: missing attribute numaid");
  CHECK(refused("<system version=\"1\">", "<system version=\"1\"><cpu numaid=\"0\"/>") ==
        "x.xml:2:4: <cpu>: numaid=\"0\" appears twice (first at line 1)");
  // More than one node needs NICs, and routers within kMaxRouters.
  const std::string pcie = fixture("pcie-8.xml");
  CHECK_THROWS_WITH_AS(io::import_nccl_topology(pcie, "p.xml", {.nodes = 2}),
                       "p.xml: --nodes 2: the machine has no <nic> to join its copies by",
                       InputError);
  CHECK_THROWS_WITH_AS(io::import_nccl_topology(good, "x.xml", {.nodes = 300}),
                       "x.xml: --nodes 300: 9 routers per node; at most 2048 routers in all",
                       InputError);
}

TEST_CASE("nccl topology: a NIC speed NCCL would not read is NCCL's default, and said so") {
  std::string xml = fixture("two-nic-4.xml");
  xml.replace(xml.find("speed=\"200000\""), 14, "speed=\"-1\"");
  std::vector<std::string> skipped;
  const Graph g = io::import_nccl_topology(xml, "x.xml", {.nodes = 2}, &skipped);
  CHECK(g.facts().bandwidths[link(g, "n0.nic mlx5_0", "network")] == 10000e6 / 8);
  bool said = false;
  for (const std::string& s : skipped)
    said = said || s == "x.xml:16:12: <net> speed missing or not positive: taken as 10000 Mbps, "
                        "as NCCL does";
  CHECK(said);
}

TEST_CASE("nccl topology: what NCCL's other shapes become") {
  const auto system = [](const std::string& cpus) {
    return "<system version=\"1\">\n" + cpus + "</system>\n";
  };
  const std::string gpu_pci =
      "<pci busid=\"0000:01:00.0\" class=\"0x030200\" link_speed=\"8 GT/s\" link_width=\"16\">";

  SUBCASE("NVLink to a POWER CPU that is also the GPU's PCIe parent: one bundle of both") {
    const Graph g = io::import_nccl_topology(
        system("<cpu numaid=\"0\" arch=\"ppc64\">" + gpu_pci +
               "<gpu dev=\"0\" sm=\"70\" rank=\"0\"><nvlink target=\"x\" count=\"3\" "
               "tclass=\"0x068001\"/></gpu></pci></cpu>\n"),
        "p.xml", {});
    const std::size_t e = link(g, "gpu0", "cpu0");
    CHECK(g.capacities()[e] == 4);
    CHECK(g.facts().bandwidths[e] == 3 * 20e9 + 12e9);
    CHECK(g.facts().labels[e] == "NVLink, PCIe 3.0 x16");
    CHECK(g.host_ports()[0] == 4);
  }
  SUBCASE("a NIC right in a CPU hangs from it by NCCL's local link (LOC_BW)") {
    std::vector<std::string> skipped;
    const Graph g = io::import_nccl_topology(
        system("<cpu numaid=\"0\" arch=\"x86_64\" vendor=\"AuthenticAMD\">" + gpu_pci +
               "<gpu rank=\"0\" sm=\"80\"/></pci><nic><net name=\"eth0\" dev=\"0\"/>"
               "<net name=\"eth1\"/></nic></cpu>\n"),
        "n.xml", {.nodes = 2}, &skipped);
    const std::size_t local = link(g, "n0.nic eth0", "n0.cpu0");
    CHECK(g.facts().bandwidths[local] == gpu_bandwidths::kLocal);
    CHECK(g.facts().labels[local] == "local");
    // eth1 has no dev: not a network device; eth0 has no speed: NCCL's 10000 Mbps.
    CHECK(g.capacities()[link(g, "n0.nic eth0", "network")] == 1);
    CHECK(g.facts().bandwidths[link(g, "n0.nic eth0", "network")] == 10000e6 / 8);
    REQUIRE(skipped.size() == 4);  // and version, class
    CHECK(skipped[2] ==
          "n.xml:2:167: <net> speed missing or not positive: taken as 10000 Mbps, as "
          "NCCL does");
    CHECK(skipped[3].starts_with("n.xml:2:193: <net> without dev"));
  }
  SUBCASE("a repeated switch bus id is a router of its own; repeated links to a peer add up") {
    const std::string gpu =
        "<gpu rank=\"R\" gcn=\"gfx90a\"><xgmi target=\"T\" count=\"2\" "
        "tclass=\"0x038000\"/><xgmi target=\"T\" count=\"1\" "
        "tclass=\"0x038000\"/></gpu>";
    const auto at = [&](const char* bus, const char* rank, const char* target) {
      std::string g = gpu;
      g.replace(g.find("R"), 1, rank);
      for (std::size_t i = g.find("T\""); i != std::string::npos; i = g.find("T\""))
        g.replace(i, 1, target);
      return "<pci busid=\"" + std::string(bus) + "\" link_speed=\"16 GT/s\" link_width=\"16\">" +
             g + "</pci>";
    };
    const std::string sw = "<pci busid=\"0000:c5:00.0\" link_speed=\"16 GT/s\" link_width=\"16\">";
    const Graph g = io::import_nccl_topology(
        system("<cpu numaid=\"0\" arch=\"x86_64\" vendor=\"AuthenticAMD\">" + sw +
               at("0000:01:00.0", "0", "0000:02:00.0") + "</pci>" + sw +
               at("0000:02:00.0", "1", "0000:01:00.0") + "</pci></cpu>"),
        "r.xml", {});
    CHECK(router(g, "pci 0000:c5:00.0 (2)") == 4);
    CHECK(g.capacities()[link(g, "gpu0", "gpu1")] == 3);
    CHECK(g.facts().bandwidths[link(g, "gpu0", "gpu1")] == 3 * 36e9);  // gfx90a
  }
  SUBCASE("refused: what the model cannot say") {
    const auto message = [&](const std::string& xml) {
      try {
        io::import_nccl_topology(xml, "m.xml", {});
      } catch (const InputError& e) {
        return std::string(e.what());
      }
      return std::string("accepted");
    };
    CHECK(message(system("<cpu numaid=\"0\">" + gpu_pci +
                         "<gpu rank=\"0\"><nvlink target=\"x\" count=\"1\" "
                         "tclass=\"0x068000\"/></gpu></pci></cpu>")) ==
          "m.xml:2:97: <gpu>: missing attribute sm: an NVLink's bandwidth depends on it (or give "
          "--nvlink-bandwidth)");
    CHECK(message(system("<cpu numaid=\"0\" host_hash=\"0x1\"/><cpu numaid=\"1\" "
                         "host_hash=\"0x2\"/>"))
              .starts_with("m.xml:2:35: <cpu>: host_hash=\"0x2\" differs from line 2's"));
    CHECK(message(system("<cpu numaid=\"0\">" + gpu_pci +
                         "<gpu rank=\"0\"/><gpu rank=\"1\"/></pci></cpu>")) ==
          "m.xml:2:112: <gpu>: a second <gpu> in one <pci> (GPU partitions, MLOPart, are not "
          "modelled)");
    CHECK(message(system("<cpu numaid=\"0\"><gpu rank=\"0\"/></cpu>")) ==
          "m.xml:2:18: <gpu>: unexpected element inside <cpu> (expected <pci>, <nic>)");
    CHECK(message("<topology/>") ==
          "m.xml:1:2: <topology>: the top-level element of an NCCL topology file is <system>");
  }
}

TEST_CASE("nccl topology: a link_speed NCCL does not know is PCIe 3.0, as in NCCL, and said so") {
  std::string xml = fixture("two-nic-4.xml");
  xml.replace(xml.find("link_speed=\"16.0 GT/s PCIe\""), 27, "link_speed=\"\"");
  std::vector<std::string> skipped;
  const Graph g = io::import_nccl_topology(xml, "x.xml", {}, &skipped);
  const std::size_t e = link(g, "pci 0000:20:00.0", "cpu0");
  CHECK(g.facts().bandwidths[e] == 16 * 60 / 80.0 * 1e9);
  CHECK(g.facts().labels[e] == "PCIe 3.0 x16");
  CHECK(std::find(skipped.begin(), skipped.end(),
                  "x.xml:3:6: <pci> link_speed not in NCCL's table: taken as 8 GT/s (PCIe 3.0), "
                  "as NCCL does") != skipped.end());
  xml.replace(xml.find("link_speed=\"\""), 13, "");
  CHECK_THROWS_WITH_AS(io::import_nccl_topology(xml, "x.xml", {}),
                       "x.xml:3:6: <pci>: missing attribute link_speed", InputError);
}

TEST_CASE("nccl topology: Grace's C2C links and the PCI links between switches are links") {
  std::vector<std::string> skipped;
  const Graph g = import("grace-c2c-pcilink.xml", {}, &skipped);
  REQUIRE(g.ranks() == 2);
  const std::size_t c2c = link(g, "gpu0", "cpu0");
  CHECK(g.capacities()[c2c] == 10);
  CHECK(g.facts().bandwidths[c2c] == 10 * 45000e6);
  CHECK(g.facts().labels[c2c] == "C2C");
  // Listed on both switches: one link, NCCL's LOC_BW.
  const std::size_t side = link(g, "pci 0000:01:00.0", "pci 0000:05:00.0");
  CHECK(g.facts().bandwidths[side] == gpu_bandwidths::kLocal);
  CHECK(g.facts().labels[side] == "PCI link");
  CHECK(std::count_if(g.links().begin(), g.links().end(), [](const Graph::NamedLink& l) {
          return l[0].starts_with("pci") && l[1].starts_with("pci");
        }) == 1);
  // A GPU's ports: 10 C2C links and its PCIe link.
  CHECK(g.host_ports()[0] == 11);
  CHECK(std::any_of(skipped.begin(), skipped.end(), [](const std::string& s) {
    return s.find("grace-c2c-pcilink.xml:14:8: <pcilink> to a bus id of no PCI switch") == 0;
  }));
}

TEST_CASE("nccl topology: a node's dump with the job's ranks (4..7) is numbered from 0") {
  std::string text = fixture("two-nic-4.xml");
  for (int r = 3; r >= 0; --r) {
    const std::string from = "rank=\"" + std::to_string(r) + "\"";
    text.replace(text.find(from), from.size(), "rank=\"" + std::to_string(r + 4) + "\"");
  }
  std::vector<std::string> skipped;
  const Graph shifted = io::import_nccl_topology(text, "node1.xml", {}, &skipped);
  CHECK(shifted == import("two-nic-4.xml"));
  CHECK(std::any_of(skipped.begin(), skipped.end(), [](const std::string& s) {
    return s.find("ranks 4 to 7 numbered from 0") != std::string::npos;
  }));
  // A gap is not a node's range: refused.
  text.replace(text.find("rank=\"7\""), 8, "rank=\"9\"");
  CHECK_THROWS_WITH_AS(io::import_nccl_topology(text, "node1.xml", {}),
                       doctest::Contains("rank=\"9\" but the file has 4 gpus (ranks 4 to 7)"),
                       InputError);
}
