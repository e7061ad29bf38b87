// The schedule reader's fast path on its own (io/phase_scanner.hpp): what it takes, what it
// refuses (for the SAX reader to read and report), and where a scan ends. The whole reader, fast
// path and SAX parser together, is tested in test_schedule_json.cpp.

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "io/json.hpp"
#include "io/phase_scanner.hpp"
#include "pipeline/read_schedule.hpp"

using namespace phasecheck;
using io::detail::ScanEnd;
using testing::in;
using testing::out;

namespace {

struct Scan {
  ScanEnd end;
  std::vector<Phase> phases;
  std::vector<bool> has_ops;
  std::vector<std::size_t> starts;  ///< each phase's first byte, from the text's start
  std::vector<std::size_t> ends;    ///< where each phase's text ends (before the next token)
};

/// Scans `text` as the reader does: one writable byte before it, kScanPadding after it. Checks
/// that the scanner gives those bytes back as they were.
Scan scan(const std::string& text, bool at_key, Collective c = Collective::alltoall,
          std::size_t skip = 0) {
  std::string buffer = "#" + text + std::string(io::detail::kScanPadding, '~');
  const std::string before = buffer;
  char* first = buffer.data() + 1;
  Scan s;
  io::detail::PhaseScanner scanner;
  s.end = scanner.scan(first, first + text.size(), at_key, skip, c,
                       [&](const char* start, const char* end, Phase& phase, bool has_ops) {
                         s.phases.push_back(phase);
                         s.has_ops.push_back(has_ops);
                         s.starts.push_back(static_cast<std::size_t>(start - first));
                         s.ends.push_back(static_cast<std::size_t>(end - first));
                       });
  CHECK(buffer == before);
  return s;
}

/// `phases` (text of the array's elements) after the key, and the array closed.
std::string at_key(const std::string& phases) { return "\"phases\": [" + phases + "]\n"; }

const std::string kDelivered = R"({"label": "done", "transfers": []})";

/// One phase the scanner refuses: the scan delivers nothing and says so.
void check_refused(const std::string& phase_text) {
  CAPTURE(phase_text);
  const Scan s = scan(at_key(phase_text), true);
  CHECK(s.end == ScanEnd::refused);
  CHECK(s.phases.empty());
}

}  // namespace

TEST_CASE("phase scanner: a table's phases, blocks filled in as the SAX reader fills them") {
  const std::string text = at_key(
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1}, {"dst": 0, "src": 2}]},
    {"transfers": [{"src": 1, "dst": 2, "blocks": [[1, 2], [0], [0, 2, 1]]}], "label": "b"},
    {"label": "empty", "transfers": []})");
  const Scan s = scan(text, true);
  CHECK(s.end == ScanEnd::array_end);
  REQUIRE(s.phases.size() == 3);
  CHECK(s.phases[0] == testing::phase("a", {{0, 1}, {2, 0}}));
  CHECK(s.phases[1] ==
        testing::phase("b", {{1, 2, {Block{1, 2}, Block{0, kEveryRank}, Block{0, 2, 1}}}}));
  CHECK(s.phases[2] == Phase("empty"));
  CHECK(s.has_ops == std::vector<bool>{false, false, false});
  CHECK(text.substr(s.starts[0], 12) == R"({"label": "a)");
  CHECK(text.substr(s.starts[2], 16) == R"({"label": "empty)");
}

TEST_CASE("phase scanner: a direct message is the collective's") {
  for (const Collective c : {Collective::alltoall, Collective::allgather}) {
    CAPTURE(c);
    const Scan s = scan(at_key(R"({"label": "x", "transfers": [{"src": 3, "dst": 1}]})"), true, c);
    REQUIRE(s.phases.size() == 1);
    CHECK(s.phases[0].blocks(s.phases[0][0])[0] == direct_block(c, 3, 1));
  }
}

TEST_CASE("phase scanner: a program's ops, sends and local copies") {
  const Scan s = scan(at_key(R"({"label": "p", "ops": [
      {"src": 0, "dst": 1, "from": ["input", 1], "to": ["output", 0], "count": 2},
      {"rank": 2, "from": ["scratch", 3], "to": ["output", 4], "count": 1}]})"),
                      true);
  CHECK(s.end == ScanEnd::array_end);
  REQUIRE(s.phases.size() == 1);
  CHECK(s.phases[0] == testing::ops("p", {testing::send(0, 1, in(1), out(0), 2),
                                          testing::copy(2, testing::scr(3), out(4), 1)}));
  CHECK(s.has_ops == std::vector<bool>{true});
}

TEST_CASE("phase scanner: from a phase delivered already, which is skipped") {
  // Its length unknown (simdjson skips it), or known: where the plain reader goes on.
  for (const std::size_t skip : {std::size_t{0}, kDelivered.size()}) {
    CAPTURE(skip);
    const Scan s = scan(kDelivered + R"(, {"label": "next", "transfers": [{"src": 1, "dst": 0}]}])",
                        false, Collective::alltoall, skip);
    CHECK(s.end == ScanEnd::array_end);
    REQUIRE(s.phases.size() == 1);
    CHECK(s.phases[0] == testing::phase("next", {{1, 0}}));
    CHECK(s.starts[0] == kDelivered.size() + 2);
  }
}

TEST_CASE("phase scanner: a text that ends inside the phases ends the scan at the window's end") {
  const std::string whole = R"({"label": "a", "transfers": [{"src": 0, "dst": 1}]},)";
  SUBCASE("between two phases") {
    const Scan s = scan("\"phases\": [" + whole + "\n", true);
    CHECK(s.end == ScanEnd::window_end);
    CHECK(s.phases.size() == 1);
  }
  SUBCASE("inside a phase: the phases before it are delivered") {
    const Scan s =
        scan("\"phases\": [" + whole + "\n" + R"({"label": "b", "transfers": [)" + "\n", true);
    CHECK(s.end == ScanEnd::window_end);
    CHECK(s.phases.size() == 1);
  }
  SUBCASE("inside the first phase") {
    const Scan s = scan("\"phases\": [{\"label\": \"a\",\n", true);
    CHECK(s.end == ScanEnd::window_end);
    CHECK(s.phases.empty());
  }
  SUBCASE("the phase delivered already and no more") {
    const Scan s = scan(kDelivered + ",\n", false);
    CHECK(s.end == ScanEnd::window_end);
    CHECK(s.phases.empty());
  }
}

TEST_CASE("phase scanner: what the first stage refuses is invalid text") {
  const Scan s = scan(at_key("{\"label\": \"\xff\", \"transfers\": []}"), true);
  CHECK(s.end == ScanEnd::invalid_text);
  CHECK(s.phases.empty());
}

TEST_CASE("phase scanner: a text that does not start at the phases is refused") {
  CHECK(scan("\"phases\": {}\n", true).end == ScanEnd::refused);
  CHECK(scan("\"phasez\": []\n", true).end != ScanEnd::array_end);
}

TEST_CASE("phase scanner: phases it does not take are refused, for the SAX reader") {
  // Each is either an error the SAX reader reports or a spelling it reads; the scanner takes
  // neither.
  const std::vector<std::string> phases = {
      // the phase
      R"([])",
      R"({"label": "a"})",
      R"({"label": "a", "transfers": [], "ops": []})",
      R"({"label": "a", "label": "b", "transfers": []})",
      R"({"label": 1, "transfers": []})",
      R"({"label": "a", "transfers": [], "extra": 1})",
      R"({"l\u0061bel": "a", "transfers": []})",
      // a transfer
      R"({"label": "a", "transfers": {}})",
      R"({"label": "a", "transfers": [[0, 1]]})",
      R"({"label": "a", "transfers": [{"src": 0}]})",
      R"({"label": "a", "transfers": [{"dst": 0}]})",
      R"({"label": "a", "transfers": [{"src": 0, "src": 1, "dst": 2}]})",
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "via": 2}]})",
      R"({"label": "a", "transfers": [{"src": -1, "dst": 1}]})",
      R"({"label": "a", "transfers": [{"src": 1.0, "dst": 1}]})",
      R"({"label": "a", "transfers": [{"src": 1e2, "dst": 1}]})",
      R"({"label": "a", "transfers": [{"src": 1048576, "dst": 1}]})",
      R"({"label": "a", "transfers": [{"src": 99999999999999999999, "dst": 1}]})",
      // blocks
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": []}]})",
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[]]}]})",
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0, 1, 0, 0]]}]})",
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [0]}]})",
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": {}}]})",
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [["0"]]}]})",
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0]], "blocks": [[1]]}]})",
      // ops
      R"({"label": "a", "ops": {}})",
      R"({"label": "a", "ops": [1]})",
      R"({"label": "a", "ops": [{"rank": 0, "from": ["input", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"rank": 0, "to": ["input", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"from": ["input", 0], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"src": 0, "from": ["input", 0], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"dst": 0, "from": ["input", 0], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"src": 1, "dst": 1, "from": ["input", 0], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"src": 0, "dst": 1, "rank": 0, "from": ["input", 0], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"rank": 0, "rank": 0, "from": ["input", 0], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"rank": 0, "from": ["input", 0], "to": ["output", 0], "count": 0}]})",
      R"({"label": "a", "ops": [{"rank": 0, "from": ["input", 0], "to": ["output", 0], "count": 4294967296}]})",
      R"({"label": "a", "ops": [{"rank": 0, "from": ["input", 0], "to": ["output", 0], "count": 1, "x": 1}]})",
      R"({"label": "a", "ops": [{"rank": 1048576, "from": ["input", 0], "to": ["output", 0], "count": 1}]})",
      // slots
      R"({"label": "a", "ops": [{"rank": 0, "from": ["heap", 0], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"rank": 0, "from": [0, 0], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"rank": 0, "from": ["input"], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"rank": 0, "from": ["input", 0, 0], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"rank": 0, "from": ["input", 1073741824], "to": ["output", 0], "count": 1}]})",
      R"({"label": "a", "ops": [{"rank": 0, "from": "input", "to": ["output", 0], "count": 1}]})",
  };
  for (const std::string& p : phases) check_refused(p);
}

TEST_CASE("phase scanner: the largest values it takes are the SAX reader's") {
  const Scan s = scan(at_key(R"({"label": "a", "ops": [
      {"rank": 1048575, "from": ["input", 1073741823], "to": ["output", 0], "count": 4294967295}]},
    {"label": "b", "transfers": [{"src": 1048575, "dst": 0}]})"),
                      true);
  CHECK(s.end == ScanEnd::array_end);
  REQUIRE(s.phases.size() == 2);
  CHECK(s.phases[0].ops()[0] == testing::copy(1048575, in(1073741823), out(0), 4294967295u));
  CHECK(s.phases[1][0].src == 1048575);
}

TEST_CASE("phase scanner: a refused phase after good ones: those are delivered first") {
  const Scan s = scan(at_key(R"({"label": "a", "transfers": []}, {"label": "b"})"), true);
  CHECK(s.end == ScanEnd::refused);
  REQUIRE(s.phases.size() == 1);
  CHECK(s.phases[0].label() == "a");
}

TEST_CASE("phase scanner: agrees with the SAX reader on a file's phases") {
  // The same phases through the whole reader with the fast path off.
  const std::string phases =
      R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0], [2]]}]},
    {"label": "b", "transfers": [{"src": 2, "dst": 0}]})";
  const std::string file = R"({"format": "phasecheck.schedule/1", "algorithm": "x",
  "collective": "allgather", "ranks": 3, "topology": {"kind": "ring", "ranks": 3},
  )" + at_key(phases) + "}";
  const Schedule whole = pipeline::parse_schedule(file, "s.json");
  const Scan s = scan(at_key(phases), true, Collective::allgather);
  CHECK(s.end == ScanEnd::array_end);
  CHECK(s.phases == whole.phases);
}

namespace {

/// The text after `end`, whitespace dropped: where a phase's text ends, the next token follows.
char next_token(const std::string& text, std::size_t end) {
  const std::size_t at = text.find_first_not_of(" \n\r\t", end);
  return at == std::string::npos ? '\0' : text[at];
}

}  // namespace

TEST_CASE("phase scanner: phasecheck's own spelling, read as the SAX reader reads it") {
  // What the writer writes (io/schedule_json_writer.cpp), the plain reader's part, and the
  // whitespace JSON allows anywhere between tokens.
  Schedule schedule{testing::header(FullyConnected(3, 1)),
                    {testing::phase("a", {{0, 1}, {2, 0, {Block{2, 0}, Block{1, 0, 3}}}}),
                     Phase("empty"), testing::phase("b !~", {{1048575, 0}})}};
  schedule.header.parts = 4;
  std::string text = io::schedule_to_json(schedule);
  text = text.substr(text.find("\"phases\""));
  text.resize(text.rfind('}'));  // the document's '}'
  for (const std::string& spelling :
       {text, std::string(R"("phases"	:[ {"label":"a","transfers":[{"src":0,"dst":1},)"
                          "\r\n"
                          R"({ "src" : 2 , "dst" : 0 , "blocks" : [ [ 2 , 0 ] , [1,0,3] ] } ] } ,)"
                          R"({"label": "empty", "transfers": [ ]},)"
                          R"({"label": "b !~", "transfers": [{"src": 1048575, "dst": 0}]}])"
                          "\n")}) {
    CAPTURE(spelling);
    const Scan s = scan(spelling, true);
    CHECK(s.end == ScanEnd::array_end);
    CHECK(s.phases == schedule.phases);
    for (std::size_t i = 0; i < s.phases.size(); ++i) {
      CHECK(spelling[s.starts[i]] == '{');
      CHECK(next_token(spelling, s.ends[i]) == (i + 1 < s.phases.size() ? ',' : ']'));
    }
  }
}

TEST_CASE("phase scanner: allgather blocks in the plain spelling, null for every rank") {
  const Scan s = scan(
      at_key(
          R"({"label": "g", "transfers": [{"src": 0, "dst": 1, "blocks": [[0], [2, null, 1]]}]})"),
      true, Collective::allgather);
  CHECK(s.end == ScanEnd::array_end);
  REQUIRE(s.phases.size() == 1);
  CHECK(s.phases[0] ==
        testing::phase("g", {{0, 1, {Block{0, kEveryRank}, Block{2, kEveryRank, 1}}}}));
}

TEST_CASE("phase scanner: a spelling of its own after plain phases is read by simdjson") {
  // Each phase after "a" leaves the plain reader; simdjson reads on from "a" (skipped) and
  // delivers the rest, so every phase arrives once, in order.
  const std::vector<std::pair<std::string, Phase>> others = {
      {R"({"transfers": [{"src": 1, "dst": 2}], "label": "b"})", testing::phase("b", {{1, 2}})},
      {R"({"label": "b", "transfers": [{"dst": 2, "src": 1}]})", testing::phase("b", {{1, 2}})},
      {R"({"label": "\u0062", "transfers": [{"src": 1, "dst": 2}]})",
       testing::phase("b", {{1, 2}})},
      {"{\"label\": \"\xc3\xa9\", \"transfers\": [{\"src\": 1, \"dst\": 2}]}",
       testing::phase("\xc3\xa9", {{1, 2}})},
      {R"({"label": "b", "transfers": [{"blocks": [[1, 2]], "src": 1, "dst": 2}]})",
       testing::phase("b", {{1, 2}})},
  };
  for (const auto& [text, phase] : others) {
    CAPTURE(text);
    const Scan s = scan(at_key(R"({"label": "a", "transfers": [{"src": 0, "dst": 1}]},
    )" + text + R"(,
    {"label": "c", "transfers": []})"),
                        true);
    CHECK(s.end == ScanEnd::array_end);
    REQUIRE(s.phases.size() == 3);
    CHECK(s.phases[0] == testing::phase("a", {{0, 1}}));
    CHECK(s.phases[1] == phase);
    CHECK(s.phases[2] == Phase("c"));
  }
}

TEST_CASE("phase scanner: the plain reader stops at a text's end inside a phase") {
  const std::string a = R"({"label": "a", "transfers": [{"src": 0, "dst": 1}]})";
  const std::string b =
      R"({"label": "b", "transfers": [{"src": 12, "dst": 1, "blocks": [[12, 1], [0, null, 1]]}]})";
  // Every cut of the second phase between two tokens (outside a string, not inside "null"), as
  // a window is cut: the first is delivered, the scan asks for more text.
  for (std::size_t n = 0; n < b.size(); ++n) {
    if (std::count(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n), '"') % 2 != 0 ||
        (n > 0 && std::isalpha(b[n - 1]) && std::isalpha(b[n])))
      continue;
    CAPTURE(n);
    const Scan s = scan("\"phases\": [" + a + ",\n" + b.substr(0, n), true);
    CHECK(s.end == ScanEnd::window_end);
    CHECK(s.phases.size() == 1);
    // From "a", delivered already, its length known.
    const Scan from = scan(a + ",\n" + b.substr(0, n), false, Collective::alltoall, a.size());
    CHECK(from.end == ScanEnd::window_end);
    CHECK(from.phases.empty());
  }
}

TEST_CASE("phase scanner: numbers the plain reader leaves to simdjson, refused there too") {
  for (const char* p : {
           R"({"label": "a", "transfers": [{"src": 01, "dst": 1}]})",
           R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0, 01]]}]})",
           R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0, null]]}]})",
           R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[null]]}]})",
           R"({"label": "a", "transfers": [{"src": 0, "dst": 1, "blocks": [[0, 1, 2, 3]]}]})",
           R"({"label": "a", "transfers": [{"src": 4294967296, "dst": 1}]})",
           R"({"label": "a", "transfers": [{"src": 0, "dst": 1},]})",
           R"({"label": "a", "transfers": [{"src": 0, "dst": 1}],})",
       })
    check_refused(p);
}
