#include <doctest/doctest.h>

#include "core/suggest.hpp"

using namespace phasecheck;

TEST_CASE("suggest: edit distance counts swaps of neighbours as one edit, ignoring case") {
  CHECK(edit_distance("verify", "verify") == 0);
  CHECK(edit_distance("verfy", "verify") == 1);        // a deletion
  CHECK(edit_distance("congestoin", "congestion") == 1);  // a swap
  CHECK(edit_distance("JSON", "json") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("suggest: the closest known name, only when it is close enough to be meant") {
  const std::vector<std::string> known = {"factor", "shift", "pairwise-xor", "ring", "mesh",
                                          "hierarchical-factor"};
  CHECK(closest("pairwise-xr", known) == "pairwise-xor");
  CHECK(closest("shfit", known) == "shift");
  CHECK(closest("hier", known) == "hierarchical-factor");  // the only name it begins
  CHECK_FALSE(closest("bogus", known));
  CHECK(closest("r", known) == "ring");  // too short for edits, but the only name it begins
  CHECK_FALSE(closest("bruck", {"bruck-index", "bruck-concat"}));  // it begins two: no guess
  CHECK_FALSE(closest("", known));
  CHECK(closest("rin", known) == "ring");
}

TEST_CASE("suggest: the message names the guess and every known name") {
  CHECK(unknown_name("algorithm", "shfit", {"factor", "shift"}) ==
        "unknown algorithm 'shfit'; did you mean 'shift'? (known: factor, shift)");
  CHECK(unknown_name("command", "xyzzy", {"verify", "gate"}) ==
        "unknown command 'xyzzy' (known: verify, gate)");
}
