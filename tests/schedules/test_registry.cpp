#include <doctest/doctest.h>

#include <set>
#include <string>

#include "core/error.hpp"
#include "example_machines.hpp"
#include "schedules/registry.hpp"

using namespace phasecheck;

namespace {

const schedules::Algorithm& algorithm(std::string_view name) {
  const auto* a = schedules::find_algorithm(name);
  REQUIRE(a != nullptr);
  return *a;
}

Parameters given(const std::string& key, const std::string& value) {
  Parameters p;
  p.set(key, value);
  return p;
}

}  // namespace

TEST_CASE("every algorithm declares collective, a choice whose default is one of its values") {
  for (const auto& a : schedules::algorithms()) {
    INFO(a.name);
    const ParameterSpec* collective = find_spec(a.parameter_specs, "collective");
    REQUIRE(collective != nullptr);
    const auto* choice = std::get_if<Choice>(&collective->type);
    REQUIRE(choice != nullptr);
    REQUIRE(std::holds_alternative<Fixed>(collective->fallback));
    if (schedules::is_alltoallv(a)) {  // its collective is alltoallv, an alltoall with a matrix
      CHECK(read_choice({}, *collective) == "alltoallv");
      continue;
    }
    for (std::string_view value : choice->values) CHECK_NOTHROW(parse_collective(value));
    CHECK_NOTHROW(parse_collective(read_choice({}, *collective)));
  }
}

TEST_CASE("every declared default fits its declared range, on awkward sizes") {
  for (const auto& a : schedules::algorithms()) {
    std::set<std::string_view> names;
    for (const ParameterSpec& spec : a.parameter_specs) {
      INFO(a.name << ": " << spec);
      CHECK(names.insert(spec.name).second);  // declared once
      CHECK_FALSE(spec.help.empty());
      const auto* fixed = std::get_if<Fixed>(&spec.fallback);
      if (!fixed) continue;  // worked out by the algorithm from the machine
      for (Rank p : {1u, 2u, 3u, 4u, 7u, 8u, 16u, 31u, kMaxRanks})
        CHECK_NOTHROW(check_parameters(given(std::string(spec.name), std::string(fixed->value)),
                                       a.parameter_specs, p, a.name));
    }
  }
}

TEST_CASE("parameter_summary: the declarations in one line") {
  CHECK(schedules::parameter_summary(algorithm("shift")) ==
        "collective=alltoall|allgather (default alltoall)");
  CHECK(schedules::parameter_summary(algorithm("bruck-index")) ==
        "collective=alltoall radix=2..p (default 2) ports=1..2^20 (default: the machine's k, else "
        "1)");
  CHECK(schedules::parameter_summary(algorithm("randomized-segmented")) ==
        "collective=alltoall seed=0..2^64-1 (default: p) ranks=PERMUTATION (default: from seed) "
        "max_queue=0..2^30 (default 2) bytes=1..2^40 (default 4096) block_size=1..2^40 (default "
        "1024)");
}

TEST_CASE("make_header checks the parameters against the declaration on the machine's p") {
  CHECK_THROWS_WITH_AS(
      schedules::make_header(algorithm("ring"), Ring(4), given("bidirectonal", "true")),
      "ring has no parameter 'bidirectonal'; did you mean 'bidirectional'? (it takes: "
      "collective, bidirectional)",
      InputError);
  CHECK_THROWS_WITH_AS(
      schedules::make_header(algorithm("bruck-index"), FullyConnected(5, 1), given("radix", "6")),
      "parameter radix=6: expected an integer in [2, 5] (2..p, p = 5)", InputError);
  CHECK_THROWS_WITH_AS(schedules::make_header(algorithm("bruck-index"), FullyConnected(5, 1),
                                              given("collective", "allgather")),
                       "parameter collective=allgather: expected one of alltoall", InputError);
  CHECK(schedules::make_header(algorithm("bruck-concat"), FullyConnected(5, 1), {}).collective ==
        Collective::allgather);
  Parameters segments = given("bytes", "10");
  segments.set("block_size", "4");
  CHECK(schedules::make_header(algorithm("randomized-segmented"), FullyConnected(5, 1), segments)
            .parts == 3);
}

TEST_CASE("an algorithm's direct phases carry its header's collective, on every example machine") {
  // Its Phases are filled from the same direct phases (with_direct), so they cannot differ; what
  // a row can get wrong is the collective it stamps on them, and then every check would judge
  // each phase whole (Verifier::judged_direct) instead of from its pairs.
  std::size_t emitted = 0;
  for (const auto& [file, model] : testing::example_machines()) {
    for (const auto& a : schedules::algorithms()) {
      if (!a.generate_direct) continue;
      for (const char* collective : {"alltoall", "allgather"}) {
        INFO(std::string(a.name) << " (" << collective << ") on " << file);
        const ScheduleHeader h = schedules::make_header(a, model, given("collective", collective));
        try {
          a.generate_direct(h,
                            [&](const DirectPhase& d) {
                              CHECK(d.collective == h.collective);
                              ++emitted;
                            },
                            {});
        } catch (const InputError&) {  // not this machine
        }
      }
    }
  }
  CHECK(emitted > 100);
}

TEST_CASE("an algorithm's direct phases of a range are those phases of the whole") {
  // A process of a check split by phase range makes its range alone (faraj-yuan starts its groups
  // where their phases have got to); it must make what the whole generation makes there, labels
  // and pairs, and nothing more. Ranges cut at the start, inside, at the end and past it.
  std::size_t compared = 0;
  for (const auto& [file, model] : testing::example_machines()) {
    for (const auto& a : schedules::algorithms()) {
      if (!a.generate_direct) continue;
      INFO(std::string(a.name) << " on " << file);
      const ScheduleHeader h = schedules::make_header(a, model, {});
      using Made = std::vector<std::pair<std::string, std::vector<DirectTransfer>>>;
      const auto make = [&](PhaseRange range) {
        Made made;
        a.generate_direct(
            h,
            [&](const DirectPhase& d) {
              made.emplace_back(std::string(d.label), std::vector<DirectTransfer>(
                                                          d.transfers.begin(), d.transfers.end()));
            },
            range);
        return made;
      };
      Made all;
      try {
        all = make({});
      } catch (const InputError&) {  // not this machine
        continue;
      }
      const std::uint64_t n = all.size();
      for (const std::uint64_t first : {std::uint64_t{0}, std::uint64_t{1}, n / 3, n / 2, n - 1, n})
        for (const std::uint64_t last : {first, first + 1, first + n / 4 + 1, n, n + 5}) {
          if (first > n) continue;
          const Made part = make({first, last});
          const Made expected(all.begin() + static_cast<std::ptrdiff_t>(std::min(first, n)),
                              all.begin() + static_cast<std::ptrdiff_t>(std::min(last, n)));
          CHECK(part == expected);
          ++compared;
        }
    }
  }
  CHECK(compared > 200);
}
