// A schedule file's header on its own (io/schedule_header.hpp); the whole reader's messages for
// bad headers are in test_schedule_json.cpp.

#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"
#include "io/json.hpp"
#include "io/json_common.hpp"
#include "io/schedule_header.hpp"

using namespace phasecheck;
using io::detail::Json;

namespace {

/// The header of `text`, counting the calls of on_shape.
ScheduleHeader header_of(const std::string& text, int* shapes = nullptr) {
  return io::detail::header_from_json(Json::parse(text), "h.json", [&](const ScheduleHeader&) {
    if (shapes) ++*shapes;
  });
}

std::string error_of(const std::string& text) {
  try {
    header_of(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kV1 = R"({"format": "phasecheck.schedule/1", "algorithm": "x",
  "collective": "alltoall", "ranks": 3, "topology": {"kind": "ring", "ranks": 3}})";

}  // namespace

TEST_CASE("schedule header: its keys") {
  CHECK(io::detail::is_header_key("format"));
  CHECK(io::detail::is_header_key("buffers"));
  CHECK_FALSE(io::detail::is_header_key("phases"));
  CHECK_FALSE(io::detail::is_header_key("Format"));
}

TEST_CASE("schedule header: complete once the required keys and the machine are read") {
  CHECK(io::detail::header_complete(Json::parse(kV1)));
  CHECK_FALSE(io::detail::header_complete(Json::parse(R"({"format": "phasecheck.schedule/1",
      "algorithm": "x", "collective": "alltoall", "ranks": 3})")));
  CHECK_FALSE(io::detail::header_complete(Json::parse(R"({"format": "phasecheck.schedule/1",
      "algorithm": "x", "collective": "alltoall", "topology": {"kind": "ring", "ranks": 3}})")));
  const std::string v3 = R"({"format": "phasecheck.schedule/3", "algorithm": "x",
      "collective": "alltoall", "ranks": 3)";
  CHECK_FALSE(io::detail::header_complete(Json::parse(v3 + "}")));
  CHECK(io::detail::header_complete(
      Json::parse(v3 + R"(, "buffers": {"input": 3, "output": 3, "scratch": 0}})")));
}

TEST_CASE("schedule header: built and validated, on_shape sees it before the parameters") {
  int shapes = 0;
  const ScheduleHeader h = header_of(
      kV1.substr(0, kV1.size() - 1) + R"(, "parameters": {"k": 2, "name": "a", "on": true}})",
      &shapes);
  CHECK(shapes == 1);
  CHECK(h.algorithm == "x");
  CHECK(h.collective == Collective::alltoall);
  CHECK(h.ranks() == 3);
  CHECK(h.parts == 1);
  CHECK_FALSE(h.buffers.has_value());
  CHECK(h.parameters.entries().size() == 3);

  shapes = 0;
  CHECK_THROWS_WITH(
      header_of(kV1.substr(0, kV1.size() - 1) + R"(, "parameters": {"k": [1]}})", &shapes),
      "h.json: parameters.k: expected a string, number or boolean");
  CHECK(shapes == 1);
}

TEST_CASE("schedule header: version 3 without a machine, with its buffers") {
  const ScheduleHeader h = header_of(R"({"format": "phasecheck.schedule/3", "algorithm": "x",
      "collective": "alltoall", "ranks": 4, "chunks": 2,
      "buffers": {"input": 8, "output": 8, "scratch": 5}})");
  CHECK(h.topology == Topology(FullyConnected(4, 3)));
  REQUIRE(h.buffers.has_value());
  CHECK(h.buffers->chunks == 2);
  CHECK(h.buffers->scratch == 5);
  CHECK(h.parts == 2);
}

TEST_CASE("schedule header: bad headers name the file and the key") {
  CHECK(error_of(R"({"format": "phasecheck.schedule/1"})") == "h.json: missing \"algorithm\"");
  CHECK(error_of(R"({"format": "phasecheck.schedule/9", "algorithm": "x",
      "collective": "alltoall", "ranks": 3})") ==
        "h.json: format: unsupported format \"phasecheck.schedule/9\" (this phasecheck reads "
        "phasecheck.schedule/1, phasecheck.schedule/2, phasecheck.schedule/3 and "
        "phasecheck.schedule/4)");
  CHECK(error_of(kV1.substr(0, kV1.size() - 1) + R"(, "parts": 2})") ==
        "h.json: parts: \"parts\" needs phasecheck.schedule/2");
  CHECK(error_of(kV1.substr(0, kV1.size() - 1) + R"(, "chunks": 2})") ==
        "h.json: chunks: \"chunks\" needs phasecheck.schedule/3");
  CHECK(error_of(R"({"format": "phasecheck.schedule/1", "algorithm": "x",
      "collective": "alltoall", "ranks": 4, "topology": {"kind": "ring", "ranks": 3}})") ==
        "h.json: ranks: 4 does not match the topology, which has 3 ranks");
  CHECK(error_of(R"({"format": "phasecheck.schedule/1", "algorithm": "x",
      "collective": "gather", "ranks": 3, "topology": {"kind": "ring", "ranks": 3}})")
            .starts_with("h.json: collective: "));
  CHECK(error_of(R"({"format": "phasecheck.schedule/3", "algorithm": "x",
      "collective": "alltoall", "ranks": 3, "inplace": true})") ==
        "h.json: inplace: an alltoall in place needs phasecheck.schedule/4");
  CHECK(error_of(kV1.substr(0, kV1.size() - 1) + R"(, "inplace": true})") ==
        "h.json: inplace: \"inplace\" needs phasecheck.schedule/4");
}

TEST_CASE("schedule header: version 4 is a program with \"buffers\", else a table") {
  const ScheduleHeader program = header_of(R"({"format": "phasecheck.schedule/4", "algorithm": "x",
      "collective": "alltoall", "ranks": 4, "inplace": true, "buffers": {}})");
  REQUIRE(program.buffers.has_value());
  CHECK(*program.buffers == BufferLayout{1, true, 0, 4, 0});
  CHECK(program.in_place());
  const ScheduleHeader table = header_of(R"({"format": "phasecheck.schedule/4", "algorithm": "x",
      "collective": "allgather", "ranks": 3, "parts": 8, "inplace": true,
      "topology": {"kind": "ring", "ranks": 3}})");
  CHECK(!table.buffers.has_value());
  CHECK(table.inplace);
  CHECK(table.in_place());
  CHECK(table.parts == 8);
}
