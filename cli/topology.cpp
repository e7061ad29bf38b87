// `phasecheck topology KIND`: a built machine (core/network_options.hpp, core/networks.hpp)
// written as a topology file (io/topology_json.hpp).

#include "cli/command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/network_options.hpp"
#include "core/networks.hpp"
#include "io/json.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string kind;        ///< one of core/network_options.hpp's network_kinds()
  NetworkOptions network;  ///< each set only when given
  std::string output;
};

void add_options(CLI::App& app, Options& options) {
  std::string kinds_help;
  std::vector<std::string> kinds;
  for (const NetworkKind& kind : network_kinds()) {
    kinds_help += "\n  " + std::string(kind.name) + ": " + std::string(kind.summary);
    kinds.emplace_back(kind.name);
  }
  app.add_option("kind", options.kind, "The machine:" + kinds_help)
      ->required()
      ->check(one_of(kinds));
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
  app.add_option("--nodes", network.nodes, "gpu-cluster: nodes (default 2)")->check(natural());
  app.add_option("--nics", network.nics,
                 "gpu-cluster: each node's links to the network switch (default 1)")
      ->check(natural());
  app.add_option("-o,--output", options.output, "Output file (default: standard output)");
}

int run(const Options& options, const Streams& streams) {
  emit(io::topology_to_pretty_json(build_network(options.kind, options.network)), options.output,
       streams.out, {});
  return 0;
}

constexpr CommandDefinition<Options> definition{
    .name = "topology",
    .summary =
        "Write a built machine as a topology file: a model (tree, fat-tree, cluster, "
        "fully-connected, hypercube, mesh, ring), a low-diameter network (slimfly, "
        "dragonfly) or a GPU machine (xgmi, nvswitch, dgx1, gpu-cluster); docs/models.md",
    .formats = {},
    .add_options = add_options,
    .run = run,
};

}  // namespace

extern const Command topology_command;
const Command topology_command = definition;

}  // namespace phasecheck::cli
