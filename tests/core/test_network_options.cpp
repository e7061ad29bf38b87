// `phasecheck topology KIND --options` as a library (core/network_options.hpp): the table of kinds,
// the options each takes, comma lists, and every built machine written and read back unchanged.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/network_options.hpp"
#include "core/networks.hpp"
#include "io/json.hpp"

using namespace phasecheck;
namespace fs = std::filesystem;

namespace {

/// One machine of every kind, as `phasecheck topology` is told to build it.
struct Example {
  std::string kind;
  NetworkOptions options;
  Topology expected;
};

std::vector<Example> examples() {
  std::vector<Example> out;
  const auto add = [&](std::string kind, auto set, Topology expected) {
    NetworkOptions o;
    set(o);
    out.push_back({std::move(kind), std::move(o), std::move(expected)});
  };
  add(
      "tree", [](NetworkOptions& o) { o.fanout = "2,3,4"; },
      tree_network(std::vector<std::uint64_t>{2, 3, 4}));
  add("fat-tree", [](NetworkOptions& o) { o.k = 4; }, fat_tree_network(4));
  add("cluster", [](NetworkOptions& o) { o.sizes = "8,8,4,1"; }, Cluster({8, 8, 4, 1}));
  add(
      "fully-connected",
      [](NetworkOptions& o) {
        o.ranks = 5;
        o.ports = 2;
      },
      FullyConnected(5, 2));
  add("hypercube", [](NetworkOptions& o) { o.dimension = 3; }, Hypercube(3));
  add(
      "mesh",
      [](NetworkOptions& o) {
        o.rows = 3;
        o.cols = 4;
        o.wraparound = true;
      },
      Mesh(3, 4, true));
  add("ring", [](NetworkOptions& o) { o.ranks = 6; }, Ring(6));
  add("slimfly", [](NetworkOptions& o) { o.q = 5; }, slim_fly(5));
  add("dragonfly", [](NetworkOptions&) {}, dragonfly(4, 2, 2));
  add("xgmi", [](NetworkOptions& o) { o.gpus = 4; }, xgmi(4));
  add("nvswitch", [](NetworkOptions&) {}, nvswitch(8));
  add("dgx1", [](NetworkOptions&) {}, dgx1());
  add(
      "gpu-cluster",
      [](NetworkOptions& o) {
        o.nodes = 3;
        o.gpus = 2;
        o.nics = 2;
      },
      gpu_cluster(3, 2, 2));
  return out;
}

/// A fresh directory, removed afterwards.
struct Directory {
  fs::path path;
  Directory() {
    std::string pattern = (fs::temp_directory_path() / "phasecheck-test-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()));
    path = pattern;
  }
  ~Directory() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("build_network: every kind builds its machine, written and read back equal") {
  const Directory dir;
  std::set<std::string> covered;
  for (const Example& e : examples()) {
    CAPTURE(e.kind);
    const Topology built = build_network(e.kind, e.options);
    CHECK(built == e.expected);
    const std::string text = io::topology_to_pretty_json(built);
    const std::string file = (dir.path / (e.kind + ".json")).string();
    std::ofstream(file, std::ios::binary) << text;
    const Topology read = io::read_topology_file(file);
    CHECK(read == built);
    CHECK(io::topology_to_pretty_json(read) == text);
    covered.insert(e.kind);
  }
  // A kind added to the table without an example here fails this test.
  for (const NetworkKind& k : network_kinds()) CHECK(covered.count(std::string(k.name)) == 1);
}

TEST_CASE("build_network: required options, options of other kinds, unknown kinds") {
  NetworkOptions none;
  CHECK_THROWS_WITH_AS(build_network("tree", none),
                       "tree: --fanout is required (tree takes --fanout)", InputError);
  CHECK_THROWS_WITH_AS(build_network("fully-connected", NetworkOptions{.ranks = 4}),
                       "fully-connected: --ports is required (fully-connected takes --ranks "
                       "--ports)",
                       InputError);
  CHECK_THROWS_WITH_AS(build_network("mesh", NetworkOptions{.rows = 2}),
                       "mesh: --cols is required (mesh takes --rows --cols, optionally "
                       "--wraparound)",
                       InputError);
  CHECK_THROWS_WITH_AS(build_network("ring", NetworkOptions{.k = 4, .ranks = 4}),
                       "ring: --k does not apply (ring takes --ranks)", InputError);
  CHECK_THROWS_WITH_AS(build_network("ring", NetworkOptions{.ranks = 4, .wraparound = true}),
                       "ring: --wraparound does not apply (ring takes --ranks)", InputError);
  CHECK_THROWS_WITH_AS(build_network("dgx1", NetworkOptions{.gpus = 8}),
                       "dgx1: --gpus does not apply (dgx1 takes no options)", InputError);
  CHECK_THROWS_WITH_AS(build_network("hypercube", NetworkOptions{.fanout = "2", .dimension = 2}),
                       "hypercube: --fanout does not apply (hypercube takes --dimension)",
                       InputError);
  CHECK_THROWS_WITH_AS(
      build_network("fattree", none),
      "unknown network 'fattree'; did you mean 'fat-tree'? (known: tree, fat-tree, "
      "cluster, fully-connected, hypercube, mesh, ring, slimfly, dragonfly, "
      "xgmi, nvswitch, dgx1, gpu-cluster)",
      InputError);
  // The graph builders keep their defaults, and refuse what does not fit their parameters.
  CHECK(build_network("gpu-cluster", none) == Topology(gpu_cluster(2, 8, 1)));
  CHECK_THROWS_WITH_AS(build_network("slimfly", NetworkOptions{.q = 1ull << 32}),
                       "slimfly: --q 4294967296 is too large", InputError);
  // The builders' own messages come through unchanged.
  CHECK_THROWS_WITH_AS(build_network("fat-tree", NetworkOptions{.k = 5}),
                       "fat-tree: --k 5; expected an even number, at least 2", InputError);
  CHECK_THROWS_WITH_AS(build_network("tree", NetworkOptions{.fanout = "8,0"}),
                       "tree: --fanout element 2 is 0; every switch has at least 1 node below it",
                       InputError);
}

TEST_CASE("parse_count_list: numbers between commas, the bad element named by position") {
  CHECK(parse_count_list("8", "--fanout") == std::vector<std::uint64_t>{8});
  CHECK(parse_count_list("8,4", "--fanout") == std::vector<std::uint64_t>{8, 4});
  CHECK(parse_count_list(" 8 , 4 ", "--fanout") == std::vector<std::uint64_t>{8, 4});
  CHECK(parse_count_list("0,18446744073709551615", "--sizes") ==
        std::vector<std::uint64_t>{0, 18446744073709551615ull});
  struct Bad {
    const char* text;
    const char* message;
  };
  for (const Bad& b : std::vector<Bad>{
           {"", "--fanout: element 1 '' is not a number"},
           {",", "--fanout: element 1 '' is not a number"},
           {"8,", "--fanout: element 2 '' is not a number"},
           {"8,x", "--fanout: element 2 'x' is not a number"},
           {"8,,4", "--fanout: element 2 '' is not a number"},
           {"-1", "--fanout: element 1 '-1' is not a number"},
           {"+1", "--fanout: element 1 '+1' is not a number"},
           {"0x10", "--fanout: element 1 '0x10' is not a number"},
           {"1e3", "--fanout: element 1 '1e3' is not a number"},
           {"8 4", "--fanout: element 1 '8 4' is not a number"},
           {"4,18446744073709551616", "--fanout: element 2 '18446744073709551616' is too large"},
       }) {
    CAPTURE(b.text);
    CHECK_THROWS_WITH_AS(parse_count_list(b.text, "--fanout"), b.message, InputError);
  }
}
