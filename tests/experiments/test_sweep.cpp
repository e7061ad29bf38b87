// experiments/sweep.hpp: the rows of a sweep, in order whatever the threads did, their verdicts
// and figures; the machine families; report/sweep_report.hpp's compressed ranges.

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "experiments/sweep.hpp"
#include "report/sweep_report.hpp"

using namespace phasecheck;
using experiments::Sweep;
using experiments::SweepRow;
using experiments::SweepSpec;

namespace {

Sweep run(SweepSpec spec, std::vector<Rank>* order = nullptr) {
  return experiments::sweep(spec, [&](const Sweep&, const SweepRow& row) {
    if (order) order->push_back(row.ranks);
  });
}

}  // namespace

TEST_CASE("sweep: every p and every ranged value, in order, the same with any number of threads") {
  SweepSpec spec{.algorithm = "bruck-index", .ranks = "2..9", .set = {"radix=2..4"}};
  spec.jobs = 1;
  std::vector<Rank> order;
  const Sweep one = run(spec, &order);
  REQUIRE(one.rows.size() == 24);
  CHECK(order.size() == 24);
  // Setting-major: radix 2 at p = 2..9, then radix 3, then radix 4.
  for (std::size_t i = 0; i < one.rows.size(); ++i) {
    CHECK(one.rows[i].ranks == 2 + i % 8);
    CHECK(order[i] == one.rows[i].ranks);
    REQUIRE(one.rows[i].values.size() == 1);
    CHECK(one.rows[i].values[0] == std::pair<std::string, std::uint64_t>{"radix", 2 + i / 8});
  }
  // radix 3 on 2 ranks, radix 4 on 2 and 3: refused with the declaration's message.
  CHECK(one.rows[8].verdict == Verdict::not_evaluated);
  CHECK(one.rows[8].refused.find("radix=3") != std::string::npos);
  CHECK(one.rows[16].verdict == Verdict::not_evaluated);
  CHECK(one.rows[17].verdict == Verdict::not_evaluated);
  std::size_t passed = 0;
  for (const SweepRow& row : one.rows) {
    passed += row.verdict == Verdict::pass;
    if (row.verdict == Verdict::pass) {
      CHECK(row.verified);
      CHECK(row.c1 >= row.bound_c1);
      CHECK_FALSE(row.report.has_value());  // only a row that did not pass keeps its report
    }
  }
  CHECK(passed == 21);
  CHECK(one.verdict() == Verdict::pass);
  // Bruck's C1 is the bound on one port at radix 2 (Theorem 2.1): the gap says so.
  CHECK(one.rows[6].gap.c1 == std::uint64_t{0});

  spec.jobs = 3;
  const Sweep three = run(spec);
  REQUIRE(three.rows.size() == one.rows.size());
  for (std::size_t i = 0; i < one.rows.size(); ++i) {
    CHECK(three.rows[i].ranks == one.rows[i].ranks);
    CHECK(three.rows[i].values == one.rows[i].values);
    CHECK(three.rows[i].verdict == one.rows[i].verdict);
    CHECK(three.rows[i].c2 == one.rows[i].c2);
    CHECK(three.rows[i].gap == one.rows[i].gap);
  }
  CHECK(reports::render_sweep(three, reports::ReportFormat::json) ==
        reports::render_sweep(one, reports::ReportFormat::json));
}

TEST_CASE("sweep: nothing checked is not a pass") {
  const Sweep s = run({.algorithm = "pairwise-xor", .ranks = "5..7"});
  REQUIRE(s.rows.size() == 3);
  for (const SweepRow& row : s.rows) CHECK(row.verdict == Verdict::not_evaluated);
  CHECK(s.verdict() == Verdict::not_evaluated);
}

TEST_CASE("sweep: the buffer programs, when asked") {
  const Sweep s = run({.algorithm = "ompi-bruck", .ranks = "2..6", .buffers = true});
  REQUIRE(s.rows.size() == 5);
  CHECK(s.verdict() == Verdict::pass);
  for (const SweepRow& row : s.rows) {
    CHECK(row.verdict == Verdict::pass);
    CHECK(row.replay.find("--buffers") != std::string::npos);
  }
}

TEST_CASE("sweep: the machine families") {
  CHECK(experiments::machine_family("cluster:3", 7) == Topology{Cluster({3, 3, 1})});
  CHECK(experiments::machine_family("fully-connected:2", 5) == Topology{FullyConnected(5, 2)});
  CHECK(experiments::family_command("cluster:3", 7) == "cluster --sizes 3,3,1");
  CHECK(experiments::family_command("tree:4", 12) == "tree --fanout 3,4");
  CHECK_THROWS_WITH_AS(experiments::machine_family("tree:4", 6),
                       doctest::Contains("p = 6 is not a multiple of 4"), InputError);
  CHECK_THROWS_WITH_AS(experiments::machine_family("hypercube", 6),
                       doctest::Contains("p = 6 is not a power of two"), InputError);
  CHECK_THROWS_WITH_AS(experiments::machine_family("cluster", 6),
                       doctest::Contains("cluster needs a size (cluster:N)"), InputError);
  CHECK_THROWS_AS(experiments::machine_family("torus", 6), InputError);
}

TEST_CASE("sweep: rank counts as compressed ranges") {
  CHECK(reports::rank_ranges({}) == "-");
  CHECK(reports::rank_ranges({7}) == "7");
  CHECK(reports::rank_ranges({2, 3, 4, 6, 8, 9, 11}) == "2..4, 6, 8, 9, 11");
}
