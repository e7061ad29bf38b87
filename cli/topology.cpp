// `phasecheck topology KIND`: a built machine (core/network_options.hpp, core/networks.hpp)
// written as a topology file (io/topology_json.hpp); `phasecheck topology import nccl FILE`: the
// machine NCCL's or RCCL's topology file describes (io/nccl_topology.hpp).

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "cli/run_options.hpp"
#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/files.hpp"
#include "core/network_options.hpp"
#include "core/networks.hpp"
#include "io/json.hpp"
#include "io/nccl_topology.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string kind;  ///< one of core/network_options.hpp's network_kinds(), or "import"
  std::vector<std::string> import;  ///< import: the format ("nccl") and the file
  NetworkOptions network;           ///< each set only when given
  /// import: the bandwidth options as given ("25GBps"), with their option names.
  std::vector<std::pair<const char*, std::string>> bandwidths{{"--nvlink-bandwidth", ""},
                                                              {"--xgmi-bandwidth", ""},
                                                              {"--pcie-bandwidth", ""},
                                                              {"--cpu-bandwidth", ""},
                                                              {"--nic-bandwidth", ""}};
  bool verbose = false;
  std::string output;
};

void add_options(CLI::App& app, Options& options) {
  std::string kinds_help;
  std::vector<std::string> kinds;
  for (const NetworkKind& kind : network_kinds()) {
    kinds_help += "\n  " + std::string(kind.name) + ": " + std::string(kind.summary);
    kinds.emplace_back(kind.name);
  }
  kinds.emplace_back("import");
  app.add_option("kind", options.kind,
                 "The machine:" + kinds_help +
                     "\n  import nccl FILE: the machine of an NCCL or RCCL topology file "
                     "(NCCL_TOPO_FILE)")
      ->required()
      ->check(one_of(kinds));
  app.add_option("format-and-file", options.import, "import: nccl and the file (\"-\": stdin)");
  NetworkOptions& network = options.network;
  app.add_option("--fanout", network.fanout,
                 "tree: nodes below each switch, level by level from the root, e.g. 8,4");
  app.add_option("--k", network.k, "fat-tree: the switches' port count k (even)")->check(natural());
  app.add_option("--sizes", network.sizes, "cluster: the nodes' sizes, e.g. 8,8,4,1");
  app.add_option("--ranks", network.ranks, "fully-connected, ring: the ranks")->check(natural());
  app.add_option("--ports", network.ports, "fully-connected: ports per rank")->check(natural());
  app.add_option("--dimension", network.dimension, "hypercube: the dimension d (2^d ranks)")
      ->check(natural());
  app.add_option("--rows", network.rows, "mesh: rows")->check(natural());
  app.add_option("--cols", network.cols, "mesh: columns")->check(natural());
  app.add_flag("--wraparound", network.wraparound, "mesh: a torus");
  app.add_option("--q", network.q, "slimfly: the prime q (2q^2 routers, default 5)")
      ->check(natural());
  app.add_option("--concentration", network.concentration,
                 "slimfly: hosts per router (default ceil(degree/2))")
      ->check(natural());
  app.add_option("--a", network.a, "dragonfly: routers per group (default 4)")->check(natural());
  app.add_option("--h", network.h, "dragonfly: global links per router (default 2)")
      ->check(natural());
  app.add_option("--p", network.p, "dragonfly: hosts per router (default 2)")->check(natural());
  app.add_option("--gpus", network.gpus,
                 "xgmi, nvswitch: the gpus (default 8); gpu-cluster: gpus per node")
      ->check(natural());
  app.add_option("--nodes", network.nodes,
                 "gpu-cluster: nodes (default 2); import: copies of the machine joined by a "
                 "network between their NICs (default 1)")
      ->check(natural());
  app.add_option("--nics", network.nics,
                 "gpu-cluster: each node's links to the network switch (default 1)")
      ->check(natural());
  const char* what[] = {"one NVLink", "one xGMI link", "one PCIe link, whatever its width",
                        "the link between two CPUs", "one network port (<net>)"};
  for (std::size_t i = 0; i < options.bandwidths.size(); ++i)
    app.add_option(options.bandwidths[i].first, options.bandwidths[i].second,
                   std::string("import: the bandwidth of ") + what[i] +
                       ", each direction, instead of the table's (e.g. 25GBps, 200Gbps)");
  app.add_flag("--verbose", options.verbose, "import: list what the file says that is skipped");
  app.add_option("-o,--output", options.output, "Output file (default: standard output)");
}

/// `topology import nccl FILE`: the options of import only, its file read within the input
/// limits.
Topology import(const Options& options, const Streams& streams) {
  if (options.import.size() != 2 || options.import[0] != "nccl")
    throw InputError("topology import: expected `topology import nccl FILE`");
  if (options.network != NetworkOptions{.nodes = options.network.nodes})
    throw InputError("topology import: takes --nodes, the bandwidth options and --verbose only");
  io::NcclImport import;
  const auto nodes = options.network.nodes.value_or(1);
  if (nodes > kMaxRouters)
    throw InputError("topology import: --nodes " + std::to_string(nodes) + "; at most " +
                     std::to_string(kMaxRouters));
  import.nodes = static_cast<std::uint32_t>(nodes);
  double* targets[] = {&import.nvlink_bandwidth, &import.xgmi_bandwidth, &import.pcie_bandwidth,
                       &import.cpu_bandwidth, &import.nic_bandwidth};
  for (std::size_t i = 0; i < options.bandwidths.size(); ++i)
    if (!options.bandwidths[i].second.empty())
      *targets[i] = bandwidth_of(options.bandwidths[i].second, options.bandwidths[i].first);
  const std::string& path = options.import[1];
  std::vector<std::string> skipped;
  Topology t = io::import_nccl_topology(read_input(path), input_name(path), import, &skipped);
  if (options.verbose)
    for (const std::string& line : skipped)
      streams.err << text_escape(line) << "\n";  // names from the file
  return t;
}

int run(const Options& options, const Streams& streams) {
  if (options.kind != "import") {
    if (!options.import.empty())
      throw InputError("topology " + options.kind + ": unexpected argument '" + options.import[0] +
                       "'");
    for (const auto& [name, value] : options.bandwidths)
      if (!value.empty()) throw InputError(std::string(name) + " applies to topology import");
    if (options.verbose) throw InputError("--verbose applies to topology import");
  }
  const Topology t = options.kind == "import" ? import(options, streams)
                                              : build_network(options.kind, options.network);
  const std::vector<std::string> inputs = options.kind == "import" && options.import.size() == 2
                                              ? std::vector{options.import[1]}
                                              : std::vector<std::string>{};
  emit(io::topology_to_pretty_json(t), options.output, streams.out, inputs);
  return 0;
}

constexpr CommandDefinition<Options> definition{
    .name = "topology",
    .summary =
        "Write a built machine as a topology file: a model (tree, fat-tree, cluster, "
        "fully-connected, hypercube, mesh, ring), a low-diameter network (slimfly, "
        "dragonfly), a GPU machine (xgmi, nvswitch, dgx1, gpu-cluster) or one an NCCL or "
        "RCCL topology file describes (import nccl FILE); docs/models.md",
    .formats = {},
    .add_options = add_options,
    .run = run,
};

}  // namespace

extern const Command topology_command;
const Command topology_command = definition;

}  // namespace phasecheck::cli
