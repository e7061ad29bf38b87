#include <algorithm>
#include <array>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/overloaded.hpp"
#include "io/json.hpp"
#include "io/json_common.hpp"
#include "io/msccl_xml.hpp"
#include "io/nccl_topology.hpp"

namespace phasecheck::io {
namespace detail {

namespace {

std::vector<std::string> names(const Field& f) {
  std::vector<std::string> out;
  const auto& a = f.array();
  for (std::size_t i = 0; i < a.size(); ++i) out.push_back(f.at(i).string());
  return out;
}

/// Prefixes a model's own validation message with the file and path.
template <class Make>
Topology build(const Field& f, Make&& make) {
  try {
    return make();
  } catch (const InputError& e) {
    f.fail(e.what());
  }
}

/// A list of links, each a pair of names (`shape` for the message: "[name, name]").
std::vector<std::array<std::string, 2>> name_pairs(const Field& f, const char* shape) {
  std::vector<std::array<std::string, 2>> pairs;
  for (std::size_t i = 0; i < f.array().size(); ++i) {
    const Field l = f.at(i);
    if (!l.value.is_array() || l.value.size() != 2) l.fail(std::string("expected a pair ") + shape);
    pairs.push_back({l.at(0).string(), l.at(1).string()});
  }
  return pairs;
}

/// A bandwidth in bytes per second, or null for "not known" (0).
double bandwidth(const Field& f) {
  if (f.value.is_null()) return 0;
  if (!f.value.is_number())
    f.fail("expected a bandwidth in bytes per second or null, got " + type_name(f.value));
  const double b = f.value.get<double>();
  if (!(b > 0 && b <= kMaxBandwidth))
    f.fail("a bandwidth is more than 0 and at most 1e15 bytes per second");
  return b;
}

/// One value per element of `n`, read by `read` ("bandwidths", "labels", "host_bandwidths").
template <class T, class Read>
std::vector<T> per_element(const Field& f, std::size_t n, const char* per, Read&& read) {
  if (f.array().size() != n)
    f.fail("expected one value per " + std::string(per) + " (" + std::to_string(n) + "), got " +
           std::to_string(f.array().size()));
  std::vector<T> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(read(f.at(i)));
  return out;
}

/// The link facts of a version-2 graph (they need "format": "phasecheck.topology/2").
LinkFacts link_facts(const Field& f, std::size_t routers, std::size_t links, bool version2) {
  LinkFacts facts;
  for (const char* key : {"bandwidths", "labels", "host_bandwidths"})
    if (f.has(key) && !version2)
      f.at(key).fail(std::string("\"") + key + "\" needs \"format\": \"" +
                     std::string(kTopologyFormatV2) + "\"");
  if (f.has("bandwidths"))
    facts.bandwidths = per_element<double>(f.at("bandwidths"), links, "link", bandwidth);
  if (f.has("host_bandwidths"))
    facts.host_bandwidths =
        per_element<double>(f.at("host_bandwidths"), routers, "router", bandwidth);
  if (f.has("labels"))
    facts.labels = per_element<std::string>(f.at("labels"), links, "link", [](const Field& l) {
      std::string label = l.string();
      if (label.size() > kMaxLinkLabel)
        l.fail("a label is at most " + std::to_string(kMaxLinkLabel) + " bytes");
      return label;
    });
  return facts;
}

}  // namespace

Topology topology_from_json(const Field& f) {
  bool version2 = false;
  if (f.has("format")) {
    const std::string format = f.at("format").string();
    if (format != kTopologyFormat && format != kTopologyFormatV2)
      f.at("format").fail("unknown format \"" + format + "\" (expected \"" +
                          std::string(kTopologyFormat) + "\" or \"" +
                          std::string(kTopologyFormatV2) + "\")");
    version2 = format == kTopologyFormatV2;
  }
  const std::string kind = f.at("kind").string();
  if (kind == "tree") {
    f.expect_object({"format", "kind", "machines", "switches", "links"});
    const auto machines = names(f.at("machines"));
    const auto switches = f.has("switches") ? names(f.at("switches")) : std::vector<std::string>{};
    if (machines.size() > kMaxRanks)
      f.at("machines").fail("more than " + std::to_string(kMaxRanks) + " machines");
    auto links = name_pairs(f.at("links"), "[name, name]");
    return build(f, [&] { return Topology(Tree(machines, switches, std::move(links))); });
  }
  if (kind == "cluster") {
    f.expect_object({"format", "kind", "node_sizes"});
    const Field sf = f.at("node_sizes");
    std::vector<Rank> sizes;
    for (std::size_t i = 0; i < sf.array().size(); ++i)
      sizes.push_back(static_cast<Rank>(sf.at(i).uint(kMaxRanks)));
    return build(f, [&] { return Topology(Cluster(std::move(sizes))); });
  }
  if (kind == "fully-connected") {
    f.expect_object({"format", "kind", "ranks", "ports"});
    const auto p = static_cast<Rank>(f.at("ranks").uint(kMaxRanks));
    const auto k = static_cast<Rank>(f.at("ports").uint(kMaxRanks));
    return build(f, [&] { return Topology(FullyConnected(p, k)); });
  }
  if (kind == "hypercube") {
    f.expect_object({"format", "kind", "dimension"});
    const auto d = static_cast<unsigned>(f.at("dimension").uint(64));
    return build(f, [&] { return Topology(Hypercube(d)); });
  }
  if (kind == "mesh") {
    f.expect_object({"format", "kind", "rows", "cols", "wraparound"});
    const auto r = static_cast<std::uint32_t>(f.at("rows").uint(kMaxRanks));
    const auto c = static_cast<std::uint32_t>(f.at("cols").uint(kMaxRanks));
    const bool wrap = f.has("wraparound") && f.at("wraparound").boolean();
    return build(f, [&] { return Topology(Mesh(r, c, wrap)); });
  }
  if (kind == "ring") {
    f.expect_object({"format", "kind", "ranks"});
    const auto p = static_cast<Rank>(f.at("ranks").uint(kMaxRanks));
    return build(f, [&] { return Topology(Ring(p)); });
  }
  if (kind == "graph") {
    // Hosts per router: "hosts": [h0, h1, ...], or one "concentration" for every router. A link
    // is [a, b] or [a, b, m] (m parallel links); "host_ports": one count, or one per router.
    f.expect_object({"format", "kind", "routers", "links", "hosts", "concentration", "host_ports",
                     "bandwidths", "labels", "host_bandwidths"});
    const auto routers = names(f.at("routers"));
    if (routers.size() > kMaxRouters)
      f.at("routers").fail("more than " + std::to_string(kMaxRouters) + " routers");
    std::vector<Graph::NamedLink> links;
    std::vector<std::uint32_t> capacities;
    const Field lf = f.at("links");
    for (std::size_t i = 0; i < lf.array().size(); ++i) {
      const Field l = lf.at(i);
      if (!l.value.is_array() || (l.value.size() != 2 && l.value.size() != 3))
        l.fail("expected [router, router] or [router, router, parallel links]");
      links.push_back({l.at(0).string(), l.at(1).string()});
      capacities.push_back(1);
      if (l.value.size() == 3) {
        const Field m = l.at(2);
        capacities.back() = static_cast<std::uint32_t>(m.uint(kMaxLinkCapacity));
        if (capacities.back() == 0) m.fail("a link bundles at least 1 physical link");
      }
    }
    std::vector<std::uint32_t> host_ports;
    if (f.has("host_ports")) {
      const Field hp = f.at("host_ports");
      const auto ports = [](const Field& x) {
        const auto k = static_cast<std::uint32_t>(x.uint(kMaxLinkCapacity));
        if (k == 0) x.fail("a host has at least 1 port");
        return k;
      };
      if (hp.value.is_array()) {
        if (hp.array().size() != routers.size())
          hp.fail("expected one count per router (" + std::to_string(routers.size()) + "), got " +
                  std::to_string(hp.array().size()));
        for (std::size_t i = 0; i < hp.array().size(); ++i) host_ports.push_back(ports(hp.at(i)));
      } else {
        host_ports.assign(routers.size(), ports(hp));
      }
    }
    std::vector<Rank> hosts;
    if (f.has("hosts") == f.has("concentration"))
      f.fail("give either \"hosts\" (per router) or \"concentration\" (for all routers)");
    if (f.has("hosts")) {
      const Field hf = f.at("hosts");
      for (std::size_t i = 0; i < hf.array().size(); ++i)
        hosts.push_back(static_cast<Rank>(hf.at(i).uint(kMaxRanks)));
    } else {
      hosts.assign(routers.size(), static_cast<Rank>(f.at("concentration").uint(kMaxRanks)));
    }
    LinkFacts facts = link_facts(f, routers.size(), links.size(), version2);
    return build(f, [&] {
      return Topology(Graph(routers, std::move(links), std::move(hosts), std::move(capacities),
                            std::move(host_ports), std::move(facts)));
    });
  }
  f.at("kind").fail("unknown kind \"" + kind +
                    "\" (expected tree, cluster, fully-connected, hypercube, mesh, ring or graph)");
}

using OJson = nlohmann::ordered_json;

nlohmann::ordered_json topology_to_json_value(const Topology& t) {
  return std::visit(
      Overloaded{
          [](const Tree& x) {
            OJson links = OJson::array();
            for (const auto& [a, b] : x.links()) links.push_back({a, b});
            return OJson{{"kind", "tree"},
                         {"machines", x.machines()},
                         {"switches", x.switches()},
                         {"links", std::move(links)}};
          },
          [](const Cluster& x) {
            return OJson{{"kind", "cluster"}, {"node_sizes", x.node_sizes()}};
          },
          [](const FullyConnected& x) {
            return OJson{{"kind", "fully-connected"}, {"ranks", x.ranks}, {"ports", x.ports}};
          },
          [](const Hypercube& x) {
            return OJson{{"kind", "hypercube"}, {"dimension", x.dimension}};
          },
          [](const Mesh& x) {
            return OJson{
                {"kind", "mesh"}, {"rows", x.rows}, {"cols", x.cols}, {"wraparound", x.wraparound}};
          },
          [](const Ring& x) {
            return OJson{{"kind", "ring"}, {"ranks", x.ranks}};
          },
          [](const Graph& x) {
            // Capacities of 1 are left out, so that files without them read back unchanged.
            OJson links = OJson::array();
            for (std::size_t e = 0; e < x.links().size(); ++e) {
              const auto& [a, b] = x.links()[e];
              links.push_back(x.capacities()[e] == 1 ? OJson{a, b}
                                                     : OJson{a, b, x.capacities()[e]});
            }
            // Version 2 only when the graph has facts, so that every other file reads back
            // unchanged (and older readers refuse what they cannot represent).
            OJson j;
            if (!x.facts().empty()) j["format"] = kTopologyFormatV2;
            j["kind"] = "graph";
            j["routers"] = x.routers();
            j["links"] = std::move(links);
            const auto same = [](const auto& v) {
              return std::all_of(v.begin(), v.end(), [&](auto c) { return c == v.front(); });
            };
            const auto& h = x.hosts();
            if (same(h))
              j["concentration"] = h.front();
            else
              j["hosts"] = h;
            const auto& ports = x.host_ports();
            if (!x.unit_capacity() && !(same(ports) && ports.front() == 1))
              j["host_ports"] = same(ports) ? OJson(ports.front()) : OJson(ports);
            const auto bandwidths = [](const std::vector<double>& v) {
              OJson a = OJson::array();
              for (const double b : v) a.push_back(b > 0 ? OJson(b) : OJson(nullptr));
              return a;
            };
            const LinkFacts& facts = x.facts();
            if (!facts.bandwidths.empty()) j["bandwidths"] = bandwidths(facts.bandwidths);
            if (!facts.labels.empty()) j["labels"] = facts.labels;
            if (!facts.host_bandwidths.empty())
              j["host_bandwidths"] = bandwidths(facts.host_bandwidths);
            return j;
          }},
      t);
}

}  // namespace detail

Topology parse_topology(std::string_view text, std::string_view source) {
  // NCCL's and RCCL's topology XML, read by content (io/nccl_topology.hpp).
  if (looks_like_xml(text)) return import_nccl_topology(text, source, {});
  const detail::Json j = detail::parse_document(text, source);
  return detail::topology_from_json({j, source, ""});
}

Topology read_topology_file(const std::string& path) {
  return parse_topology(read_input(path), path);
}

std::string topology_to_pretty_json(const Topology& t) {
  return detail::dump(detail::topology_to_json_value(t), 1) + "\n";
}

std::string topology_to_json(const Topology& t) {
  return detail::dump(detail::topology_to_json_value(t));
}

}  // namespace phasecheck::io
