#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "helpers.hpp"
#include "io/json.hpp"
#include "io/schedule_json_stream.hpp"
#include "pipeline/read_schedule.hpp"
#include "schedules/registry.hpp"

using namespace phasecheck;
using testing::phase;

namespace {

std::string error_of(std::string_view text) {
  try {
    pipeline::parse_schedule(text, "s.json");
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
        CHECK(pipeline::parse_schedule(io::schedule_to_json(s), "x") == s);
        ++round_trips;
      }
  CHECK(round_trips >= 2 * schedules::algorithms().size());
}

TEST_CASE("schedule JSON: phases stream when the header comes first") {
  std::istringstream in(with_phases(R"([{"label": "a", "transfers": [{"src": 0, "dst": 1}]}])"));
  std::vector<std::string> events;
  pipeline::read_schedule(
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
  pipeline::read_schedule(
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
  const Schedule s = pipeline::parse_schedule(v2, "s.json");
  CHECK(s.header.parts == 2);
  REQUIRE(s.phases.size() == 1);
  CHECK(s.phases[0].blocks(s.phases[0][1])[0] == Block{1, 0, 1});
  // Written back as version 2, the part kept; a version-1 header stays version 1.
  const std::string written = io::schedule_to_json(s);
  CHECK(written.find("\"format\": \"phasecheck.schedule/2\"") != std::string::npos);
  CHECK(written.find("\"parts\": 2") != std::string::npos);
  CHECK(written.find("[[1, 0, 1]]") != std::string::npos);
  CHECK(pipeline::parse_schedule(written, "w.json") == s);
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
      pipeline::parse_schedule(R"({"phases": [{"transfers": [{"src": 2, "dst": 0}], "label": "x"}],
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
  CHECK(error_of(R"({"format": "phasecheck.schedule/5", "algorithm": "x", "collective": "alltoall",
      "ranks": 3, "topology": {"kind": "ring", "ranks": 3}, "phases": []})") ==
        "s.json: format: unsupported format \"phasecheck.schedule/5\" (this phasecheck reads "
        "phasecheck.schedule/1, phasecheck.schedule/2, phasecheck.schedule/3 and "
        "phasecheck.schedule/4)");
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
  const Schedule back = pipeline::parse_schedule(text, "s.json");
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
  const Schedule s = pipeline::parse_schedule(
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
        "s.json: inplace: an alltoall in place needs phasecheck.schedule/4");
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

// --- the fast path (simdjson, io/phase_scanner.hpp) against the SAX parser alone

namespace {

/// What a reader made of a text: the header, every phase delivered (those before an error too)
/// and the error.
struct Outcome {
  std::optional<ScheduleHeader> header;
  std::vector<Phase> phases;
  std::string error;
  friend bool operator==(const Outcome&, const Outcome&) = default;
  friend std::ostream& operator<<(std::ostream& os, const Outcome& o) {
    return os << (o.header ? "header, " : "no header, ") << o.phases.size() << " phases, error \""
              << o.error << "\"";
  }
};

Outcome read_from(std::istream& in, const io::detail::JsonReadOptions& options,
                  io::Tables tables = io::Tables::derive) {
  Outcome o;
  try {
    io::detail::read_json_schedule(
        in, "s.json", [&](const ScheduleHeader& h) { o.header = h; },
        [&](const Phase& p) { o.phases.push_back(p); }, tables, options);
  } catch (const InputError& e) {
    o.error = e.what();
  }
  return o;
}

Outcome read_with(const std::string& text, const io::detail::JsonReadOptions& options,
                  io::Tables tables = io::Tables::derive) {
  std::istringstream in(text);
  return read_from(in, options, tables);
}

/// Windows from a few bytes (every phase longer than the largest: the SAX parser reads it, then
/// hands back) to the default.
const io::detail::JsonReadOptions kWindows[] = {
    {.scan = true, .window = 16, .max_window = 64},
    {.scan = true, .window = 64, .max_window = 512},
    {.scan = true, .window = 200, .max_window = 1 << 16},
    {}};

/// The reader with the fast path gives what the SAX parser alone gives, with every window.
std::size_t check_agrees(const std::string& text, io::Tables tables = io::Tables::derive) {
  const Outcome reference = read_with(text, {.scan = false}, tables);
  for (const auto& options : kWindows) {
    const Outcome fast = read_with(text, options, tables);
    if (fast != reference) {
      INFO("window ", options.window, " of at most ", options.max_window, ", text:\n", text);
      CHECK(fast == reference);
    }
  }
  return reference.phases.size();
}

std::string generated(std::string_view name, const Topology& t, const char* collective,
                      bool program = false) {
  Parameters p;
  p.set("collective", collective);
  const auto& algorithm = schedules::require_algorithm(name);
  const Schedule s =
      program ? schedules::generate_program(algorithm, schedules::make_header(algorithm, t, p))
              : schedules::generate(algorithm, t, p);
  return io::schedule_to_json(s);
}

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// A version-1 file of `phases` phases with two transfers each, one per line; `edit` changes
/// the text of phase `at`.
std::string phases_file(int phases, int at = -1, std::string_view edit = "") {
  std::string text = std::string("{") + kHeader + ",\n\"phases\": [";
  for (int i = 0; i < phases; ++i) {
    std::string phase = "\n  {\"label\": \"p" + std::to_string(i) +
                        "\", \"transfers\": [\n    {\"src\": 0, \"dst\": 1},\n    {\"src\": 1, "
                        "\"dst\": 2, \"blocks\": [[1, 2], [0, 2]]}\n  ]}";
    if (i == at) phase = std::string(edit);
    text += (i == 0 ? "" : ",") + phase;
  }
  return text + "\n]}\n";
}

}  // namespace

TEST_CASE("schedule JSON fast path: generated files read as the SAX parser reads them") {
  const Topology cluster = Cluster({1, 3, 2});
  for (const char* collective : {"alltoall", "allgather"}) {
    CHECK(check_agrees(generated("shift", cluster, collective)) == 6);
    // forwarding: blocks other than the direct one; buffer programs (format 3)
    const char* bruck = collective == std::string_view("alltoall") ? "bruck-index" : "bruck-concat";
    CHECK(check_agrees(generated(bruck, cluster, collective)) > 0);
    CHECK(check_agrees(generated(bruck, cluster, collective, true)) > 0);
    CHECK(check_agrees(generated(bruck, cluster, collective, true), io::Tables::ops_only) > 0);
  }
  Parameters segmented;
  segmented.set("bytes", "64");
  segmented.set("block_size", "16");
  const std::string v2 = io::schedule_to_json(schedules::generate(
      schedules::require_algorithm("randomized-segmented"), Ring(5), segmented));
  CHECK(v2.find("phasecheck.schedule/2") != std::string::npos);
  CHECK(check_agrees(v2) > 0);
  // Other spellings of the same file: one line, CRLF, tabs.
  const std::string shift = generated("shift", cluster, "alltoall");
  CHECK(check_agrees(replace_all(shift, "\n", "")) == 6);
  CHECK(check_agrees(replace_all(shift, "\n", "\r\n")) == 6);
  CHECK(check_agrees(replace_all(shift, "  ", "\t")) == 6);
}

TEST_CASE("schedule JSON fast path: spellings it leaves to the SAX parser read the same") {
  for (
      const std::string phase : {
          // keys written with escapes, a label with escapes and non-ASCII text
          R"({"l\u0061bel": "a", "transfers": [{"src": 0, "dst": 1}]})",
          R"({"label": "a", "transfers": [{"s\u0072c": 0, "dst": 1}]})",
          R"({"label": "\"\\\/\b\f\n\r\t \u00e9 \ud83d\ude00 é", "transfers": [{"src": 0, "dst": 1}]})",
          R"({"label": "\u0000", "transfers": []})",
          // the label last or absent, no transfers, blocks of one rank in an alltoall
          R"({"transfers": [{"dst": 1, "src": 0}], "label": "last"})",
          R"({"transfers": [{"src": 0, "dst": 1}]})",
          R"({"label": "empty", "transfers": []})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0]]}]})",
          // errors: every one with the SAX parser's message
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "src": 2}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1}], "label": "b"})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "via": 2}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": -0}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 01}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1.0}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1e400}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 99999999999}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 18446744073709551616}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": tru}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1}] "x": 1})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1},]})",
          R"({"label": "a\ud800", "transfers": []})",
          "{\"label\": \"a\tb\", \"transfers\": []}",
          "{\"label\": \"a\xff\", \"transfers\": []}",
          "{\"label\": \"a\nb\", \"transfers\": []}",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0, 1], []]}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0, 1, 0, 0]]}]})",
          R"({"label": "a", "transfers": [{"src": 0, "dst": 3}]})",
          R"({"label": "a", "ops": []})",
          R"({"label": 7, "transfers": []})",
          R"({})",
          R"([])",
          R"(7)",
      }) {
    for (const int at : {0, 1, 5, 11}) {
      INFO("phase ", at, ": ", phase);
      check_agrees(phases_file(12, at, phase));
    }
  }
}

TEST_CASE("schedule JSON fast path: what comes after the phases reads the same") {
  const std::string file = phases_file(5);
  const std::string body = file.substr(0, file.rfind("]}"));
  for (const std::string end :
       {"]}", "]}  \n\n", "]} trailing", "]}\n}", "]", "]}\n\0x\xff", "],\n\"parameters\": {}}",
        "], \"phases\": []}", ",]}", "]]}", "", ",", "\n  {\"label\": \"q\""}) {
    INFO("end: ", end);
    check_agrees(body + end);
  }
  check_agrees(std::string("{") + kHeader + ", \"phases\": []}");
  check_agrees(std::string("{") + kHeader + ", \"phases\"  :\n\n  [\n\n]\n}");
  // The header after the phases: the SAX parser buffers the phases.
  check_agrees(R"({"phases": [{"transfers": [{"src": 2, "dst": 0}], "label": "x"}],
      "topology": {"kind": "ring", "ranks": 3}, "ranks": 3, "collective": "allgather",
      "algorithm": "y", "format": "phasecheck.schedule/1"})");
}

TEST_CASE(
    "schedule JSON fast path: a file cut anywhere, or with any byte changed, reads the same") {
  const std::string file = phases_file(4);
  for (std::size_t size = 0; size <= file.size(); ++size) check_agrees(file.substr(0, size));
  // Every byte of the phases replaced by characters that matter to JSON.
  for (std::size_t at = file.find("\"phases\""); at < file.size(); ++at)
    for (const char c : {'}', ']', ',', '"', '\\', '0', 'x', '\n', '\0'}) {
      std::string changed = file;
      changed[at] = c;
      check_agrees(changed);
    }
}

namespace {

/// Serves `text` in chunks and throws at byte `fail_at`, as an InputFile throws when the input
/// passes its size limit.
class FailingBuffer : public std::streambuf {
 public:
  FailingBuffer(std::string text, std::size_t chunk, std::size_t fail_at)
      : text_(std::move(text)), chunk_(chunk), fail_at_(fail_at) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (next_ >= fail_at_) throw InputError("s.json: larger than the input limit");
    if (next_ >= text_.size()) return traits_type::eof();
    const std::size_t n = std::min({chunk_, text_.size() - next_, fail_at_ - next_});
    setg(text_.data() + next_, text_.data() + next_, text_.data() + next_ + n);
    next_ += n;
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::string text_;
  std::size_t chunk_, fail_at_, next_ = 0;
};

}  // namespace

TEST_CASE("schedule JSON fast path: a failing stream fails after the bytes it gave are read") {
  const std::string missing_comma = R"({"label": "a", "transfers": [{"src": 0 "dst": 1}]})";
  for (const auto& [text, error] :
       {std::pair{phases_file(40), std::string("s.json: larger than the input limit")},
        std::pair{phases_file(40, 3, missing_comma),
                  std::string("s.json:15:49: invalid JSON: syntax error while parsing object - "
                              "unexpected string literal; expected '}'")},
        // read by the SAX parser (a key with escapes), then by the scanner again, after the
        // stream has failed further on
        std::pair{phases_file(40, 4, R"({"l\u0061bel": "a", "transfers": []}, )" + missing_comma),
                  std::string("s.json:19:87: invalid JSON: syntax error while parsing object - "
                              "unexpected string literal; expected '}'")}}) {
    FailingBuffer reference_buffer(text, 100, 1000);
    std::istream reference_in(&reference_buffer);
    const Outcome reference = read_from(reference_in, {.scan = false});
    CHECK(reference.error == error);
    for (const auto& options : kWindows) {
      FailingBuffer buffer(text, 100, 1000);
      std::istream in(&buffer);
      CHECK(read_from(in, options) == reference);
    }
  }
}

TEST_CASE("schedule JSON fast path: errors deep in a long file name the same line:column") {
  const std::string missing_comma = R"({"label": "a", "transfers": [{"src": 0 "dst": 1}]})";
  const std::string file = phases_file(300, 217, missing_comma);
  const Outcome fast = read_with(file, {.scan = true, .window = 256, .max_window = 4096});
  CHECK(fast.phases.size() == 217);
  CHECK(fast.error ==
        "s.json:871:49: invalid JSON: syntax error while parsing object - unexpected string "
        "literal; expected '}'");
  CHECK(fast == read_with(file, {.scan = false}));
  const std::string overflow = R"({"label": "a", "transfers": [{"src": 0, "dst": 1e400}]})";
  CHECK(read_with(phases_file(300, 250, overflow), {.scan = true, .window = 256}).error ==
        "s.json:1003:53: invalid JSON: number out of range: 1e400");
  // On the line where the SAX parser resumes (at phase 5, the last one delivered), a number out
  // of range before a line break: nlohmann gives the line only (it took the line break back).
  const std::string two_phases = R"({"label": "a", "transfers": []}, {"label": "b", )"
                                 R"("transfers": [{"src": 0, "dst": 1e400)"
                                 "\n}]}";
  const Outcome overflow_at_break = read_with(phases_file(8, 5, two_phases), {});
  CHECK(overflow_at_break.phases.size() == 6);
  CHECK(overflow_at_break.error == "s.json:23: invalid JSON: number out of range: 1e400");
  check_agrees(phases_file(8, 5, two_phases));
}

// --- version 4: in place, and parts for an allgather

namespace {

/// A version-4 phase table over 3 ranks (a ring) with header keys `extra`.
std::string v4_table(const char* collective, const std::string& extra, const std::string& phases) {
  return std::string(R"({"format": "phasecheck.schedule/4", "algorithm": "x", "collective": ")") +
         collective + R"(", "ranks": 3)" + extra +
         R"(, "topology": {"kind": "ring", "ranks": 3}, "phases": )" + phases + "}";
}

/// Writes `s`, checks that it is written as version 4 with `expected` in it and reads back as
/// `s`.
void check_written_as_v4(const Schedule& s, const std::string& expected) {
  const std::string written = io::schedule_to_json(s);
  CHECK(written.find("\"format\": \"phasecheck.schedule/4\"") != std::string::npos);
  CHECK(written.find(expected) != std::string::npos);
  CHECK(pipeline::parse_schedule(written, "w.json") == s);
}

}  // namespace

TEST_CASE("schedule JSON version 4: an in-place alltoall program round-trips as version 4") {
  std::ifstream in(std::string(PHASECHECK_SOURCE_DIR) + "/examples/programs/inplace-shift.json");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  REQUIRE(!text.empty());
  const Schedule s = pipeline::parse_schedule(text, "s.json");
  REQUIRE(s.header.buffers);
  CHECK(*s.header.buffers == BufferLayout{1, true, 0, 3, 1});
  CHECK(s.header.in_place());
  REQUIRE(s.phases.size() == 2);
  CHECK(s.phases[0].size() == 3);  // the table of its sends, derived
  check_written_as_v4(s, "\"inplace\": true,\n");
  CHECK(check_agrees(text) == 2);
}

TEST_CASE("schedule JSON version 4: a phase table in place keeps \"inplace\" through the writer") {
  const std::string text = v4_table("alltoall", R"(, "inplace": true)",
                                    R"([{"label": "a", "transfers": [{"src": 0, "dst": 1}]}])");
  const Schedule s = pipeline::parse_schedule(text, "s.json");
  CHECK(s.header.inplace);
  CHECK(!s.header.buffers);
  check_written_as_v4(s, "\"inplace\": true,\n");
  // Out of place, the same table is written as version 1, as before.
  Schedule out_of_place = s;
  out_of_place.header.inplace = false;
  CHECK(io::schedule_to_json(out_of_place).find("phasecheck.schedule/1") != std::string::npos);
  CHECK(check_agrees(text) == 1);
}

TEST_CASE("schedule JSON version 4: an allgather's parts are blocks [origin, null, part]") {
  const std::string text =
      v4_table("allgather", R"(, "parts": 2)",
               R"([{"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0], [0, null, 1]]},
                                       {"src": 2, "dst": 1}]}])");
  const Schedule s = pipeline::parse_schedule(text, "s.json");
  CHECK(s.header.parts == 2);
  REQUIRE(s.phases.size() == 1);
  const Phase& p = s.phases[0];
  REQUIRE(p.blocks(p[0]).size() == 2);
  CHECK(p.blocks(p[0])[1] == Block{0, kEveryRank, 1});
  CHECK(p.blocks(p[1])[0] == Block{2, kEveryRank, 0});  // no "blocks": part 0
  CHECK(to_string(p.blocks(p[0])[1]) == "[0,null,1]");
  check_written_as_v4(s, "\"blocks\": [[0], [0, null, 1]]");
  CHECK(check_agrees(text) == 1);
}

TEST_CASE("schedule JSON version 4: what versions 1 to 3 and version 4 refuse") {
  const std::string v1 = R"({"format": "phasecheck.schedule/1", "algorithm": "x",
      "collective": "alltoall", "ranks": 3, "topology": {"kind": "ring", "ranks": 3},
      "inplace": true, "phases": []})";
  CHECK(error_of(v1) == "s.json: inplace: \"inplace\" needs phasecheck.schedule/4");
  const std::string v2 = R"({"format": "phasecheck.schedule/2", "algorithm": "x",
      "collective": "allgather", "ranks": 3, "parts": 2,
      "topology": {"kind": "ring", "ranks": 3}, "phases": []})";
  CHECK(error_of(v2) == "s.json: parts: \"parts\" for an allgather needs phasecheck.schedule/4");
  CHECK(error_of(v4_table("alltoall", R"(, "inplace": 1)", "[]")) ==
        "s.json: inplace: expected true or false, got a number");
  CHECK(error_of(v4_table("alltoall", R"(, "chunks": 2)", "[]")) ==
        "s.json: chunks: \"chunks\" needs phasecheck.schedule/3 or a version-4 header with "
        "\"buffers\" (a buffer program)");
  CHECK(error_of(v4_table("allgather", R"(, "parts": 2)",
                          R"([{"transfers": [{"src": 0, "dst": 1, "blocks": [[0, null]]}]}])")) ==
        "s.json: phases[0].transfers[0].blocks[0]: [origin, null] has no part; an allgather "
        "block is [origin] or [origin, null, part]");
  CHECK(
      error_of(v4_table("allgather", R"(, "parts": 2)",
                        R"([{"transfers": [{"src": 0, "dst": 1, "blocks": [[0, null, 2]]}]}])")) ==
      "s.json: phases[0].transfers[0]: block [0,null,2] is not a block of an allgather over 3 "
      "ranks ([origin] or [origin, null, part < 2])");
  CHECK(
      error_of(v4_table("alltoall", "",
                        R"([{"transfers": [{"src": 0, "dst": 1, "blocks": [[0, null, 0]]}]}])")) ==
      "s.json: phases[0].transfers[0]: block [0] is not a block of an alltoall over 3 ranks "
      "([origin, destination])");
  CHECK(error_of(v4_table("alltoall", "",
                          R"([{"transfers": [{"src": 0, "dst": 1, "blocks": [[null, 1]]}]}])")) ==
        "s.json: phases[0].transfers[0].blocks[0] (expected a non-negative integer): unexpected "
        "null");
  // A program's header: "parts" is version 2's, and an in-place program has no input.
  const std::string program = R"({"format": "phasecheck.schedule/4", "algorithm": "x",
      "collective": "alltoall", "ranks": 3, "inplace": true, "buffers": {"input": 3},
      "phases": []})";
  CHECK(error_of(program) ==
        "s.json: buffers: an alltoall in place has no input buffer (input "
        "must be 0)");
  CHECK(error_of(R"({"format": "phasecheck.schedule/4", "algorithm": "x",
      "collective": "alltoall", "ranks": 3, "parts": 2, "buffers": {}, "phases": []})") ==
        "s.json: parts: \"parts\" needs phasecheck.schedule/2 (a buffer program has \"chunks\")");
  CHECK(error_of(R"({"format": "phasecheck.schedule/4", "algorithm": "x",
      "collective": "alltoall", "ranks": 3, "phases": []})") == "s.json: missing \"topology\"");
}
