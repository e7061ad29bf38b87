#include <doctest/doctest.h>

#include <cmath>

#include "core/error.hpp"
#include "helpers.hpp"
#include "io/json.hpp"

using namespace phasecheck;

namespace {

std::string error_of(std::string_view text) {
  try {
    io::parse_topology(text, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("topology JSON: every kind round-trips") {
  const std::vector<Topology> all = {testing::fig1_tree(), Cluster({1, 2, 3}), FullyConnected(5, 2),
                                     Hypercube(3),         Mesh(3, 4, true),   Ring(6)};
  for (const Topology& t : all) {
    const std::string json = io::topology_to_json(t);
    CHECK_MESSAGE(io::parse_topology(json, "x") == t, json);
  }
  CHECK(io::topology_to_json(Cluster({1, 2, 3})) == R"({"kind":"cluster","node_sizes":[1,2,3]})");
}

TEST_CASE("topology JSON: bad input names the file and the problem") {
  CHECK(error_of("") ==
        "t.json:1:1: invalid JSON: syntax error while parsing value - unexpected end of input; "
        "expected '[', '{', or a literal");
  CHECK(error_of("{\"kind\": \"ring\",\n \"ranks\": 6,,}") ==
        "t.json:2:13: invalid JSON: syntax error while parsing object key - unexpected ','; "
        "expected string literal");
  CHECK(error_of("[]") == "t.json: expected an object, got an array");
  CHECK(error_of(R"({"kind": "torus"})") ==
        "t.json: kind: unknown kind \"torus\" (expected tree, cluster, fully-connected, hypercube, "
        "mesh, ring or graph)");
  CHECK(error_of(R"({"kind": "ring", "ranks": -3})") ==
        "t.json: ranks: expected a non-negative integer, got a negative number");
  CHECK(error_of(R"({"kind": "ring", "ranks": "6"})") ==
        "t.json: ranks: expected a non-negative integer, got a string");
  CHECK(error_of(R"({"kind": "ring", "ranks": 1e40})") ==
        "t.json: ranks: expected a non-negative integer, got a non-integer or out-of-range number");
  CHECK(error_of(R"({"kind": "ring", "ranks": 99999999999})") ==
        "t.json: ranks: 99999999999 is too large (at most 1048576)");
  CHECK(error_of(R"({"kind": "ring", "ranks": 0})") ==
        "t.json: ring: ranks must be in [1, 1048576], not 0");
  CHECK(error_of(R"({"kind": "ring", "rank": 6})") == "t.json: unknown key \"rank\"");
  CHECK(error_of(R"({"kind": "cluster", "node_sizes": [2, 0]})") ==
        "t.json: cluster: node 1 has size 0");
  CHECK(error_of(R"({"kind": "hypercube", "dimension": 40})") ==
        "t.json: hypercube: dimension 40 is too large (at most 20)");
  CHECK(error_of(R"({"kind": "tree", "machines": ["a", "b"], "links": [["a", "b", "c"]]})") ==
        "t.json: links[0]: expected a pair [name, name]");
  CHECK(
      error_of(
          R"({"kind": "tree", "machines": ["a", "b", "c"], "links": [["a", "b"], ["b", "c"]]})") ==
      "t.json: tree: machine 'b' has 2 links; machines must be leaves");
  CHECK(error_of(R"({"kind": "tree", "machines": ["a", 7], "links": []})") ==
        "t.json: machines[1]: expected a string, got a number");
}

TEST_CASE("topology JSON: hostile files: repeated keys, NUL characters, deep nesting") {
  CHECK(error_of(R"({"kind": "ring", "ranks": 6, "ranks": 7})") ==
        "t.json: the key \"ranks\" appears twice in one object");
  CHECK(error_of(R"({"kind": "tree", "machines": [{"a": 1, "a": 2}], "links": []})") ==
        "t.json: the key \"a\" appears twice in one object");
  // The same key in two different objects is fine; the second object is just wrong here.
  CHECK(error_of(R"({"kind": "ring", "ranks": 3, "x": {"kind": 1}})") ==
        "t.json: unknown key \"x\"");
  CHECK(error_of(R"({"kind": "ring\u0000", "ranks": 6})") ==
        "t.json: kind: a string with a NUL character (\\u0000)");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  CHECK(error_of(R"({"kind": "ring", "ranks": )" + deep + "}") ==
        "t.json: nested deeper than 64 levels");
}

TEST_CASE("topology JSON: missing files are reported, not crashed on") {
  CHECK_THROWS_WITH_AS(io::read_topology_file("/nonexistent/t.json"),
                       "/nonexistent/t.json: cannot open the file (No such file or directory)",
                       InputError);
  CHECK_THROWS_WITH_AS(io::read_topology_file("/"), "/: is a directory, not a file", InputError);
}

TEST_CASE("topology JSON: graph link multiplicities and host ports") {
  const Topology g = Graph({"a", "b", "c"}, {{"a", "b"}, {"b", "c"}}, {1, 2, 1}, {1, 3}, {4, 1, 2});
  const std::string json = io::topology_to_json(g);
  CHECK(
      json ==
      R"({"kind":"graph","routers":["a","b","c"],"links":[["a","b"],["b","c",3]],"hosts":[1,2,1],"host_ports":[4,1,2]})");
  CHECK(io::parse_topology(json, "x") == g);
  CHECK(io::parse_topology(io::topology_to_pretty_json(g), "x") == g);
  // One count for every router, and a file without the new fields writes back as it was.
  CHECK(
      io::parse_topology(
          R"({"kind":"graph","routers":["a","b"],"links":[["a","b",2]],"concentration":1,"host_ports":3})",
          "x") == Topology(Graph({"a", "b"}, {{"a", "b"}}, {1, 1}, {2}, {3, 3})));
  const std::string plain =
      R"({"kind":"graph","routers":["a","b"],"links":[["a","b"]],"concentration":2})";
  CHECK(io::topology_to_json(io::parse_topology(plain, "x")) == plain);
  CHECK(
      io::topology_to_json(Graph({"a", "b"}, {{"a", "b"}}, {1, 1}, {}, {3, 3})) ==
      R"({"kind":"graph","routers":["a","b"],"links":[["a","b"]],"concentration":1,"host_ports":3})");

  const std::string head = R"({"kind":"graph","routers":["a","b"],"concentration":1,)";
  CHECK(error_of(head + R"("links":[["a","b",0]]})") ==
        "t.json: links[0][2]: a link bundles at least 1 physical link");
  CHECK(error_of(head + R"("links":[["a","b",-2]]})") ==
        "t.json: links[0][2]: expected a non-negative integer, got a negative number");
  CHECK(error_of(head + R"("links":[["a","b",1.5]]})") ==
        "t.json: links[0][2]: expected a non-negative integer, got a non-integer or out-of-range "
        "number");
  CHECK(error_of(head + R"("links":[["a","b",5000]]})") ==
        "t.json: links[0][2]: 5000 is too large (at most 1024)");
  CHECK(error_of(head + R"("links":[["a","b",2,2]]})") ==
        "t.json: links[0]: expected [router, router] or [router, router, parallel links]");
  CHECK(error_of(head + R"("links":[["a","b"]],"host_ports":[1]})") ==
        "t.json: host_ports: expected one count per router (2), got 1");
  CHECK(error_of(head + R"("links":[["a","b"]],"host_ports":0})") ==
        "t.json: host_ports: a host has at least 1 port");
  CHECK(error_of(head + R"("links":[["a","b"]],"host_ports":[1,"2"]})") ==
        "t.json: host_ports[1]: expected a non-negative integer, got a string");
}

TEST_CASE("topology JSON: format 2 carries a graph's bandwidths and labels") {
  LinkFacts facts;
  facts.bandwidths = {48e9, 0};
  facts.labels = {"xGMI", ""};
  facts.host_bandwidths = {0, 0, 1e12};
  const Topology g = Graph({"a", "b", "c"}, {{"a", "b"}, {"b", "c"}}, {1, 2, 1}, {2, 1}, {}, facts);
  const std::string json = io::topology_to_json(g);
  CHECK(
      json ==
      R"({"format":"phasecheck.topology/2","kind":"graph","routers":["a","b","c"],"links":[["a","b",2],["b","c"]],"hosts":[1,2,1],"bandwidths":[48000000000.0,null],"labels":["xGMI",""],"host_bandwidths":[null,null,1000000000000.0]})");
  CHECK(io::parse_topology(json, "x") == g);
  CHECK(io::parse_topology(io::topology_to_pretty_json(g), "x") == g);
  const Graph& graph = std::get<Graph>(g);
  // Directed links: hosts 0..3 take ids 0..7; router link e is 8 + 2e (a -> b) and 9 + 2e.
  CHECK(graph.bandwidth(8) == 48e9);
  CHECK(graph.bandwidth(9) == 48e9);
  CHECK(graph.bandwidth(10) == 0);
  CHECK(graph.bandwidth(2 * 3) == 1e12);  // host 3 (router c) into c
  CHECK(graph.bandwidth(0) == 0);
  CHECK(link_name(g, 9) == "b -> a (xGMI)");
  CHECK(link_name(g, 10) == "b -> c");

  // Version 1 says so or says nothing, and writes back as it was.
  const std::string v1 = R"({"format":"phasecheck.topology/1","kind":"ring","ranks":4})";
  CHECK(io::parse_topology(v1, "x") == Topology(Ring(4)));
  CHECK(io::topology_to_json(io::parse_topology(v1, "x")) == R"({"kind":"ring","ranks":4})");

  const std::string head =
      R"({"format":"phasecheck.topology/2","kind":"graph","routers":["a","b"],"concentration":1,"links":[["a","b"]],)";
  CHECK(
      error_of(
          R"({"kind":"graph","routers":["a","b"],"concentration":1,"links":[["a","b"]],"bandwidths":[1e9]})") ==
      "t.json: bandwidths: \"bandwidths\" needs \"format\": \"phasecheck.topology/2\"");
  CHECK(error_of(R"({"format":"phasecheck.topology/3","kind":"ring","ranks":4})") ==
        "t.json: format: unknown format \"phasecheck.topology/3\" (expected "
        "\"phasecheck.topology/1\" or \"phasecheck.topology/2\")");
  CHECK(error_of(head + R"("bandwidths":[1e9,2e9]})") ==
        "t.json: bandwidths: expected one value per link (1), got 2");
  CHECK(error_of(head + R"("bandwidths":[0]})") ==
        "t.json: bandwidths[0]: a bandwidth is more than 0 and at most 1e15 bytes per second");
  CHECK(error_of(head + R"("bandwidths":[-1]})") ==
        "t.json: bandwidths[0]: a bandwidth is more than 0 and at most 1e15 bytes per second");
  CHECK(error_of(head + R"("bandwidths":[1e300]})") ==
        "t.json: bandwidths[0]: a bandwidth is more than 0 and at most 1e15 bytes per second");
  CHECK(error_of(head + R"("bandwidths":["fast"]})") ==
        "t.json: bandwidths[0]: expected a bandwidth in bytes per second or null, got a string");
  CHECK(error_of(head + R"("host_bandwidths":[1]})") ==
        "t.json: host_bandwidths: expected one value per router (2), got 1");
  CHECK(error_of(head + R"("labels":[7]})") ==
        "t.json: labels[0]: expected a string, got a number");
  CHECK(error_of(head + R"("labels":[")" + std::string(300, 'x') + R"("]})") ==
        "t.json: labels[0]: a label is at most 256 bytes");
  // The model checks what a caller gives it, too.
  LinkFacts nan;
  nan.bandwidths = {std::nan("")};
  CHECK_THROWS_WITH_AS(Graph({"a", "b"}, {{"a", "b"}}, {1, 1}, {}, {}, nan),
                       "graph: bandwidths[0] is not a bandwidth in [0, 1e15] bytes per second",
                       InputError);
}
