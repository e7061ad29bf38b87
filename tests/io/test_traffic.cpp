#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "experiments/traffic_models.hpp"
#include "io/traffic.hpp"
#include "io/traffic_json.hpp"
#include "msccl_builders.hpp"

using namespace phasecheck;

namespace {

std::string error_of(std::string_view text, std::string_view source,
                     std::optional<std::uint64_t> element_bytes = {}) {
  try {
    io::parse_traffic(text, source, element_bytes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

/// The message of the reader a schedule's "traffic" member goes through (a JSON document, then
/// traffic_from_json): the second method the file reader's messages are held against.
std::string document_error_of(std::string_view text) {
  try {
    const auto document = io::detail::parse_document(text, "t.json");
    io::detail::traffic_from_json({document, "t.json", ""});
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string json_of(const Traffic& traffic) {
  std::ostringstream out;
  io::write_traffic_json(out, traffic);
  return out.str();
}

std::string csv_of(const Traffic& traffic) {
  std::ostringstream out;
  io::write_traffic_csv(out, traffic);
  return out.str();
}

std::string matrix(std::string_view counts, std::string_view ranks = "2") {
  return R"({"format": "phasecheck.traffic/1", "ranks": )" + std::string(ranks) +
         R"(, "element_bytes": 1, "counts": )" + std::string(counts) + "}";
}

struct Refusal {
  std::string name, text, message;
};

}  // namespace

TEST_CASE("traffic files: JSON and CSV round-trip - same bytes again") {
  int runs = 0;
  for (const Rank p : {1u, 2u, 3u, 7u, 16u}) {
    const Traffic t = experiments::random_traffic(
        {.ranks = p, .max_count = 1000, .zero_fraction = 0.3, .seed = p, .element_bytes = 12});
    const std::string json = json_of(t);
    CHECK(io::parse_traffic(json, "t.json") == t);
    CHECK(json_of(io::parse_traffic(json, "t.json")) == json);
    const std::string csv = csv_of(t);
    CHECK(io::parse_traffic(csv, "t.csv", 12) == t);
    CHECK(csv_of(io::parse_traffic(csv, "t.csv")) == csv);
    ++runs;
  }
  CHECK(runs == 5);
  const Traffic t = uniform_traffic(2, 3, 4);
  CHECK(csv_of(t) == "3,3\n3,3\n");
  CHECK(json_of(t) ==
        "{\"format\": \"phasecheck.traffic/1\", \"ranks\": 2, \"element_bytes\": 4,\n"
        " \"counts\": [\n  [3, 3],\n  [3, 3]\n]}");
}

TEST_CASE("traffic CSV: line ends - white space - quotes and the element size") {
  Traffic expected = zero_traffic(2, 1);
  expected.counts = {0, 1, 2, 3};
  CHECK(io::parse_traffic("0,1\n2,3\n", "t.csv") == expected);
  CHECK(io::parse_traffic("0,1\r\n2,3\r\n", "t.csv") == expected);
  CHECK(io::parse_traffic("0,1\n2,3", "t.csv") == expected);
  CHECK(io::parse_traffic("\xEF\xBB\xBF 0 ,\t1\n2,\"3\"\n", "t.csv") == expected);
  expected.element_bytes = 8;
  CHECK(io::parse_traffic("0,1\n2,3\n", "t.csv", 8) == expected);
}

TEST_CASE("traffic JSON: the element size given must agree with the file's") {
  const std::string four = R"({"format": "phasecheck.traffic/1", "ranks": 1, "element_bytes": 4,
                               "counts": [[5]]})";
  CHECK(io::parse_traffic(four, "t.json", 4).element_bytes == 4);
  CHECK(io::parse_traffic(four, "t.json").element_bytes == 4);
  CHECK(error_of(four, "t.json", 8) ==
        "t.json: element_bytes: the file says 4, but 8 was given (--element-bytes)");
  // A file without one takes the given size (as a CSV does), else 1.
  const std::string none = R"({"format": "phasecheck.traffic/1", "ranks": 1, "counts": [[5]]})";
  CHECK(io::parse_traffic(none, "t.json", 8).element_bytes == 8);
  CHECK(io::parse_traffic(none, "t.json").element_bytes == 1);
  CHECK(error_of("5\n", "t.csv", 0) == "t.csv: element_bytes: 0 is not in 1..1073741824");
}

TEST_CASE("traffic JSON: every refusal names the file and the place - as a schedule's member does") {
  const std::vector<Refusal> refusals = {
      {"negative", matrix("[[0, 1], [2, -3]]"),
       "t.json: counts[1][1]: expected a non-negative integer, got a negative number"},
      {"fraction", matrix("[[0, 1.5], [2, 3]]"),
       "t.json: counts[0][1]: expected a non-negative integer, got a non-integer or out-of-range "
       "number"},
      {"string cell", matrix(R"([[0, 1], ["2", 3]])"),
       "t.json: counts[1][0]: expected a non-negative integer, got a string"},
      {"nested row", matrix("[[0, [1]], [2, 3]]"),
       "t.json: counts[0][1]: expected a non-negative integer, got an array"},
      {"row not an array", matrix("[[0, 1], 5]"),
       "t.json: counts[1]: expected an array, got a number"},
      {"counts not an array", matrix("{}"), "t.json: counts: expected an array, got an object"},
      {"short row", matrix("[[0, 1], [2]]"), "t.json: counts[1]: 1 counts for 2 ranks"},
      {"long row", matrix("[[0, 1], [2, 3, 4]]"), "t.json: counts[1]: 3 counts for 2 ranks"},
      {"few rows", matrix("[[0, 1]]"), "t.json: counts: 1 rows for 2 ranks"},
      {"many rows", matrix("[[0, 1], [2, 3], [4, 5]]"), "t.json: counts: 3 rows for 2 ranks"},
      {"no rows", matrix("[]"), "t.json: counts: 0 rows for 2 ranks"},
      {"beyond an MPI count", matrix("[[0, 2147483648], [2, 3]]"),
       "t.json: counts[0][1]: 2147483648 is too large (at most 2147483647)"},
      {"rank bytes",
       R"({"format": "phasecheck.traffic/1", "ranks": 1, "element_bytes": 1073741824,
           "counts": [[2000000]]})",
       "t.json: counts[0][0]: rank 0 would send more than 1 PiB"},
      {"format", R"({"format": "phasecheck.schedule/1", "ranks": 1, "counts": [[1]]})",
       "t.json: format: unsupported format \"phasecheck.schedule/1\" (this phasecheck reads "
       "phasecheck.traffic/1)"},
      {"format not a string", R"({"format": 1, "ranks": 1, "counts": [[1]]})",
       "t.json: format: expected a string, got a number"},
      {"missing counts", R"({"format": "phasecheck.traffic/1", "ranks": 1})",
       "t.json: missing \"counts\""},
      {"missing ranks", R"({"format": "phasecheck.traffic/1", "counts": [[1]]})",
       "t.json: missing \"ranks\""},
      {"unknown key", R"({"format": "phasecheck.traffic/1", "ranks": 1, "cells": [[1]]})",
       "t.json: unknown key \"cells\""},
      {"twice", R"({"format": "phasecheck.traffic/1", "ranks": 1, "ranks": 1, "counts": [[1]]})",
       "t.json: the key \"ranks\" appears twice in one object"},
      {"no ranks", matrix("[]", "0"), "t.json: ranks: must be at least 1"},
      {"ranks beyond the limit", matrix("[]", "2000000"),
       "t.json: ranks: 2000000 is too large (at most 1048576)"},
      {"ranks a string", matrix("[]", "\"2\""),
       "t.json: ranks: expected a non-negative integer, got a string"},
      {"element size 0", R"({"format": "phasecheck.traffic/1", "ranks": 1, "element_bytes": 0,
                             "counts": [[1]]})",
       "t.json: element_bytes: must be at least 1"},
      {"an array", "[1]", "t.json: expected an object, got an array"},
      {"syntax", "{\"format\": \"phasecheck.traffic/1\",\n \"ranks\": 2,,}",
       "t.json:2:13: invalid JSON: syntax error while parsing object key - unexpected ','; "
       "expected string literal"},
      {"number beyond double", matrix("[[0, 1e400], [2, 3]]"),
       "t.json:1:83: invalid JSON: number out of range: 1e400"},
      {"trailing text", matrix("[[0, 1], [2, 3]]") + " x",
       "t.json:1:96: invalid JSON: syntax error while parsing value - invalid literal; last read: "
       "'3]]} x'; expected end of input"},
  };
  int runs = 0;
  for (const Refusal& r : refusals) {
    CAPTURE(r.name);
    CHECK(error_of(r.text, "t.json") == r.message);
    CHECK(document_error_of(r.text) == r.message);
    ++runs;
  }
  CHECK(runs == static_cast<int>(refusals.size()));
}

TEST_CASE("traffic JSON: counts before ranks are read - and must agree with them") {
  const std::string late =
      R"({"counts": [[0, 1], [2, 3]], "ranks": 2, "format": "phasecheck.traffic/1"})";
  CHECK(io::parse_traffic(late, "t.json").counts == std::vector<std::uint64_t>{0, 1, 2, 3});
  const std::string disagree =
      R"({"counts": [[0, 1], [2, 3]], "ranks": 3, "format": "phasecheck.traffic/1"})";
  CHECK(error_of(disagree, "t.json") == "t.json: counts: 2 rows for 3 ranks");
  CHECK(document_error_of(disagree) == "t.json: counts: 2 rows for 3 ranks");
}

TEST_CASE("traffic CSV: every refusal names the file - the line and column - and the cell") {
  const std::vector<Refusal> refusals = {
      {"negative", "0,1\n2,-1\n",
       "t.csv:2:3: counts[1][1]: expected a non-negative integer, got \"-1\""},
      {"a word after spaces", "0, 1\n2 , x\n",
       "t.csv:2:5: counts[1][1]: expected a non-negative integer, got \"x\""},
      {"fraction", "0,1.5\n2,3\n",
       "t.csv:1:3: counts[0][1]: expected a non-negative integer, got \"1.5\""},
      {"empty cell", "0,\n2,3\n",
       "t.csv:1:3: counts[0][1]: expected a non-negative integer, got \"\""},
      {"beyond an MPI count", "4294967296\n",
       "t.csv:1:1: counts[0][0]: 4294967296 is too large (at most 2147483647)"},
      {"beyond 64 bits", "99999999999999999999999\n",
       "t.csv:1:1: counts[0][0]: 99999999999999999999999 is too large (at most 2147483647)"},
      {"short row", "1,2\n3\n", "t.csv:2: counts[1]: 1 counts for 2 ranks"},
      {"long row", "1,2\n3,4,5\n", "t.csv:2: counts[1]: 3 counts for 2 ranks"},
      {"an empty line", "1,2\n\n", "t.csv:2: counts[1]: 0 counts for 2 ranks"},
      {"an empty line inside", "1,2\n\n3,4\n",
       "t.csv: counts: 3 rows for 2 ranks (the first row has 2 counts)"},
      {"many rows", "1,2\n3,4\n5,6\n",
       "t.csv: counts: 3 rows for 2 ranks (the first row has 2 counts)"},
      {"an empty first line", "\n1,2\n3,4\n",
       "t.csv:1: an empty first line (expected p counts: a row of the matrix)"},
      {"empty", "",
       "t.csv: empty file (expected a traffic matrix: phasecheck.traffic/1 JSON, or p "
       "lines of p comma-separated counts)"},
      {"blank", " \r\n\n",
       "t.csv: empty file (expected a traffic matrix: phasecheck.traffic/1 "
       "JSON, or p lines of p comma-separated counts)"},
      {"bad escape", "1,\\q\n2,3\n", "t.csv:1:3: invalid CSV: unknown escape sequence"},
      {"rank bytes", "536870912,536870912\n0,0\n",
       "t.csv: counts[0][1]: rank 0 would send more than 1 PiB"},
  };
  int runs = 0;
  for (const Refusal& r : refusals) {
    CAPTURE(r.name);
    CHECK(error_of(r.text, "t.csv", r.name == "rank bytes" ? 1 << 21 : 1) == r.message);
    ++runs;
  }
  CHECK(runs == static_cast<int>(refusals.size()));
}

TEST_CASE("traffic files: the matrix's memory is checked before it is allocated") {
  // 1,048,576 ranks: an 8 TiB matrix, refused from the header or the first row alone.
  testing::with_memory_limit(std::uint64_t{1} << 30, [] {
    const std::string json = matrix("[[", "1048576");
    CHECK(error_of(json, "t.json").starts_with("t.json: a traffic matrix of 1048576 ranks needs"));
    CHECK(error_of(json, "t.json").find("memory limit") != std::string::npos);
    std::string row(2 * 1048576 - 1, ',');
    for (std::size_t i = 0; i < row.size(); i += 2) row[i] = '0';
    const std::string csv = row + "\n" + row + "\n";
    CHECK(error_of(csv, "t.csv") ==
          "t.csv: counts: 2 rows for 1048576 ranks (the first row has 1048576 counts)");
    std::string square;
    for (int i = 0; i < 4; ++i) square += row + "\n";
    // Rows are counted before the matrix: a wrong count is named without allocating.
    CHECK(error_of(square, "t.csv").find("4 rows for 1048576 ranks") != std::string::npos);
  });
  testing::with_memory_limit(16, [] {  // a 2 x 2 matrix is 32 bytes
    CHECK(error_of("1,2\n3,4\n", "t.csv").starts_with("t.csv: a traffic matrix of 2 ranks needs"));
    CHECK(error_of(matrix("[[1, 2], [3, 4]]"), "t.json")
              .starts_with("t.json: a traffic matrix of 2 ranks needs"));
  });
}

TEST_CASE("traffic files: read from a file by its name") {
  namespace fs = std::filesystem;
  const std::string path = (fs::temp_directory_path() / "phasecheck-test-traffic.csv").string();
  std::ofstream(path) << "0,1\n2,3\n";
  CHECK(io::read_traffic_file(path, 2).element_bytes == 2);
  std::ofstream(path) << "0,1\n2,x\n";
  try {
    io::read_traffic_file(path);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) ==
          path + ":2:3: counts[1][1]: expected a non-negative integer, got \"x\"");
  }
  fs::remove(path);
  CHECK_THROWS_AS(io::read_traffic_file(path), InputError);
}
