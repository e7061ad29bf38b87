#include "core/networks.hpp"

#include <set>
#include <string>

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

}  // namespace phasecheck
