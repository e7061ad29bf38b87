#include "core/network_options.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/error.hpp"
#include "core/networks.hpp"
#include "core/suggest.hpp"

namespace phasecheck {
namespace {

/// The options given, by their command-line names, in the order of NetworkOptions.
std::vector<std::string_view> given(const NetworkOptions& o) {
  std::vector<std::string_view> names;
  const auto add = [&](std::string_view name, bool set) {
    if (set) names.push_back(name);
  };
  add("--q", o.q.has_value());
  add("--concentration", o.concentration.has_value());
  add("--a", o.a.has_value());
  add("--h", o.h.has_value());
  add("--p", o.p.has_value());
  add("--gpus", o.gpus.has_value());
  add("--nodes", o.nodes.has_value());
  add("--nics", o.nics.has_value());
  add("--fanout", o.fanout.has_value());
  add("--k", o.k.has_value());
  add("--sizes", o.sizes.has_value());
  add("--ranks", o.ranks.has_value());
  add("--ports", o.ports.has_value());
  add("--dimension", o.dimension.has_value());
  add("--rows", o.rows.has_value());
  add("--cols", o.cols.has_value());
  add("--wraparound", o.wraparound);
  return names;
}

/// The value of an option of a graph builder that takes `unsigned`, or `fallback` when not given.
/// Every builder refuses far smaller values; this only keeps them from being cut to 32 bits.
unsigned narrow(std::string_view kind, std::string_view option,
                const std::optional<std::uint64_t>& value, unsigned fallback) {
  if (!value) return fallback;
  if (*value > std::numeric_limits<unsigned>::max())
    throw InputError(std::string(kind) + ": " + std::string(option) + " " + std::to_string(*value) +
                     " is too large");
  return static_cast<unsigned>(*value);
}

// The builders below are called only with their required options given (build_network checks).
const std::vector<NetworkKind> kKinds = {
    {"tree",
     "a tree of switches, --fanout per level from the root down",
     {"--fanout"},
     {},
     [](const NetworkOptions& o) {
       return Topology(tree_network(parse_count_list(*o.fanout, "--fanout")));
     }},
    {"fat-tree",
     "the k-ary fat tree of Al-Fares et al. (a graph)",
     {"--k"},
     {},
     [](const NetworkOptions& o) { return Topology(fat_tree_network(*o.k)); }},
    {"cluster",
     "SMP nodes of the given sizes",
     {"--sizes"},
     {},
     [](const NetworkOptions& o) {
       return Topology(cluster_network(parse_count_list(*o.sizes, "--sizes")));
     }},
    {"fully-connected",
     "P ranks with K ports each",
     {"--ranks", "--ports"},
     {},
     [](const NetworkOptions& o) { return Topology(fully_connected_network(*o.ranks, *o.ports)); }},
    {"hypercube",
     "2^D ranks, e-cube routing",
     {"--dimension"},
     {},
     [](const NetworkOptions& o) { return Topology(hypercube_network(*o.dimension)); }},
    {"mesh",
     "R x C ranks, XY routing; a torus with --wraparound",
     {"--rows", "--cols"},
     {"--wraparound"},
     [](const NetworkOptions& o) {
       return Topology(mesh_network(*o.rows, *o.cols, o.wraparound));
     }},
    {"ring",
     "P ranks on a bidirectional ring",
     {"--ranks"},
     {},
     [](const NetworkOptions& o) { return Topology(ring_network(*o.ranks)); }},
    {"slimfly",
     "Slim Fly by the MMS construction",
     {},
     {"--q", "--concentration"},
     [](const NetworkOptions& o) {
       return Topology(slim_fly(narrow("slimfly", "--q", o.q, 5),
                                narrow("slimfly", "--concentration", o.concentration, 0)));
     }},
    {"dragonfly",
     "the canonical Dragonfly",
     {},
     {"--a", "--h", "--p"},
     [](const NetworkOptions& o) {
       return Topology(dragonfly(narrow("dragonfly", "--a", o.a, 4),
                                 narrow("dragonfly", "--h", o.h, 2),
                                 narrow("dragonfly", "--p", o.p, 2)));
     }},
    {"xgmi",
     "GPUs fully connected by xGMI links",
     {},
     {"--gpus"},
     [](const NetworkOptions& o) { return Topology(xgmi(narrow("xgmi", "--gpus", o.gpus, 8))); }},
    {"nvswitch",
     "GPUs behind one NVSwitch",
     {},
     {"--gpus"},
     [](const NetworkOptions& o) {
       return Topology(nvswitch(narrow("nvswitch", "--gpus", o.gpus, 8)));
     }},
    {"dgx1",
     "the 8 V100 GPUs of a DGX-1 (hybrid cube-mesh)",
     {},
     {},
     [](const NetworkOptions&) { return Topology(dgx1()); }},
    {"gpu-cluster",
     "nodes of GPUs behind NICs on one network switch",
     {},
     {"--nodes", "--gpus", "--nics"},
     [](const NetworkOptions& o) {
       return Topology(gpu_cluster(narrow("gpu-cluster", "--nodes", o.nodes, 2),
                                   narrow("gpu-cluster", "--gpus", o.gpus, 8),
                                   narrow("gpu-cluster", "--nics", o.nics, 1)));
     }},
};

std::string join(const std::vector<std::string_view>& names) {
  std::string out;
  for (const std::string_view n : names) out += (out.empty() ? "" : " ") + std::string(n);
  return out;
}

}  // namespace

const std::vector<NetworkKind>& network_kinds() { return kKinds; }

Topology build_network(std::string_view kind, const NetworkOptions& options) {
  const auto it = std::find_if(kKinds.begin(), kKinds.end(),
                               [&](const NetworkKind& k) { return k.name == kind; });
  if (it == kKinds.end()) {
    std::vector<std::string> known;
    for (const NetworkKind& k : kKinds) known.emplace_back(k.name);
    throw InputError(unknown_name("network", kind, known));
  }
  const std::string name(it->name);
  for (const std::string_view option : given(options))
    if (std::find(it->required.begin(), it->required.end(), option) == it->required.end() &&
        std::find(it->optional.begin(), it->optional.end(), option) == it->optional.end()) {
      std::vector<std::string_view> takes = it->required;
      takes.insert(takes.end(), it->optional.begin(), it->optional.end());
      throw InputError(name + ": " + std::string(option) + " does not apply (" + name +
                       (takes.empty() ? " takes no options)" : " takes " + join(takes) + ")"));
    }
  const std::vector<std::string_view> have = given(options);
  for (const std::string_view option : it->required)
    if (std::find(have.begin(), have.end(), option) == have.end())
      throw InputError(name + ": " + std::string(option) + " is required (" + name + " takes " +
                       join(it->required) +
                       (it->optional.empty() ? "" : ", optionally " + join(it->optional)) + ")");
  return it->build(options);
}

std::vector<std::uint64_t> parse_count_list(std::string_view text, std::string_view option) {
  std::vector<std::uint64_t> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    std::string_view item = text.substr(start, comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), value);
    const std::string where = std::string(option) + ": element " +
                              std::to_string(values.size() + 1) + " '" + std::string(item) + "'";
    if (item.empty() || end != item.data() + item.size() ||
        (error != std::errc() && error != std::errc::result_out_of_range))
      throw InputError(where + " is not a number");
    if (error == std::errc::result_out_of_range) throw InputError(where + " is too large");
    values.push_back(value);
    start = comma + 1;
  }
  return values;
}

}  // namespace phasecheck
