#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parameters.hpp"

using namespace phasecheck;

TEST_CASE("parameters: key=value pairs with typed, validated access") {
  const std::vector<std::string> args{"radix=4", "compact=true", "collective=allgather"};
  const Parameters p = Parameters::parse(args);
  CHECK(p.get_uint("radix", 2, 2, 64) == 4);
  CHECK(p.get_uint("ports", 1, 1, 8) == 1);
  CHECK(p.get_bool("compact", false));
  CHECK(p.get_choice("collective", "alltoall", {"alltoall", "allgather"}) == "allgather");
  CHECK_THROWS_WITH_AS(p.get_uint("radix", 2, 5, 64),
                       "parameter radix=4: expected an integer in [5, 64]", InputError);
  CHECK_THROWS_WITH_AS(p.expect_only({"radix"}, "bruck"),
                       "bruck has no parameter 'collective' (it takes: radix)", InputError);
}

TEST_CASE("parameters: malformed assignments are rejected") {
  const std::vector<std::string> no_eq{"radix"};
  CHECK_THROWS_WITH_AS(Parameters::parse(no_eq), "parameter 'radix' is not of the form key=value",
                       InputError);
  const std::vector<std::string> twice{"a=1", "a=2"};
  CHECK_THROWS_WITH_AS(Parameters::parse(twice), "parameter 'a' is given twice", InputError);
  const std::vector<std::string> bad{"x=12abc"};
  CHECK_THROWS_AS(Parameters::parse(bad).get_uint("x", 0, 0, 100), InputError);
  const std::vector<std::string> huge{"x=99999999999999999999999"};
  CHECK_THROWS_AS(Parameters::parse(huge).get_uint("x", 0, 0, 100), InputError);
}
