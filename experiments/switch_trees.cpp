#include "experiments/switch_trees.hpp"

#include <algorithm>
#include <map>

namespace phasecheck::experiments {
namespace {

/// Node-size vectors (largest first) of every cluster of `left` ranks.
void partitions(Rank left, Rank largest, std::vector<Rank>& now,
                std::vector<std::vector<Rank>>& all) {
  if (left == 0) {
    if (now.size() >= 1) all.push_back(now);
    return;
  }
  for (Rank s = std::min(left, largest); s >= 1; --s) {
    now.push_back(s);
    partitions(left - s, s, now, all);
    now.pop_back();
  }
}

}  // namespace

std::vector<std::vector<Rank>> cluster_shapes(Rank max_ranks) {
  std::vector<std::vector<Rank>> all;
  for (Rank n = 2; n <= max_ranks; ++n) {
    std::vector<Rank> now;
    partitions(n, n, now, all);
  }
  return all;
}

Rank SwitchTree::machine_count() const {
  Rank n = 0;
  for (const Rank m : machines) n += m;
  return n;
}

std::string SwitchTree::rooted(std::uint32_t s, std::uint32_t parent) const {
  std::vector<std::string> parts;
  for (const auto t : links[s])
    if (t != parent) parts.push_back(rooted(t, s));
  std::sort(parts.begin(), parts.end());
  std::string text = "[" + (machines[s] ? std::to_string(machines[s]) : "");
  for (const auto& p : parts) text += (text.size() > 1 ? "," : "") + p;
  return text + "]";
}

std::string SwitchTree::canonical() const {
  std::string best;
  for (std::uint32_t s = 0; s < machines.size(); ++s) {
    const std::string r = rooted(s, std::uint32_t(-1));
    if (best.empty() || r < best) best = r;
  }
  return best;
}

bool SwitchTree::reduced() const {
  if (machines.size() == 1) return true;
  for (std::size_t s = 0; s < machines.size(); ++s)
    if (machines[s] + links[s].size() < 3) return false;
  return true;
}

Topology SwitchTree::topology() const {
  std::vector<std::string> machine_names, switch_names;
  std::vector<Tree::NamedLink> cables;
  for (std::uint32_t s = 0; s < machines.size(); ++s) {
    switch_names.push_back("s" + std::to_string(s));
    for (Rank m = 0; m < machines[s]; ++m) {
      machine_names.push_back("m" + std::to_string(machine_names.size()));
      cables.push_back({machine_names.back(), switch_names.back()});
    }
  }
  for (std::uint32_t s = 0; s < machines.size(); ++s)
    for (const auto t : links[s])
      if (s < t) cables.push_back({"s" + std::to_string(s), "s" + std::to_string(t)});
  return Tree(std::move(machine_names), std::move(switch_names), std::move(cables));
}

/// Rooted shapes are built from smaller ones (a switch holds m machines and a multiset of
/// subtrees, at least two children), then rerooted to deduplicate.
std::vector<SwitchTree> tree_shapes(Rank n) {
  struct Rooted {
    Rank machines;
    std::vector<std::size_t> subtrees;  // indices into `all`, non-increasing
    Rank leaves;
  };
  std::vector<Rooted> all;
  std::vector<std::size_t> first_with(n + 2, 0);  // shapes with >= L leaves start here
  for (Rank L = 2; L <= n; ++L) {
    first_with[L] = all.size();
    const std::size_t before = all.size();
    for (Rank m = 0; m <= L; ++m) {
      std::vector<std::size_t> chosen;
      // Subtree multisets with `left` leaves from shapes [0, below), in non-increasing index.
      const auto pick = [&](auto&& self, Rank left, std::size_t below) -> void {
        if (left == 0) {
          if (m + chosen.size() >= 2) all.push_back({m, chosen, L});
          return;
        }
        for (std::size_t i = below; i-- > 0;)
          if (all[i].leaves <= left) {
            chosen.push_back(i);
            self(self, left - all[i].leaves, i + 1);
            chosen.pop_back();
          }
      };
      pick(pick, L - m, before);
    }
  }
  std::map<std::string, SwitchTree> unique;
  for (std::size_t i = first_with[n]; i < all.size(); ++i) {
    if (all[i].leaves != n) continue;
    SwitchTree t;
    const auto expand = [&](auto&& self, std::size_t shape) -> std::uint32_t {
      const auto s = static_cast<std::uint32_t>(t.machines.size());
      t.machines.push_back(all[shape].machines);
      t.links.emplace_back();
      for (const auto sub : all[shape].subtrees) {
        const std::uint32_t c = self(self, sub);
        t.links[s].push_back(c);
        t.links[c].push_back(s);
      }
      return s;
    };
    expand(expand, i);
    if (t.reduced()) unique.emplace(t.canonical(), std::move(t));
  }
  std::vector<SwitchTree> shapes;
  for (auto& [text, t] : unique) shapes.push_back(std::move(t));
  return shapes;
}

}  // namespace phasecheck::experiments
