#include <doctest/doctest.h>

#include "core/table.hpp"

using namespace phasecheck;

namespace {

Table sample() {
  Table t({{"name", "name"}, {"phases", "phases"}, {"gap_C1", "gap"}, {"mean", "mean load"}});
  t.add({std::string("shift"), std::uint64_t{7}, std::uint64_t{3}, 0.875});
  t.add({std::string("a, \"b\""), std::uint64_t{12}, std::monostate{}, 1.0 / 3});
  return t;
}

}  // namespace

TEST_CASE("table: text aligns columns, nothing is '-'") {
  CHECK(sample().text("  ") ==
        "  name    phases  gap  mean load\n"
        "  shift   7       3    0.875\n"
        "  a, \"b\"  12      -    0.3333\n");
}

TEST_CASE("table: csv quotes what needs quoting and leaves nothing empty") {
  CHECK(sample().csv() ==
        "name,phases,gap_C1,mean\r\n"
        "shift,7,3,0.875\r\n"
        "\"a, \"\"b\"\"\",12,,0.3333\r\n");
}

TEST_CASE("table: json rows keep numbers as numbers and nothing as null") {
  const auto j = sample().json();
  REQUIRE(j.size() == 2);
  CHECK(j[0]["name"] == "shift");
  CHECK(j[0]["phases"] == 7);
  CHECK(j[0]["mean"] == 0.875);
  CHECK(j[1]["gap_C1"].is_null());
  CHECK(j[1].begin().key() == "name");  // column order
}

TEST_CASE("table: figures have four significant digits, sizes whole KiB or bytes") {
  CHECK(figure(0.00126649) == "0.001266");
  CHECK(figure(1.2e-7) == "1.2e-07");
  CHECK(size_label(8192) == "8K");
  CHECK(size_label(1000) == "1000B");
}

TEST_CASE("table: a hostile text cell is one line of text, and no formula in CSV") {
  Table t({{"name", "name"}, {"delta", "delta"}});
  t.add({std::string("=HYPERLINK(\"http://e\")\n::error::x\x1b"), std::string("-3")});
  CHECK(t.text() ==
        "name                                    delta\n"
        "=HYPERLINK(\"http://e\")\\n::error::x\\x1b  -3\n");
  CHECK(t.csv() == "name,delta\r\n\"'=HYPERLINK(\"\"http://e\"\")\\n::error::x\\x1b\",-3\r\n");
}
