#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "helpers.hpp"
#include "io/json.hpp"
#include "schedules/registry.hpp"

using namespace phasecheck;
using testing::phase;

namespace {

std::string error_of(std::string_view text) {
  try {
    io::parse_schedule(text, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kHeader =
    R"("format": "phasecheck.schedule/1", "algorithm": "x", "collective": "alltoall",
  "ranks": 3, "parameters": {}, "topology": {"kind": "ring", "ranks": 3})";

std::string with_phases(const std::string& phases) {
  return std::string("{") + kHeader + ",\n\"phases\": " + phases + "}";
}

}  // namespace

TEST_CASE("schedule JSON: written one transfer per line, blocks only when not direct") {
  Schedule s{testing::header(Ring(3)), {}};
  s.header.parameters.set("collective", "alltoall");
  s.phases.push_back(phase("step 0", {{0, 1}, {1, 2, {{1, 2}, {0, 2}}}}));
  s.phases.push_back(Phase("empty"));
  CHECK(io::schedule_to_json(s) == R"({
  "format": "phasecheck.schedule/1",
  "algorithm": "hand-made",
  "collective": "alltoall",
  "ranks": 3,
  "parameters": {"collective":"alltoall"},
  "topology": {"kind":"ring","ranks":3},
  "phases": [
    {"label": "step 0", "transfers": [
      {"src": 0, "dst": 1},
      {"src": 1, "dst": 2, "blocks": [[1, 2], [0, 2]]}
    ]},
    {"label": "empty", "transfers": []}
  ]
}
)");
}

TEST_CASE("schedule JSON: round trip of every registered algorithm") {
  const std::vector<Topology> machines = {
      Tree({"a", "b", "c", "d"}, {"s"}, {{"a", "s"}, {"b", "s"}, {"c", "s"}, {"d", "s"}}),
      Cluster({1, 3})};
  std::size_t round_trips = 0;
  for (const auto& a : schedules::algorithms())
    for (const Topology& t : machines)
      for (const char* c : {"alltoall", "allgather"}) {
        Parameters p;
        p.set("collective", c);
        Schedule s;
        try {
          s = schedules::generate(a, t, p);
        } catch (const InputError&) {
          continue;  // not applicable to this machine
        }
        CHECK(io::parse_schedule(io::schedule_to_json(s), "x") == s);
        ++round_trips;
      }
  CHECK(round_trips >= 2 * schedules::algorithms().size());
}

TEST_CASE("schedule JSON: phases stream when the header comes first") {
  std::istringstream in(with_phases(R"([{"label": "a", "transfers": [{"src": 0, "dst": 1}]}])"));
  std::vector<std::string> events;
  io::read_schedule(
      in, "s.json", [&](const ScheduleHeader&) { events.push_back("header"); },
      [&](const Phase& p) { events.push_back(p.label()); });
  CHECK(events == std::vector<std::string>{"header", "a"});
}

TEST_CASE(
    "schedule JSON: phases stream without the optional parameters, and later header keys fail") {
  const std::string no_params = R"({"format": "phasecheck.schedule/1", "algorithm": "x",
      "collective": "alltoall", "ranks": 2, "topology": {"kind": "ring", "ranks": 2},
      "phases": [{"label": "a", "transfers": [{"src": 0, "dst": 1}]}])";
  std::istringstream in(no_params + "}");
  std::vector<std::string> events;
  io::read_schedule(
      in, "s.json", [&](const ScheduleHeader&) { events.push_back("header"); },
      [&](const Phase& p) { events.push_back(p.label()); });
  CHECK(events == std::vector<std::string>{"header", "a"});
  // The phases were checked against a header without them: parameters now would come too late.
  CHECK(error_of(no_params + R"(, "parameters": {"collective": "alltoall"}})") ==
        "s.json: \"parameters\" comes after \"phases\"; write the header keys before the phases");
}

TEST_CASE("schedule JSON version 2: parts and blocks [origin, destination, part]") {
  const std::string v2 = R"({"format": "phasecheck.schedule/2", "algorithm": "x",
      "collective": "alltoall", "ranks": 2, "parts": 2, "topology": {"kind": "ring", "ranks": 2},
      "phases": [{"label": "a", "transfers": [{"src": 0, "dst": 1},
                                               {"src": 1, "dst": 0, "blocks": [[1, 0, 1]]}]}]})";
  const Schedule s = io::parse_schedule(v2, "s.json");
  CHECK(s.header.parts == 2);
  REQUIRE(s.phases.size() == 1);
  CHECK(s.phases[0].blocks(s.phases[0][1])[0] == Block{1, 0, 1});
  // Written back as version 2, the part kept; a version-1 header stays version 1.
  const std::string written = io::schedule_to_json(s);
  CHECK(written.find("\"format\": \"phasecheck.schedule/2\"") != std::string::npos);
  CHECK(written.find("\"parts\": 2") != std::string::npos);
  CHECK(written.find("[[1, 0, 1]]") != std::string::npos);
  CHECK(io::parse_schedule(written, "w.json") == s);
  CHECK(error_of(R"({"format": "phasecheck.schedule/1", "algorithm": "x", "collective": "alltoall",
      "ranks": 2, "parts": 2, "topology": {"kind": "ring", "ranks": 2}, "phases": []})") ==
        "s.json: parts: \"parts\" needs phasecheck.schedule/2");
  CHECK(error_of(R"({"format": "phasecheck.schedule/2", "algorithm": "x", "collective": "alltoall",
      "ranks": 2, "parts": 2, "topology": {"kind": "ring", "ranks": 2},
      "phases": [{"transfers": [{"src": 0, "dst": 1, "blocks": [[0, 1, 2]]}]}]})") ==
        "s.json: phases[0].transfers[0]: block [0,1,2] is not a block of an alltoall over 2 ranks "
        "([origin, destination, part < 2])");
}

TEST_CASE("schedule JSON: a key twice in a header object is refused") {
  CHECK(error_of(R"({"format": "phasecheck.schedule/1", "algorithm": "x", "collective": "alltoall",
      "ranks": 3, "topology": {"kind": "ring", "ranks": 3, "ranks": 4}, "phases": []})") ==
        "s.json: topology: the key \"ranks\" appears twice in one object");
  CHECK(error_of(R"({"format": "phasecheck.schedule/1", "parameters": {"a": "1", "a": "2"}})") ==
        "s.json: parameters: the key \"a\" appears twice in one object");
}

TEST_CASE("schedule JSON: any key order is accepted, phases wait for the header") {
  const Schedule s =
      io::parse_schedule(R"({"phases": [{"transfers": [{"src": 2, "dst": 0}], "label": "x"}],
      "topology": {"kind": "ring", "ranks": 3}, "ranks": 3, "collective": "allgather",
      "algorithm": "y", "format": "phasecheck.schedule/1"})",
                         "s.json");
  CHECK(s.header.collective == Collective::allgather);
  REQUIRE(s.phases.size() == 1);
  // "blocks" omitted before the collective was known: filled in as the allgather block [2].
  CHECK(s.phases[0] == phase("x", {{2, 0}}, Collective::allgather));
}

TEST_CASE("schedule JSON: bad input names the file, and line:column or the JSON path") {
  CHECK(error_of("") ==
        "s.json:1:1: invalid JSON: syntax error while parsing value - unexpected end of input; "
        "expected '[', '{', or a literal");
  CHECK(error_of(with_phases("[{\"label\": \"a\", \"transfers\": [{\"src\": 0 \"dst\": 1}]}]")) ==
        "s.json:3:55: invalid JSON: syntax error while parsing object - unexpected string literal; "
        "expected '}'");
  CHECK(error_of("[1, 2]") == "s.json: the top level (expected an object): unexpected an array");
  CHECK(error_of(with_phases(R"([{"label": "a", "transfers": [{"src": 0, "dst": -1}]}])")) ==
        "s.json: phases[0].transfers[0].dst (expected a non-negative integer): unexpected a "
        "negative number");
  CHECK(error_of(with_phases(R"([{"label": "a", "transfers": [{"src": 0, "dst": 3}]}])")) ==
        "s.json: phases[0].transfers[0]: rank 3 does not exist (ranks: 3)");
  CHECK(error_of(with_phases(R"([{"label": "a", "transfers": [{"src": 0, "dst": 1e99}]}])")) ==
        "s.json: phases[0].transfers[0].dst (expected a non-negative integer): unexpected a "
        "non-integer number");
  CHECK(error_of(with_phases(
            R"([{"label": "a", "transfers": [{"src": 0, "dst": 18446744073709551615}]}])")) ==
        "s.json: phases[0].transfers[0].dst: rank 18446744073709551615 does not exist");
  CHECK(error_of(with_phases(R"([{"label": "a", "transfers": [{"src": 0}]}])")) ==
        "s.json: phases[0].transfers[0]: missing \"dst\"");
  CHECK(error_of(with_phases(
            R"([{"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": []}]}])")) ==
        "s.json: phases[0].transfers[0]: \"blocks\" is empty");
  CHECK(error_of(with_phases(
            R"([{"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0]]}]}])")) ==
        "s.json: phases[0].transfers[0]: block [0] is not a block of an alltoall over 3 ranks "
        "([origin, destination])");
  CHECK(error_of(with_phases(
            R"([{"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0, 1, 2]]}]}])")) ==
        "s.json: phases[0].transfers[0]: block [0,1,2] is not a block of an alltoall over 3 ranks "
        "([origin, destination])");
  CHECK(
      error_of(with_phases(
          R"([{"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0, 1, 2, 3]]}]}])")) ==
      "s.json: phases[0].transfers[0].blocks[0]: a block is [origin], [origin, destination] or "
      "[origin, destination, part]");
  CHECK(
      error_of(with_phases(R"([{"label": "a", "transfers": [{"src": 0, "dst": 1, "src": 2}]}])")) ==
      "s.json: phases[0].transfers[0]: \"src\" is given twice");
  CHECK(error_of(with_phases(R"([{"label": "a", "transfer": []}])")) ==
        "s.json: phases[0]: unknown key \"transfer\" (a phase has \"label\" and \"transfers\", "
        "or \"ops\" in version 3)");
  CHECK(error_of(with_phases(R"([{"label": 5, "transfers": []}])")) ==
        "s.json: phases[0].label (expected a string): unexpected an integer");
  CHECK(error_of(with_phases(R"({})")) ==
        "s.json: phases (expected an array): unexpected an object");
  CHECK(error_of(R"({"format": "phasecheck.schedule/4", "algorithm": "x", "collective": "alltoall",
      "ranks": 3, "topology": {"kind": "ring", "ranks": 3}, "phases": []})") ==
        "s.json: format: unsupported format \"phasecheck.schedule/4\" (this phasecheck reads "
        "phasecheck.schedule/1, phasecheck.schedule/2 and phasecheck.schedule/3)");
  CHECK(error_of(R"({"format": "phasecheck.schedule/1", "algorithm": "x", "collective": "alltoall",
      "ranks": 4, "topology": {"kind": "ring", "ranks": 3}, "phases": []})") ==
        "s.json: ranks: 4 does not match the topology, which has 3 ranks");
  CHECK(error_of(R"({"format": "phasecheck.schedule/1", "algorithm": "x", "collective": "scatter",
      "ranks": 3, "topology": {"kind": "ring", "ranks": 3}, "phases": []})") ==
        "s.json: collective: unknown collective 'scatter' (expected alltoall or allgather)");
  CHECK(error_of(R"({"format": "phasecheck.schedule/1", "phases": []})") ==
        "s.json: missing \"algorithm\"");
  CHECK(error_of(R"({"format": "phasecheck.schedule/1", "extra": 1})") ==
        "s.json: unknown key \"extra\"");
  CHECK(error_of(std::string("{") + kHeader + "}") == "s.json: missing \"phases\"");
  CHECK(error_of(std::string("{") + kHeader + ", \"phases\": [], \"phases\": []}") ==
        "s.json: \"phases\" is given twice");
  CHECK(error_of(std::string("{") + kHeader + ", \"phases\": []} trailing") ==
        "s.json:2:91: invalid JSON: syntax error while parsing value - invalid literal; last read: "
        "'\"phases\": []} tra'; expected end of input");
}

TEST_CASE("schedule JSON: hostile nesting in the header is refused, not recursed into") {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string text = R"({"format": "phasecheck.schedule/1", "parameters": )" + deep + "}";
  CHECK(error_of(text) == "s.json: parameters: nested deeper than 64 levels");
}

// --- version 3: buffer programs

namespace {

std::string v3(const std::string& extra, const std::string& phases) {
  return R"({"format": "phasecheck.schedule/3", "algorithm": "x", "collective": "alltoall",
  "ranks": 3)" +
         extra + ",\n\"phases\": " + phases + "}";
}

}  // namespace

TEST_CASE("schedule JSON version 3: written one op per line and read back with its table") {
  const Schedule s = testing::direct_program_3();
  const std::string text = io::schedule_to_json(s);
  CHECK(text.find(R"("format": "phasecheck.schedule/3")") != std::string::npos);
  CHECK(text.find(R"("buffers": {"input": 3, "output": 3, "scratch": 0})") != std::string::npos);
  CHECK(text.find(R"({"rank": 0, "from": ["input", 0], "to": ["output", 0], "count": 1})") !=
        std::string::npos);
  CHECK(
      text.find(R"({"src": 0, "dst": 1, "from": ["input", 1], "to": ["output", 0], "count": 1})") !=
      std::string::npos);
  const Schedule back = io::parse_schedule(text, "s.json");
  CHECK(back.header.buffers == s.header.buffers);
  REQUIRE(back.phases.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {
    CHECK(std::equal(back.phases[i].ops().begin(), back.phases[i].ops().end(),
                     s.phases[i].ops().begin(), s.phases[i].ops().end()));
    CHECK(back.phases[i].size() == 3);  // the reader derived the sends' table
  }
  CHECK(io::schedule_to_json(back) == text);
}

TEST_CASE("schedule JSON version 3: defaults, no topology, the header after the phases") {
  const Schedule s = io::parse_schedule(
      R"({"phases": [{"label": "x", "ops": [{"rank": 1, "from": ["input", 1], "to": ["output", 1]}]}],
          "format": "phasecheck.schedule/3", "algorithm": "x", "collective": "allgather",
          "ranks": 2, "chunks": 1})",
      "s.json");
  REQUIRE(s.header.buffers);
  CHECK(*s.header.buffers == BufferLayout{1, false, 1, 2, 0});
  CHECK(s.header.topology == Topology(FullyConnected(2, 1)));
  CHECK(s.phases[0].ops()[0].count == 1);
}

TEST_CASE("schedule JSON version 3: bad input names the file and the op") {
  const auto one = [](const std::string& op, const std::string& extra = "") {
    return error_of(
        v3(extra,
           R"([{"label": "a", "ops": [{"rank": 0, "from": ["input", 0], "to": ["output", 0]}, )" +
               op + "]}]"));
  };
  CHECK(one(R"({"src": 0, "dst": 1, "from": ["inbox", 0], "to": ["output", 0]})") ==
        "s.json: phases[0].ops[1].from: unknown buffer \"inbox\" (the buffers are input, output "
        "and scratch)");
  CHECK(one(R"({"src": 0, "dst": 1, "from": ["input", 0], "to": ["output", 0], "count": 0})") ==
        "s.json: phases[0].ops[1].count: must be at least 1");
  CHECK(
      one(R"({"src": 0, "dst": 1, "from": ["input", 0], "to": ["output", 0], "count": -2})") ==
      "s.json: phases[0].ops[1].count (expected a positive integer): unexpected a negative number");
  CHECK(one(R"({"src": 2, "dst": 2, "from": ["input", 0], "to": ["output", 0]})")
            .starts_with("s.json: phases[0].ops[1]: a send from rank 2 to itself"));
  CHECK(one(R"({"src": 0, "dst": 7, "from": ["input", 0], "to": ["output", 0]})") ==
        "s.json: phases[0].ops[1]: rank 7 does not exist (ranks: 3)");
  CHECK(one(R"({"src": 0, "dst": 1, "to": ["output", 0]})") ==
        "s.json: phases[0].ops[1]: missing \"from\"");
  CHECK(one(R"({"src": 0, "from": ["input", 0], "to": ["output", 0]})") ==
        "s.json: phases[0].ops[1]: missing \"dst\"");
  CHECK(one(R"({"src": 0, "dst": 1, "rank": 0, "from": ["input", 0], "to": ["output", 0]})")
            .starts_with("s.json: phases[0].ops[1]: has both \"rank\""));
  CHECK(one(R"({"src": 0, "dst": 1, "from": ["input"], "to": ["output", 0]})") ==
        "s.json: phases[0].ops[1].from[1] (expected a non-negative integer): unexpected the end of "
        "an array");
  CHECK(
      one(R"({"src": 0, "dst": 1, "from": ["input", 0, 1], "to": ["output", 0]})") ==
      "s.json: phases[0].ops[1].from (expected the end of [buffer, slot]): unexpected an integer");
  CHECK(one(R"({"src": 0, "dst": 1, "from": ["input", 0], "to": ["output", 0], "via": 3})")
            .starts_with("s.json: phases[0].ops[1]: unknown key \"via\""));
  CHECK(error_of(v3(R"(, "inplace": true)", "[]")) ==
        "s.json: inplace: \"inplace\" is for an allgather only");
  CHECK(error_of(v3(R"(, "buffers": {"output": 2})", "[]")) ==
        "s.json: buffers: buffer output has 2 slots but must hold every chunk the rank ends with: "
        "3 slots");
  CHECK(error_of(v3(R"(, "buffers": {"outbox": 2})", "[]")).starts_with("s.json: buffers"));
  CHECK(error_of(v3(R"(, "parts": 2)", "[]")) ==
        "s.json: parts: \"parts\" needs phasecheck.schedule/2 (version 3 has \"chunks\")");
  CHECK(error_of(v3("", R"([{"label": "a", "transfers": []}])")) ==
        "s.json: phases[0]: has \"transfers\"; a version-3 phase has \"ops\"");
  CHECK(error_of(with_phases(R"([{"label": "a", "ops": []}])")) ==
        "s.json: phases[0]: has \"ops\", which need phasecheck.schedule/3");
}
