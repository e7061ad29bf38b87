// experiments/alltoallv_question.hpp and report/skew_plot.hpp: `whatif alltoallv`, the alltoallv
// algorithms' cost against the load bound on MoE matrices, and its plot.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "experiments/alltoallv_question.hpp"
#include "experiments/traffic_models.hpp"
#include "report/skew_plot.hpp"
#include "report/table.hpp"
#include "schedules/registry.hpp"
#include "verify/traffic_bounds.hpp"

using namespace phasecheck;
using experiments::AlltoallvQuestion;
using experiments::MoeFamily;

namespace {

std::vector<schedules::Algorithm> every_alltoallv() {
  std::vector<schedules::Algorithm> rows;
  for (const schedules::Algorithm& a : schedules::algorithms())
    if (schedules::is_alltoallv(a)) rows.push_back(a);
  return rows;
}

MoeFamily small_family() {
  MoeFamily family;
  family.ranks = {4, 7};
  family.zipf = {0, 1.5};
  family.tokens = 64;
  family.hidden = 16;
  return family;
}

/// On a machine with p - 1 ports every direct pattern is contention-free.
AlltoallvQuestion question_on_full_ports(Rank p) {
  AlltoallvQuestion q;
  MoeFamily family = small_family();
  family.ranks = {p};
  q.traffic = family;
  q.machine = FullyConnected(p, p - 1);
  q.machine_source = "fc";
  q.algorithms = every_alltoallv();
  return q;
}

const schedules::Algorithm& registered(std::string_view name) {
  return schedules::require_algorithm(name);
}

nlohmann::ordered_json rows_of(const experiments::AlltoallvAnswer& answer) {
  return answer.report.table.json();
}

}  // namespace

TEST_CASE("whatif alltoallv: every row verified on p - 1 ports, cost at or above the bound") {
  for (const Rank p : {Rank{2}, Rank{5}, Rank{8}}) {
    CAPTURE(p);
    const AlltoallvQuestion q = question_on_full_ports(p);
    const auto answer = experiments::alltoallv_costs(q, nullptr);
    CHECK(answer.report.verdict == Verdict::pass);
    const auto rows = rows_of(answer);
    REQUIRE(rows.size() == 2 * q.algorithms.size());
    REQUIRE(q.algorithms.size() >= 3);
    std::size_t i = 0;
    for (const double zipf : {0.0, 1.5}) {
      MoeFamily family = small_family();
      experiments::MoeOptions options{.ranks = p,
                                      .experts = 4 * std::uint64_t{p},
                                      .top_k = family.top_k,
                                      .tokens = family.tokens,
                                      .hidden = family.hidden,
                                      .zipf = zipf,
                                      .seed = family.seed};
      const verify::LoadBound bound =
          verify::load_bound(FullyConnected(p, p - 1), experiments::moe_traffic(options));
      for (std::size_t a = 0; a < q.algorithms.size(); ++a, ++i) {
        const auto& row = rows[i];
        CAPTURE(row.dump());
        CHECK(row["status"] == "verified");
        CHECK(row["zipf"] == zipf);
        CHECK(row["load_bound_bytes"] == bound.bytes);
        CHECK(row["cost_bytes"].get<std::uint64_t>() >= bound.bytes);
        CHECK(row["ratio"].get<double>() >= 1.0);
        CHECK(row["gap_percent"].get<double>() >= 0.0);
        CHECK(row["phases"].get<std::uint64_t>() >= 1);
      }
    }
  }
}

TEST_CASE("whatif alltoallv: on one port, post-everything is n/a and pairwise exchange verified") {
  AlltoallvQuestion q;
  q.traffic = small_family();
  q.algorithms = {registered("linear-v"), registered("pairwise-v")};
  q.ts = 1e-5;
  q.tw = 1e-9;
  const auto answer = experiments::alltoallv_costs(q, nullptr);
  const auto rows = rows_of(answer);
  REQUIRE(rows.size() == 8);  // 2 rank counts x 2 skews x 2 algorithms
  for (const auto& row : rows) {
    CAPTURE(row.dump());
    if (row["algorithm"] == "linear-v") {
      CHECK(row["status"].get<std::string>().starts_with(
          "n/a: not contention-free on fully-connected(p="));
      CHECK(row["cost_bytes"].is_null());
      CHECK(row["ratio"].is_null());
      CHECK(row["time_s"].is_null());
      CHECK(row["fastest"].is_null());
    } else {
      CHECK(row["status"] == "verified");
      CHECK(row["ratio"].get<double>() >= 1.0);
      CHECK(row["fastest"] == "yes");  // the only verified row of its matrix
      const double t = 1e-5 * row["phases"].get<double>() + 1e-9 * row["cost_bytes"].get<double>();
      CHECK(row["time_s"].get<double>() == doctest::Approx(t));
    }
  }
  // An n/a row neither passes nor fails: the pairwise rows make the verdict.
  CHECK(answer.report.verdict == Verdict::pass);
  CHECK(answer.report.facts["fastest"].size() == 4);
  CHECK(answer.report.heading.find("the default machine: p ranks, 1 port each") !=
        std::string::npos);
  // The plot's curves: one per rank count and algorithm, NaN where there is no figure.
  REQUIRE(answer.curves.size() == 4);
  CHECK(answer.curves[0].algorithm == "linear-v");
  CHECK(std::isnan(answer.curves[0].ratio[0]));
  CHECK(answer.curves[1].algorithm == "pairwise-v");
  CHECK(answer.curves[1].ratio[1] >= 1.0);
  // The plot leaves out a line without a point, and keeps the others.
  const std::string svg = reports::cost_ratio_svg("t", answer);
  CHECK(svg.find("linear-v p=") == std::string::npos);
  CHECK(svg.find("pairwise-v p=4") != std::string::npos);
  CHECK(svg.find("pairwise-v p=7") != std::string::npos);
}

TEST_CASE("whatif alltoallv: a refused algorithm is a row saying so, and alone is not a pass") {
  schedules::Algorithm refusing = registered("pairwise-v");
  refusing.name = "refusing-v";
  refusing.generate = [](const ScheduleHeader&, const PhaseSink&) {
    throw InputError("refusing-v needs a power-of-two number of ranks");
  };
  AlltoallvQuestion q = question_on_full_ports(6);
  q.algorithms = {refusing};
  const auto answer = experiments::alltoallv_costs(q, nullptr);
  const auto rows = rows_of(answer);
  REQUIRE(rows.size() == 2);
  for (const auto& row : rows) {
    CHECK(row["status"] == "n/a: refusing-v needs a power-of-two number of ranks");
    CHECK(row["ratio"].is_null());
  }
  CHECK(answer.report.verdict == Verdict::not_evaluated);
}

TEST_CASE("whatif alltoallv: a broken schedule is a failed row without figures") {
  // pairwise-v with its last step dropped: the messages rank -> rank - 1 never arrive.
  schedules::Algorithm broken = registered("pairwise-v");
  const auto generate = broken.generate;
  broken.generate = [generate](const ScheduleHeader& header, const PhaseSink& out) {
    std::size_t step = 0;
    generate(header, [&](const Phase& phase) {
      if (++step < header.ranks()) out(phase);
    });
  };
  AlltoallvQuestion q = question_on_full_ports(5);
  q.algorithms = {broken, registered("pairwise-v")};
  const auto answer = experiments::alltoallv_costs(q, nullptr);
  const auto rows = rows_of(answer);
  REQUIRE(rows.size() == 4);
  CHECK(rows[0]["status"].get<std::string>().starts_with("FAIL: "));
  CHECK(rows[0]["status"].get<std::string>().find("delivery") != std::string::npos);
  CHECK(rows[0]["cost_bytes"].is_null());
  CHECK(rows[0]["ratio"].is_null());
  CHECK(rows[1]["status"] == "verified");
  CHECK(answer.report.verdict == Verdict::fail);
  CHECK(std::isnan(answer.curves[0].ratio[0]));
}

TEST_CASE("whatif alltoallv: a traffic file is one matrix, no skew") {
  AlltoallvQuestion q;
  Traffic traffic = zero_traffic(4, 8);
  traffic.counts[0 * 4 + 3] = 10;  // all zero but one
  q.traffic = experiments::GivenTraffic{"one.json", SharedTraffic(traffic)};
  q.algorithms = {registered("pairwise-v")};
  const auto answer = experiments::alltoallv_costs(q, nullptr);
  const auto rows = rows_of(answer);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["zipf"].is_null());
  CHECK(rows[0]["cost_bytes"] == 80);
  CHECK(rows[0]["load_bound_bytes"] == 80);
  CHECK(rows[0]["ratio"] == 1.0);
  CHECK(answer.skews.empty());
  CHECK(answer.curves.empty());
  CHECK(answer.report.heading.find("the matrix one.json (p = 4, 8 bytes per element)") !=
        std::string::npos);
}

TEST_CASE(
    "whatif alltoallv: the same seed gives the same JSON and plot bytes and another seed differs") {
  AlltoallvQuestion q;
  q.traffic = small_family();
  q.algorithms = every_alltoallv();
  const auto one = experiments::alltoallv_costs(q, nullptr);
  const auto two = experiments::alltoallv_costs(q, nullptr);
  const std::string json = reports::render(one.report, reports::ReportFormat::json);
  CHECK(json == reports::render(two.report, reports::ReportFormat::json));
  const std::string svg = reports::cost_ratio_svg("t", one);
  CHECK(svg == reports::cost_ratio_svg("t", two));
  CHECK(std::count(svg.begin(), svg.end(), '\n') > 10);
  CHECK(svg.find("pairwise-v p=7") != std::string::npos);
  std::get<MoeFamily>(q.traffic).seed = 2;
  CHECK(reports::render(experiments::alltoallv_costs(q, nullptr).report,
                        reports::ReportFormat::json) != json);
}

TEST_CASE("whatif alltoallv: the plot's text goes through the XML escaper") {
  AlltoallvQuestion q;
  q.traffic = small_family();
  q.algorithms = {registered("pairwise-v")};
  const std::string svg =
      reports::cost_ratio_svg("<script>&", experiments::alltoallv_costs(q, nullptr));
  CHECK(svg.find("<script>") == std::string::npos);
  CHECK(svg.find("&lt;script&gt;&amp;") != std::string::npos);
}

TEST_CASE("whatif alltoallv: questions out of range are refused before any work") {
  const auto refused = [](AlltoallvQuestion q, const std::string& message) {
    CAPTURE(message);
    try {
      experiments::check_alltoallv_question(q);
      FAIL("not refused");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(message) != std::string::npos);
    }
  };
  AlltoallvQuestion q;
  q.traffic = small_family();
  q.algorithms = every_alltoallv();
  experiments::check_alltoallv_question(q);  // the base question is fine

  AlltoallvQuestion other = q;
  other.algorithms = {registered("shift")};
  refused(other, "shift is not an alltoallv algorithm");
  other = q;
  other.algorithms.clear();
  refused(other, "no algorithm to compare");
  other = q;
  std::get<MoeFamily>(other.traffic).zipf = {0, 1, 0};
  refused(other, "--zipf 0 is given twice");
  other = q;
  std::get<MoeFamily>(other.traffic).zipf = {-1};
  refused(other, "--zipf -1 is not in [0, 16]");
  other = q;
  std::get<MoeFamily>(other.traffic).ranks = {1};
  refused(other, "a matrix has 2 to 4096 ranks");
  other = q;
  std::get<MoeFamily>(other.traffic).top_k = 17;
  refused(other, "(--ranks 4): --top-k 17 is not in [1, 16]");
  other = q;
  std::get<MoeFamily>(other.traffic).ranks.clear();
  for (Rank p = 2; p < 80; ++p) std::get<MoeFamily>(other.traffic).ranks.push_back(p);
  std::get<MoeFamily>(other.traffic).zipf = {0, 0.5, 1, 1.5};
  refused(other, "312 matrices (--ranks values x --zipf values), more than the 256");
  other = q;
  std::get<MoeFamily>(other.traffic).ranks = {4096, 4095, 4094, 4093};
  std::get<MoeFamily>(other.traffic).tokens = 1;
  refused(other, "more than the 250000000 a table may cost");
  other = q;
  other.machine = FullyConnected(8, 1);
  other.machine_source = "m.json";
  refused(other, "m.json: whatif alltoallv: the machine has 8 ranks, the matrix 4");
  other = q;
  other.ts = -1;
  refused(other, "--ts and --tw must be finite and not negative");
}
