// fuzz-nccl-topology: arbitrary bytes into the NCCL/RCCL topology importer (io/nccl_topology.hpp).
// A first byte other than '<' chooses the options (--nodes 1 to 4, bandwidth overrides) and is not
// part of the text, so that the fixtures (tests/topologies/nccl) seed it as they are. An
// InputError is the expected answer to bad input; a crash, a sanitizer report, a hang or any other
// exception is a finding. What it accepts must be a machine the topology writer writes and reads
// back unchanged, with one host per gpu router, every skipped line naming the file, and every
// bandwidth within the limits.

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "finding.hpp"
#include "io/json.hpp"
#include "io/nccl_topology.hpp"

using namespace phasecheck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  io::NcclImport options;
  const bool chosen = data[0] != '<';
  if (chosen) {
    options.nodes = 1 + data[0] % 4;
    if (data[0] & 0x10) options.nvlink_bandwidth = 1e9;
    if (data[0] & 0x20) options.pcie_bandwidth = 2e9;
    if (data[0] & 0x40) options.nic_bandwidth = 3e9;
    ++data;
    --size;
  }
  std::vector<std::string> skipped;
  try {
    const Graph g =
        io::import_nccl_topology(fuzz::as_text(data, size), "fuzz.xml", options, &skipped);
    for (const std::string& line : skipped)
      if (!line.starts_with("fuzz.xml:")) fuzz::finding("a skipped line that names no place", line);
    for (std::uint32_t r = 0; r < g.router_count(); ++r)
      if (g.hosts()[r] > 1) fuzz::finding("a router with more than one gpu", g.routers()[r]);
    for (const double b : g.facts().bandwidths)
      if (!(b >= 0 && b <= kMaxBandwidth)) fuzz::finding("a bandwidth out of range");
    const std::string written = io::topology_to_json(g);
    if (!(io::parse_topology(written, "written.json") == Topology(g)))
      fuzz::finding("the machine read back from what the writer wrote differs", written);
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    fuzz::finding(std::string("import_nccl_topology threw something other than InputError: ") +
                  e.what());
  }
  return 0;
}
