#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/parameters.hpp"

using namespace phasecheck;

TEST_CASE("parameters: key=value pairs, kept as text") {
  const std::vector<std::string> args{"radix=4", "compact=true", "root=s=1"};
  const Parameters p = Parameters::parse(args);
  REQUIRE(p.find("radix") != nullptr);
  CHECK(*p.find("radix") == "4");
  CHECK(*p.find("root") == "s=1");  // the first '=' splits
  CHECK(p.has("compact"));
  CHECK(p.find("ports") == nullptr);
  CHECK_FALSE(p.has("ports"));
  CHECK(p.entries().size() == 3);
}

TEST_CASE("parameters: malformed assignments are rejected") {
  const std::vector<std::string> no_eq{"radix"};
  CHECK_THROWS_WITH_AS(Parameters::parse(no_eq), "parameter 'radix' is not of the form key=value",
                       InputError);
  const std::vector<std::string> no_key{"=4"};
  CHECK_THROWS_WITH_AS(Parameters::parse(no_key), "parameter '=4' is not of the form key=value",
                       InputError);
  const std::vector<std::string> twice{"a=1", "a=2"};
  CHECK_THROWS_WITH_AS(Parameters::parse(twice), "parameter 'a' is given twice", InputError);
}
