#include "core/networks.hpp"

#include <bit>
#include <set>
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace phasecheck {
namespace {

bool is_prime(unsigned q) {
  if (q < 2) return false;
  for (unsigned d = 2; d * d <= q; ++d)
    if (q % d == 0) return false;
  return true;
}

/// The smallest primitive element of F_q (q prime): its powers run through all q - 1 non-zeros.
unsigned primitive_element(unsigned q) {
  for (unsigned xi = 2; xi < q; ++xi) {
    unsigned x = 1, order = 0;
    do {
      x = x * xi % q;
      ++order;
    } while (x != 1);
    if (order == q - 1) return xi;
  }
  return 1;  // q = 2
}

}  // namespace

Graph slim_fly(unsigned q, unsigned concentration) {
  if (q < 5 || !is_prime(q) || q % 4 == 0 || q % 4 == 2)
    throw InputError("slim fly: q must be a prime of the form 4w + 1 or 4w - 1, at least 5 (not " +
                     std::to_string(q) + ")");
  if (2ull * q * q > kMaxRouters)
    throw InputError("slim fly: q = " + std::to_string(q) + " gives " + std::to_string(2 * q * q) +
                     " routers; at most " + std::to_string(kMaxRouters) + " are supported");
  const int delta = q % 4 == 1 ? 1 : -1;
  const unsigned w = (q - static_cast<unsigned>(delta)) / 4, xi = primitive_element(q);
  std::vector<unsigned> power(q);  // xi^e
  power[0] = 1;
  for (unsigned e = 1; e < q; ++e) power[e] = power[e - 1] * xi % q;
  std::set<unsigned> X, Xp;
  if (delta == 1) {
    for (unsigned e = 0; e + 1 < q; e += 2) X.insert(power[e]);   // 1, xi^2, ..., xi^(q-3)
    for (unsigned e = 1; e + 1 < q; e += 2) Xp.insert(power[e]);  // xi, xi^3, ..., xi^(q-2)
  } else {
    for (unsigned e = 0; e + 2 <= 2 * w; e += 2) X.insert(power[e]);  // 1 .. xi^(2w-2)
    for (unsigned e = 2 * w - 1; e <= 4 * w - 3; e += 2)
      X.insert(power[e]);                                                  // xi^(2w-1) .. xi^(4w-3)
    for (unsigned e = 1; e <= 2 * w - 1; e += 2) Xp.insert(power[e]);      // xi .. xi^(2w-1)
    for (unsigned e = 2 * w; e <= 4 * w - 2; e += 2) Xp.insert(power[e]);  // xi^(2w) .. xi^(4w-2)
  }
  const auto name = [](unsigned part, unsigned a, unsigned b) {
    return "r" + std::to_string(part) + "." + std::to_string(a) + "." + std::to_string(b);
  };
  std::vector<std::string> routers;
  for (unsigned part = 0; part < 2; ++part)
    for (unsigned a = 0; a < q; ++a)
      for (unsigned b = 0; b < q; ++b) routers.push_back(name(part, a, b));
  std::vector<Graph::NamedLink> links;
  for (unsigned x = 0; x < q; ++x)
    for (unsigned y = 0; y < q; ++y)
      for (unsigned y2 = y + 1; y2 < q; ++y2)
        if (X.count((y + q - y2) % q)) links.push_back({name(0, x, y), name(0, x, y2)});
  for (unsigned m = 0; m < q; ++m)
    for (unsigned c = 0; c < q; ++c)
      for (unsigned c2 = c + 1; c2 < q; ++c2)
        if (Xp.count((c + q - c2) % q)) links.push_back({name(1, m, c), name(1, m, c2)});
  for (unsigned x = 0; x < q; ++x)
    for (unsigned m = 0; m < q; ++m)
      for (unsigned c = 0; c < q; ++c)
        links.push_back({name(0, x, (m * x + c) % q), name(1, m, c)});
  const unsigned degree = (3 * q - static_cast<unsigned>(delta)) / 2;
  const unsigned p = concentration ? concentration : (degree + 1) / 2;
  return Graph(routers, std::move(links), std::vector<Rank>(routers.size(), p));
}

Graph dragonfly(unsigned a, unsigned h, unsigned p) {
  if (a < 1 || h < 1 || p < 1) throw InputError("dragonfly: a, h and p must be at least 1");
  // (a h + 1) a routers: computed in 64 bits, where a, h < 2^32 cannot overflow it.
  const std::uint64_t groups = std::uint64_t{a} * h + 1;
  if (groups > kMaxRouters || groups * a > kMaxRouters)
    throw InputError("dragonfly: a = " + std::to_string(a) + ", h = " + std::to_string(h) +
                     " gives (a h + 1) a = " +
                     (groups > kMaxRouters ? "more than " + std::to_string(kMaxRouters)
                                           : std::to_string(groups * a)) +
                     " routers; at most " + std::to_string(kMaxRouters) + " are supported");
  const auto g = static_cast<unsigned>(groups);
  const auto name = [](unsigned group, unsigned r) {
    return "g" + std::to_string(group) + ".r" + std::to_string(r);
  };
  std::vector<std::string> routers;
  for (unsigned i = 0; i < g; ++i)
    for (unsigned r = 0; r < a; ++r) routers.push_back(name(i, r));
  std::vector<Graph::NamedLink> links;
  for (unsigned i = 0; i < g; ++i)
    for (unsigned r = 0; r < a; ++r)
      for (unsigned s = r + 1; s < a; ++s) links.push_back({name(i, r), name(i, s)});
  for (unsigned i = 0; i < g; ++i)
    for (unsigned j = i + 1; j < g; ++j) {
      const unsigned k_i = j - 1, k_j = i;  // the link's index in group i and in group j
      links.push_back({name(i, k_i / h), name(j, k_j / h)});
    }
  return Graph(routers, std::move(links), std::vector<Rank>(routers.size(), p));
}

namespace {

void check_gpus(const char* builder, unsigned gpus, unsigned least) {
  if (gpus < least || gpus > kMaxGpusPerNode)
    throw InputError(std::string(builder) + ": --gpus " + std::to_string(gpus) + "; expected " +
                     std::to_string(least) + " to " + std::to_string(kMaxGpusPerNode));
}

std::string gpu_name(unsigned i) { return "gpu" + std::to_string(i); }

}  // namespace

Graph xgmi(unsigned gpus) {
  check_gpus("xgmi", gpus, 2);
  std::vector<std::string> routers;
  for (unsigned i = 0; i < gpus; ++i) routers.push_back(gpu_name(i));
  std::vector<Graph::NamedLink> links;
  for (unsigned i = 0; i < gpus; ++i)
    for (unsigned j = i + 1; j < gpus; ++j) links.push_back({gpu_name(i), gpu_name(j)});
  return Graph(routers, std::move(links), std::vector<Rank>(gpus, 1), {},
               std::vector<std::uint32_t>(gpus, gpus - 1));
}

Graph nvswitch(unsigned gpus) {
  check_gpus("nvswitch", gpus, 2);
  return Graph({"nvswitch"}, {}, {gpus});
}

Graph dgx1() {
  // NVLinks between GPU i and GPU j (msccl-tools, msccl/topologies/nvidia.py, dgx1()): two
  // sockets (0 1 2 3) and (4 5 6 7); 0 1 3 2 and 4 5 7 6 are the doubled chains, 0-4 and 2-6 the
  // doubled links between the sockets.
  // clang-format off
  static constexpr unsigned kLinks[8][8] = {
      // 0  1  2  3  4  5  6  7
      {0, 2, 1, 1, 2, 0, 0, 0},  // 0
      {2, 0, 1, 2, 0, 1, 0, 0},  // 1
      {1, 1, 0, 2, 0, 0, 2, 0},  // 2
      {1, 2, 2, 0, 0, 0, 0, 1},  // 3
      {2, 0, 0, 0, 0, 2, 1, 1},  // 4
      {0, 1, 0, 0, 2, 0, 1, 2},  // 5
      {0, 0, 2, 0, 1, 1, 0, 2},  // 6
      {0, 0, 0, 1, 1, 2, 2, 0}};  // 7
  // clang-format on
  std::vector<std::string> routers;
  for (unsigned i = 0; i < 8; ++i) routers.push_back(gpu_name(i));
  std::vector<Graph::NamedLink> links;
  std::vector<std::uint32_t> capacities;
  for (unsigned i = 0; i < 8; ++i)
    for (unsigned j = i + 1; j < 8; ++j)
      if (kLinks[i][j] > 0) {
        links.push_back({gpu_name(i), gpu_name(j)});
        capacities.push_back(kLinks[i][j]);
      }
  return Graph(routers, std::move(links), std::vector<Rank>(8, 1), std::move(capacities),
               std::vector<std::uint32_t>(8, 6));
}

Graph gpu_cluster(unsigned nodes, unsigned gpus, unsigned nics) {
  check_gpus("gpu-cluster", gpus, 1);
  if (nodes < 1 || std::uint64_t{nodes} * gpus > kMaxRanks || std::uint64_t{nodes} * gpus < 2)
    throw InputError("gpu-cluster: " + std::to_string(nodes) + " nodes of " + std::to_string(gpus) +
                     " gpus; expected 2 to " + std::to_string(kMaxRanks) + " gpus in all");
  if (nodes + 1 > kMaxRouters)
    throw InputError("gpu-cluster: --nodes " + std::to_string(nodes) + "; at most " +
                     std::to_string(kMaxRouters - 1) + " (a router per node and the network's)");
  if (nics < 1 || nics > kMaxLinkCapacity)
    throw InputError("gpu-cluster: --nics " + std::to_string(nics) + "; expected 1 to " +
                     std::to_string(kMaxLinkCapacity));
  std::vector<std::string> routers;
  for (unsigned n = 0; n < nodes; ++n) routers.push_back("node" + std::to_string(n));
  routers.push_back("network");
  std::vector<Graph::NamedLink> links;
  for (unsigned n = 0; n < nodes; ++n) links.push_back({routers[n], "network"});
  std::vector<Rank> hosts(nodes, gpus);
  hosts.push_back(0);
  return Graph(routers, std::move(links), std::move(hosts),
               std::vector<std::uint32_t>(nodes, nics));
}

namespace {

/// "ring: --ranks 0; expected 1 to 8192", the message of every out-of-range option.
void check_range(std::string_view kind, std::string_view option, std::uint64_t value,
                 std::uint64_t least, std::uint64_t most) {
  if (value < least || value > most)
    throw InputError(std::string(kind) + ": " + std::string(option) + " " + std::to_string(value) +
                     "; expected " + std::to_string(least) + " to " + std::to_string(most));
}

/// Element i (from 0) of a list option is 0: "tree: --fanout element 2 is 0; ...".
void check_no_zero(std::string_view kind, std::string_view option,
                   std::span<const std::uint64_t> values, std::string_view why) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] == 0)
      throw InputError(std::string(kind) + ": " + std::string(option) + " element " +
                       std::to_string(i + 1) + " is 0; " + std::string(why));
}

}  // namespace

Tree tree_network(std::span<const std::uint64_t> fanout) {
  if (fanout.empty()) throw InputError("tree: --fanout needs at least one number");
  if (fanout.size() > kMaxTreeDepth)
    throw InputError("tree: --fanout has " + std::to_string(fanout.size()) + " levels; at most " +
                     std::to_string(kMaxTreeDepth) + " are supported");
  check_no_zero("tree", "--fanout", fanout, "every switch has at least 1 node below it");
  // Nodes per level, the root's level first. Every count kept is at most kMaxRanks (2^13), so a
  // product with a fanout up to 2^50 and the sum of the switches (at most kMaxTreeDepth x
  // kMaxRanks) cannot overflow.
  std::vector<std::uint64_t> level{1};
  std::uint64_t switches = 0;
  for (const std::uint64_t f : fanout) {
    switches += level.back();
    const bool huge = f > (std::uint64_t{1} << 50);
    if (huge || level.back() * f > kMaxRanks)
      throw InputError(
          "tree: --fanout gives " +
          (huge ? "more than " + std::to_string(kMaxRanks) : std::to_string(level.back() * f)) +
          " machines; at most " + std::to_string(kMaxRanks) + " are supported");
    level.push_back(level.back() * f);
  }
  if (switches > kMaxSwitches)
    throw InputError("tree: --fanout gives " + std::to_string(switches) + " switches; at most " +
                     std::to_string(kMaxSwitches) + " are supported");
  const auto switch_name = [](std::size_t l, std::uint64_t i) {
    return "s" + std::to_string(l) + "." + std::to_string(i);
  };
  const std::size_t L = fanout.size();
  std::vector<std::string> machines, switch_names;
  std::vector<Tree::NamedLink> links;
  for (std::size_t l = 0; l < L; ++l)
    for (std::uint64_t i = 0; i < level[l]; ++i) {
      switch_names.push_back(switch_name(l, i));
      if (l > 0) links.push_back({switch_names.back(), switch_name(l - 1, i / fanout[l - 1])});
    }
  for (std::uint64_t i = 0; i < level[L]; ++i) {
    machines.push_back("n" + std::to_string(i));
    links.push_back({machines.back(), switch_name(L - 1, i / fanout[L - 1])});
  }
  return Tree(std::move(machines), std::move(switch_names), std::move(links));
}

Graph fat_tree_network(std::uint64_t k) {
  if (k < 2 || k % 2 != 0)
    throw InputError("fat-tree: --k " + std::to_string(k) +
                     "; expected an even number, at least 2");
  // k^3/4 hosts and 5k^2/4 routers; beyond k = 4096 (2^34 hosts) the cube could overflow.
  const bool huge = k > 4096;
  const std::uint64_t hosts = huge ? 0 : k * k * k / 4, routers = huge ? 0 : 5 * k * k / 4;
  if (huge || hosts > kMaxRanks)
    throw InputError("fat-tree: --k " + std::to_string(k) + " gives " +
                     (huge ? "more than " + std::to_string(kMaxRanks) : std::to_string(hosts)) +
                     " hosts (k^3/4); at most " + std::to_string(kMaxRanks) + " are supported");
  if (routers > kMaxRouters)
    throw InputError("fat-tree: --k " + std::to_string(k) + " gives " + std::to_string(routers) +
                     " switches (5k^2/4); at most " + std::to_string(kMaxRouters) +
                     " are supported");
  const auto half = static_cast<unsigned>(k / 2), pods = static_cast<unsigned>(k);
  const auto pod_switch = [](unsigned pod, const char* role, unsigned i) {
    return "pod" + std::to_string(pod) + "." + role + std::to_string(i);
  };
  const auto core = [](unsigned j, unsigned i) {
    return "core" + std::to_string(j) + "." + std::to_string(i);
  };
  std::vector<std::string> names;
  std::vector<Rank> hosts_per_router;
  std::vector<Graph::NamedLink> links;
  for (unsigned pod = 0; pod < pods; ++pod) {
    for (unsigned i = 0; i < half; ++i) {
      names.push_back(pod_switch(pod, "edge", i));
      hosts_per_router.push_back(half);
    }
    for (unsigned j = 0; j < half; ++j) {
      names.push_back(pod_switch(pod, "agg", j));
      hosts_per_router.push_back(0);
    }
    for (unsigned i = 0; i < half; ++i)
      for (unsigned j = 0; j < half; ++j)
        links.push_back({pod_switch(pod, "edge", i), pod_switch(pod, "agg", j)});
  }
  for (unsigned j = 0; j < half; ++j)
    for (unsigned i = 0; i < half; ++i) {
      names.push_back(core(j, i));
      hosts_per_router.push_back(0);
    }
  for (unsigned j = 0; j < half; ++j)
    for (unsigned i = 0; i < half; ++i)
      for (unsigned pod = 0; pod < pods; ++pod)
        links.push_back({pod_switch(pod, "agg", j), core(j, i)});
  return Graph(std::move(names), std::move(links), std::move(hosts_per_router));
}

Cluster cluster_network(std::span<const std::uint64_t> sizes) {
  if (sizes.empty()) throw InputError("cluster: --sizes needs at least one node size");
  check_no_zero("cluster", "--sizes", sizes, "a node has at least 1 rank");
  std::vector<Rank> nodes;
  std::uint64_t total = 0;
  for (const std::uint64_t s : sizes) {
    if (s > kMaxRanks || total + s > kMaxRanks)
      throw InputError("cluster: --sizes adds up to more than " + std::to_string(kMaxRanks) +
                       " ranks");
    total += s;
    nodes.push_back(static_cast<Rank>(s));
  }
  return Cluster(std::move(nodes));
}

FullyConnected fully_connected_network(std::uint64_t ranks, std::uint64_t ports) {
  check_range("fully-connected", "--ranks", ranks, 1, kMaxRanks);
  check_range("fully-connected", "--ports", ports, 1, kMaxRanks);
  return FullyConnected(static_cast<Rank>(ranks), static_cast<Rank>(ports));
}

Hypercube hypercube_network(std::uint64_t dimension) {
  check_range("hypercube", "--dimension", dimension, 0,
              static_cast<std::uint64_t>(std::bit_width(kMaxRanks) - 1));
  return Hypercube(static_cast<unsigned>(dimension));
}

Mesh mesh_network(std::uint64_t rows, std::uint64_t cols, bool wraparound) {
  check_range("mesh", "--rows", rows, 1, kMaxRanks);
  check_range("mesh", "--cols", cols, 1, kMaxRanks);
  if (rows * cols > kMaxRanks)
    throw InputError("mesh: --rows " + std::to_string(rows) + " --cols " + std::to_string(cols) +
                     " gives " + std::to_string(rows * cols) + " ranks; at most " +
                     std::to_string(kMaxRanks) + " are supported");
  return Mesh(static_cast<std::uint32_t>(rows), static_cast<std::uint32_t>(cols), wraparound);
}

Ring ring_network(std::uint64_t ranks) {
  check_range("ring", "--ranks", ranks, 1, kMaxRanks);
  return Ring(static_cast<Rank>(ranks));
}

}  // namespace phasecheck
