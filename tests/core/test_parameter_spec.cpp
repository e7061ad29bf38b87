#include <doctest/doctest.h>

#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "core/parameter_spec.hpp"

using namespace phasecheck;

namespace {

constexpr std::string_view kCollectives[] = {"alltoall", "allgather"};
constexpr ParameterSpec kCollective{"collective", Choice{kCollectives}, Fixed{"alltoall"}, ""};
constexpr ParameterSpec kBidirectional{"bidirectional", Boolean{}, Fixed{"false"}, ""};
constexpr ParameterSpec kRadix{"radix", UInt{2, RankCount{}}, Fixed{"2"}, ""};
constexpr ParameterSpec kPorts{"ports", UInt{1, 8192}, InWords{"the machine's"}, ""};
constexpr ParameterSpec kQueue{"max_queue", UInt{0, 1u << 30}, Fixed{"2"}, ""};
constexpr ParameterSpec kRoot{"root", Text{"SWITCH"}, InWords{"the best switch"}, ""};
constexpr ParameterSpec kSpecs[] = {kCollective, kBidirectional, kRadix, kPorts, kQueue, kRoot};

Parameters given(const std::string& key, const std::string& value) {
  Parameters p;
  p.set(key, value);
  return p;
}

}  // namespace

TEST_CASE("check_parameters: an unknown key is refused, with the closest declared one") {
  CHECK_THROWS_WITH_AS(check_parameters(given("bidirectonal", "true"), kSpecs, 4, "ring"),
                       "ring has no parameter 'bidirectonal'; did you mean 'bidirectional'? (it "
                       "takes: collective, bidirectional, radix, ports, max_queue, root)",
                       InputError);
  CHECK_THROWS_WITH_AS(check_parameters(given("seed", "1"), kSpecs, 4, "ring"),
                       "ring has no parameter 'seed' (it takes: collective, bidirectional, radix, "
                       "ports, max_queue, root)",
                       InputError);
  CHECK_THROWS_WITH_AS(check_parameters(given("radix", "2"), {}, 4, "linear"),
                       "linear has no parameter 'radix' (it takes none)", InputError);
}

TEST_CASE("check_parameters: values out of range name key, value and range") {
  CHECK_THROWS_WITH_AS(check_parameters(given("max_queue", "1073741825"), kSpecs, 4, "a"),
                       "parameter max_queue=1073741825: expected an integer in [0, 1073741824]",
                       InputError);
  CHECK_THROWS_WITH_AS(check_parameters(given("ports", "0"), kSpecs, 4, "a"),
                       "parameter ports=0: expected an integer in [1, 8192]", InputError);
  for (const char* bad : {"two", "12abc", "-1", "+3", " 3", "", "99999999999999999999999"})
    CHECK_THROWS_AS(check_parameters(given("ports", bad), kSpecs, 4, "a"), InputError);
  CHECK_THROWS_WITH_AS(check_parameters(given("bidirectional", "yes"), kSpecs, 4, "a"),
                       "parameter bidirectional=yes: expected true or false", InputError);
  CHECK_THROWS_WITH_AS(check_parameters(given("collective", "scatter"), kSpecs, 4, "a"),
                       "parameter collective=scatter: expected one of alltoall, allgather",
                       InputError);
  // Text is the algorithm's to read: anything passes here.
  CHECK_NOTHROW(check_parameters(given("root", "no such switch"), kSpecs, 4, "a"));
}

TEST_CASE("check_parameters: a bound that depends on p, and never below the lower bound") {
  CHECK_NOTHROW(check_parameters(given("radix", "5"), kSpecs, 5, "bruck-index"));
  CHECK_THROWS_WITH_AS(check_parameters(given("radix", "6"), kSpecs, 5, "bruck-index"),
                       "parameter radix=6: expected an integer in [2, 5] (2..p, p = 5)",
                       InputError);
  CHECK_THROWS_WITH_AS(check_parameters(given("radix", "1"), kSpecs, 5, "bruck-index"),
                       "parameter radix=1: expected an integer in [2, 5] (2..p, p = 5)",
                       InputError);
  CHECK(range_on(std::get<UInt>(kRadix.type), 1) == std::pair<std::uint64_t, std::uint64_t>{2, 2});
  CHECK_NOTHROW(check_parameters(given("radix", "2"), kSpecs, 1, "bruck-index"));
  CHECK_THROWS_AS(check_parameters(given("radix", "3"), kSpecs, 2, "bruck-index"), InputError);
}

TEST_CASE("read_*: the value given, else the declared default, typed") {
  const Parameters none;
  CHECK(read_uint(none, kRadix, 8) == 2);
  CHECK(read_uint(given("radix", "8"), kRadix, 8) == 8);
  CHECK(read_uint(none, kPorts, 8, 3) == 3);  // the default worked out by the algorithm
  CHECK(read_uint(given("ports", "5"), kPorts, 8, 3) == 5);
  CHECK_FALSE(read_bool(none, kBidirectional));
  CHECK(read_bool(given("bidirectional", "true"), kBidirectional));
  CHECK(read_choice(none, kCollective) == "alltoall");
  CHECK(read_choice(given("collective", "allgather"), kCollective) == "allgather");
  CHECK(read_text(none, kRoot) == std::nullopt);
  CHECK(read_text(given("root", "s1"), kRoot) == "s1");
  // Reading validates too: a header from a file has not been through check_parameters.
  CHECK_THROWS_WITH_AS(read_uint(given("radix", "9"), kRadix, 8),
                       "parameter radix=9: expected an integer in [2, 8] (2..p, p = 8)",
                       InputError);
}

TEST_CASE("read_*: a reader that does not fit the declaration is a programming error") {
  const Parameters none;
  CHECK_THROWS_AS(read_bool(none, kRadix), std::logic_error);
  CHECK_THROWS_AS(read_uint(none, kPorts, 8), std::logic_error);     // its default is in words
  CHECK_THROWS_AS(read_uint(none, kRadix, 8, 2), std::logic_error);  // its default is fixed
  CHECK_THROWS_AS(read_choice(none, kRoot), std::logic_error);
  CHECK_THROWS_AS(read_text(none, kCollective), std::logic_error);
}

TEST_CASE("describe: one line of help per parameter") {
  CHECK(describe(kCollective) == "collective=alltoall|allgather (default alltoall)");
  CHECK(describe(kBidirectional) == "bidirectional=true|false (default false)");
  CHECK(describe(kRadix) == "radix=2..p (default 2)");
  CHECK(describe(kPorts) == "ports=1..8192 (default: the machine's)");
  CHECK(describe(kQueue) == "max_queue=0..2^30 (default 2)");
  CHECK(describe(kRoot) == "root=SWITCH (default: the best switch)");
  constexpr std::string_view only[] = {"alltoall"};
  CHECK(describe({"collective", Choice{only}, Fixed{"alltoall"}, ""}) == "collective=alltoall");
  CHECK(describe({"seed", UInt{0, UINT64_MAX}, InWords{"p"}, ""}) == "seed=0..2^64-1 (default: p)");
}

TEST_CASE("find_spec: by name") {
  REQUIRE(find_spec(kSpecs, "radix") != nullptr);
  CHECK(*find_spec(kSpecs, "radix") == kRadix);
  CHECK(find_spec(kSpecs, "Radix") == nullptr);
}
