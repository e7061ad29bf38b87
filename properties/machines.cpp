#include "properties/machines.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace phasecheck::properties {

Topology tree_machine(std::span<const std::uint8_t> switch_parent,
                      std::span<const std::uint8_t> machine_switch) {
  const std::size_t switches = switch_parent.size() + 1;
  const std::size_t machines = std::max<std::size_t>(machine_switch.size(), 1);
  std::vector<std::string> m, s;
  std::vector<Tree::NamedLink> links;
  for (std::size_t j = 0; j < switches; ++j) s.push_back("s" + std::to_string(j));
  for (std::size_t j = 1; j < switches; ++j) links.push_back({s[switch_parent[j - 1] % j], s[j]});
  for (std::size_t i = 0; i < machines; ++i) {
    m.push_back("n" + std::to_string(i));
    const std::size_t below = i < machine_switch.size() ? machine_switch[i] % switches : 0;
    links.push_back({m.back(), s[below]});
  }
  return Topology(Tree(std::move(m), std::move(s), std::move(links)));
}

Topology cluster_machine(std::vector<Rank> sizes) {
  if (sizes.empty()) sizes.push_back(1);
  for (Rank& size : sizes) size = std::max<Rank>(size, 1);
  return Topology(Cluster(std::move(sizes)));
}

Topology organ_pipe_cluster(Rank m) {
  std::vector<Rank> sizes;
  for (Rank i = 1; i <= m; ++i) sizes.push_back(i);
  for (Rank i = m; i-- > 1;) sizes.push_back(i);
  return cluster_machine(std::move(sizes));
}

Topology big_among_small_cluster(Rank big, Rank small) {
  std::vector<Rank> sizes{big};
  sizes.insert(sizes.end(), small, 1);
  return cluster_machine(std::move(sizes));
}

Topology graph_machine(std::span<const std::uint8_t> tree_raw,
                       std::span<const std::pair<std::uint8_t, std::uint8_t>> extra,
                       std::span<const std::uint8_t> caps) {
  const std::size_t n = std::clamp<std::size_t>(tree_raw.size(), 1, 12);
  const auto raw = [&](std::size_t j) -> std::size_t { return j < tree_raw.size() ? tree_raw[j] : 0; };
  std::vector<std::string> routers;
  std::vector<Rank> hosts;
  for (std::size_t j = 0; j < n; ++j) {
    routers.push_back("r" + std::to_string(j));
    hosts.push_back(static_cast<Rank>(j == 0 ? 1 + raw(j) % 3 : raw(j) % 4));
  }
  std::set<std::pair<std::size_t, std::size_t>> links;
  for (std::size_t j = 1; j < n; ++j) links.insert({raw(j) % j, j});
  for (const auto& [a, b] : extra)
    if (a % n != b % n) links.insert(std::minmax<std::size_t>(a % n, b % n));
  std::vector<Graph::NamedLink> named;
  for (const auto& [a, b] : links) named.push_back({routers[a], routers[b]});
  const auto capacity = [&](std::size_t i) -> std::uint32_t {
    return i < caps.size() ? 1 + caps[i] % 3 : 1;
  };
  std::vector<std::uint32_t> multiplicity, ports;
  for (std::size_t e = 0; e < named.size(); ++e) multiplicity.push_back(capacity(e));
  for (std::size_t j = 0; j < n; ++j) ports.push_back(capacity(named.size() + j));
  return Topology(Graph(std::move(routers), std::move(named), std::move(hosts),
                        std::move(multiplicity), std::move(ports)));
}

}  // namespace phasecheck::properties
